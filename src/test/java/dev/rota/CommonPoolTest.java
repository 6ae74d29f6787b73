package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The common pool's first use, and a JVM left with pools never shut down. Each case runs
 * {@link CommonPoolProbe} in a fresh JVM, where the common pool does not exist yet.
 */
class CommonPoolTest {

    record Run(int exit, String stdout, String stderr) {
        /** The {@code key=value} lines the probe printed. */
        Map<String, String> values() {
            Map<String, String> values = new HashMap<>();
            for (String line : stdout.split("\\R")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    values.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            return values;
        }
    }

    /** Runs the probe in {@code mode}; a probe still running after {@code seconds} is killed and fails the test. */
    private static Run probe(String mode, int seconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("common-pool-probe", ".out");
        Path err = Files.createTempFile("common-pool-probe", ".err");
        try {
            Process process = new ProcessBuilder(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp", System.getProperty("java.class.path"),
                    CommonPoolProbe.class.getName(), mode))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean exited = process.waitFor(seconds, TimeUnit.SECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Run run = new Run(exited ? process.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
            assertTrue(exited, "the probe's JVM did not exit within " + seconds + " s: " + run);
            return run;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Many threads asking for the common pool at once make one pool, with one set of workers. */
    @Test
    void aRaceToTheFirstUseMakesOnePoolWithOneSetOfWorkers() throws Exception {
        Run run = probe("race", 60);
        assertEquals(0, run.exit(), run.toString());
        Map<String, String> values = run.values();
        assertEquals("1", values.get("pools"), run.toString());
        assertEquals(values.get("workers"), values.get("worker-threads"), run.toString());
        assertEquals("42", values.get("ran"), run.toString());
    }

    /**
     * The common pool first used on a thread pinned to one CPU (a worker of another pool, say) still
     * has a worker per CPU of the process, as it would have had from any other thread: it is made
     * once, for the JVM's whole life.
     */
    @Test
    void theCommonPoolFirstUsedOnAPinnedThreadHasAWorkerPerCpu() throws Exception {
        Run run = probe("pinned", 60);
        assertEquals(0, run.exit(), run.toString());
        Map<String, String> values = run.values();
        assumeTrue(Boolean.parseBoolean(values.get("pinned")), "needs pinning: " + run);
        assumeTrue(Integer.parseInt(values.get("expected-workers")) >= 2, "needs two CPUs: " + run);
        assertEquals(values.get("expected-workers"), values.get("workers"), run.toString());
    }

    /**
     * Daemon workers never keep the JVM alive: a program that returns from main with a pool never
     * shut down (a delayed task waiting in it) and the common pool in use exits.
     */
    @Test
    void aJvmWithPoolsNeverShutDownExitsWhenMainReturns() throws Exception {
        Run run = probe("exit", 60);
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.stdout().contains("returning"), run.toString());
    }

    /**
     * A first use of the common pool that fails (an Error while it is made: no native thread could
     * be started, or, as here, the stack ran out) fails that call only: a later use makes the pool,
     * as ForkJoinPool's common pool copes with a worker that cannot be started. A failed first use
     * must not leave commonPool(), and with it every fork() outside a pool, failing for good.
     */
    @Test
    void aFailedFirstUseOfTheCommonPoolDoesNotBreakItForGood() throws Exception {
        Run run = probe("transient", 60);
        assertEquals(0, run.exit(), run.toString());
        assertEquals("true", run.values().get("failed-while-building"), "a first use failed: " + run);
        assertEquals("42", run.values().get("later"), run.toString());
    }
}
