package dev.rota.affinity;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Chooses the platform's {@link Affinity} once, when first used: {@link LinuxAffinity} on Linux when
 * this module may call native code and the C library has the functions, else a {@link NoAffinity}
 * whose reason says what is missing and how to enable it.
 *
 * <p>Native access is checked before any restricted FFM method is touched, so that the JDK never
 * prints its "restricted method" warning on the user's console.
 */
final class AffinityHolder {
    static final Affinity SYSTEM = choose(System.getProperty("os.name", ""), AffinityHolder.class.getModule());

    private AffinityHolder() {}

    static Affinity choose(String osName, Module module) {
        if (!osName.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return new NoAffinity("CPU pinning is supported on Linux only; this is " + osName);
        }
        if (!module.isNativeAccessEnabled()) {
            return new NoAffinity(nativeAccessAdvice(module));
        }
        try {
            return LinuxAffinity.link(Path.of("/sys/devices/system/cpu/possible"));
        } catch (RuntimeException | LinkageError unavailable) {
            return new NoAffinity("CPU pinning is unavailable: could not link sched_getaffinity, "
                    + "sched_setaffinity and sched_getcpu: " + unavailable);
        }
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
