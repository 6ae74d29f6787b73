package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A pool left idle uses almost no CPU, and a pool in normal use prints nothing, with or without
 * native access enabled. Each case runs {@link IdlePoolProbe} in a fresh JVM so that the process
 * CPU time is the pool's alone.
 */
class IdlePoolTest {

    record Run(int exit, String stdout, String stderr) {}

    private static Run probe(boolean nativeAccess) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (nativeAccess) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(IdlePoolProbe.class.getName());
        Process process = new ProcessBuilder(command).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
        return new Run(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static double idleFraction(Run run) {
        for (String line : run.stdout().split("\\R")) {
            if (line.startsWith("idle-cpu-fraction=")) {
                return Double.parseDouble(line.substring("idle-cpu-fraction=".length()));
            }
        }
        throw new AssertionError("no figure in probe output: " + run);
    }

    @Test
    void idlePoolUsesUnderFivePercentOfOneCore() throws Exception {
        Run run = probe(true);
        assertEquals(0, run.exit(), run.toString());
        double fraction = idleFraction(run);
        assertTrue(fraction < 0.05, "idle pool used " + fraction + " of one core");
    }

    @Test
    void normalUsePrintsNoWarningWithNativeAccess() throws Exception {
        Run run = probe(true);
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.stderr());
    }

    @Test
    void normalUsePrintsNoWarningWithoutNativeAccess() throws Exception {
        Run run = probe(false);
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.stderr());
    }
}
