package dev.rota.affinity;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Chooses the platform's {@link Affinity} once, when first used: {@link LinuxAffinity} on Linux when
 * this module may call native code (native access enabled for it, or for every module by
 * {@code --illegal-native-access=allow}) and the C library has the functions, else a {@link NoAffinity}
 * whose reason says what is missing and how to enable it.
 *
 * <p>Native access is checked before any restricted FFM method is touched, so that the JDK never
 * prints its "restricted method" warning on the user's console.
 */
final class AffinityHolder {
    static final Affinity SYSTEM = choose(System.getProperty("os.name", ""), AffinityHolder.class.getModule());

    /** The JVM option that lets every module call restricted methods, and the value that does it silently. */
    private static final String ILLEGAL_NATIVE_ACCESS = "--illegal-native-access";

    private AffinityHolder() {}

    static Affinity choose(String osName, Module module) {
        if (!osName.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return new NoAffinity("CPU pinning is supported on Linux only; this is " + osName);
        }
        if (!module.isNativeAccessEnabled() && !illegalNativeAccessAllowed()) {
            return new NoAffinity(nativeAccessAdvice(module));
        }
        try {
            return LinuxAffinity.link(Path.of("/sys/devices/system/cpu/possible"));
        } catch (RuntimeException | LinkageError unavailable) {
            return new NoAffinity("CPU pinning is unavailable: could not link sched_getaffinity, "
                    + "sched_setaffinity and sched_getcpu: " + unavailable);
        }
    }

    /**
     * True when the JVM runs with {@code --illegal-native-access=allow}: then every module may call
     * restricted methods, and the JDK prints nothing when one does, though
     * {@link Module#isNativeAccessEnabled()} stays false. No API says so; the JVM's own options do.
     * They are read only where the option's name appears in the command line or in
     * {@code JDK_JAVA_OPTIONS} (both cheap to read), since reading them costs the management
     * classes' start-up, tens of milliseconds, which a pool without the option should not pay.
     */
    static boolean illegalNativeAccessAllowed() {
        String environment = System.getenv("JDK_JAVA_OPTIONS");
        boolean named = environment != null && environment.contains(ILLEGAL_NATIVE_ACCESS)
                || ProcessHandle.current().info().arguments()
                        .map(arguments -> String.join(" ", arguments).contains(ILLEGAL_NATIVE_ACCESS)).orElse(false);
        return named && "allow".equals(lastValue(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    }

    /** The value the last {@code --illegal-native-access} among the JVM's {@code options} gives; null if none does. */
    static String lastValue(List<String> options) {
        String value = null;
        for (int i = 0; i < options.size(); i++) {
            String option = options.get(i);
            if (option.startsWith(ILLEGAL_NATIVE_ACCESS + "=")) {
                value = option.substring(ILLEGAL_NATIVE_ACCESS.length() + 1);
            } else if (option.equals(ILLEGAL_NATIVE_ACCESS) && i + 1 < options.size()) {
                value = options.get(++i);
            }
        }
        return value;
    }

    /** Names the module and the exact JVM option (or manifest entry) that lets it call native code. */
    static String nativeAccessAdvice(Module module) {
        if (module.isNamed()) {
            return "CPU pinning is off: native access is not enabled for module " + module.getName()
                    + "; run with --enable-native-access=" + module.getName();
        }
        return "CPU pinning is off: native access is not enabled for the class path (the unnamed module); "
                + "run with --enable-native-access=ALL-UNNAMED, or add 'Enable-Native-Access: ALL-UNNAMED' "
                + "to the manifest of an executable jar";
    }
}
