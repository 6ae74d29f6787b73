package dev.rota.affinity;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class AffinityHolderTest {

    @Test
    void shouldNotPinOffLinuxNamingThePlatform() {
        Affinity affinity = AffinityHolder.choose("Mac OS X", AffinityHolder.class.getModule());

        assertFalse(affinity.canPin());
        assertTrue(affinity.unavailableReason().contains("Linux only; this is Mac OS X"), affinity.unavailableReason());
    }

    @Test
    void shouldTellHowToEnableNativeAccess() {
        String unnamed = AffinityHolder.nativeAccessAdvice(AffinityHolder.class.getModule());
        String named = AffinityHolder.nativeAccessAdvice(String.class.getModule());

        assertTrue(unnamed.contains("--enable-native-access=ALL-UNNAMED"), unnamed);
        assertTrue(named.contains("module java.base; run with --enable-native-access=java.base"), named);
    }

    @Test
    void shouldPrintNoWarningWithoutNativeAccess() throws Exception {
        assumeLinux();
        ProbeRun run = probe(List.of());

        assertEquals("", run.stderr(), "nothing on stderr");
        assertTrue(run.stdout().contains("canPin=false"), run.stdout());
        assertTrue(run.stdout().contains("pinned=false"), run.stdout());
        assertTrue(run.stdout().contains("run with --enable-native-access=ALL-UNNAMED"), run.stdout());
        assertFalse(run.stdout().contains("cpus=0"), run.stdout());
    }

    @Test
    void shouldPinWithNativeAccessAndPrintNoWarning() throws Exception {
        assumeLinux();
        ProbeRun run = probe(List.of("--enable-native-access=ALL-UNNAMED"));

        assertEquals("", run.stderr(), "nothing on stderr");
        assertTrue(run.stdout().contains("canPin=true"), run.stdout());
        assertTrue(run.stdout().contains("pinned=true"), run.stdout());
    }

    @Test
    void shouldPinWhereTheJvmAllowsNativeAccessToEveryModuleAndPrintNoWarning() throws Exception {
        assumeLinux();
        ProbeRun run = probe(List.of("--illegal-native-access=allow"));

        assertEquals("", run.stderr(), "nothing on stderr");
        assertTrue(run.stdout().contains("canPin=true"), run.stdout());
        assertTrue(run.stdout().contains("pinned=true"), run.stdout());
    }

    @Test
    void shouldNotPinWhereTheJvmOnlyWarnsOfNativeAccess() throws Exception {
        assumeLinux();
        ProbeRun run = probe(List.of("--illegal-native-access=warn"));

        assertEquals("", run.stderr(), "nothing on stderr");
        assertTrue(run.stdout().contains("canPin=false"), run.stdout());
    }

    @Test
    void shouldTakeTheLastIllegalNativeAccessOptionInEitherForm() {
        assertEquals("allow", AffinityHolder.lastValue(List.of("-Xmx1g", "--illegal-native-access=allow")));
        assertEquals("deny", AffinityHolder.lastValue(List.of("--illegal-native-access=allow", "--illegal-native-access", "deny")));
        assertEquals(null, AffinityHolder.lastValue(List.of("-Xmx1g", "--enable-native-access=ALL-UNNAMED")));
    }

    private record ProbeRun(String stdout, String stderr) {}

    /** Runs {@link NativeAccessProbe} in a child JVM on the main and test classes only. */
    private static ProbeRun probe(List<String> jvmOptions) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(location(AffinityHolder.class) + File.pathSeparator + location(NativeAccessProbe.class));
        command.add(NativeAccessProbe.class.getName());
        Path out = Files.createTempFile("probe", ".out");
        Path err = Files.createTempFile("probe", ".err");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the probe JVM did not finish in 60 s");
            }
            ProbeRun run = new ProbeRun(Files.readString(out), Files.readString(err));
            assertEquals(0, process.exitValue(), run.toString());
            return run;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static void assumeLinux() {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux"), "needs Linux");
    }
}
