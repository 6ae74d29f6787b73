package dev.rota.bench.groups;

import org.openjdk.jmh.infra.Blackhole;

/**
 * CPU-bound work of a chosen length, for the tasks of the group benchmarks: a fixed number of
 * {@link Blackhole#consumeCPU} tokens, calibrated once per JVM into nanoseconds.
 *
 * <p>The work is an amount of computation, not a wait on the clock: a task that is preempted by the
 * operating system takes longer in wall time but does the same work, so every pool in a run is given
 * the same work to do. {@code consumeCPU} is JMH's own busy loop, which the JIT cannot remove.
 */
final class Work {
    /*
     * Calibration: warm the loop up (so that it is compiled), then time CALIBRATION_TOKENS tokens
     * CALIBRATION_ROUNDS times and keep the fastest round. The fastest round is the one least
     * disturbed by other threads of this JVM and other processes, which on a shared 2-vCPU machine
     * is the only estimate of the loop's own speed that does not drift with the load.
     */
    private static final long CALIBRATION_TOKENS = 200_000;
    private static final int CALIBRATION_ROUNDS = 15;

    /** Nanoseconds per {@code consumeCPU} token on this machine, measured when the class loads. */
    static final double NANOS_PER_TOKEN = calibrate();

    private Work() {}

    /** Tokens that take about {@code nanos} of CPU time. */
    static long tokensFor(long nanos) {
        return Math.max(1, Math.round(nanos / NANOS_PER_TOKEN));
    }

    /** Does {@code tokens} tokens of work. */
    static void run(long tokens) {
        Blackhole.consumeCPU(tokens);
    }

    private static double calibrate() {
        for (int i = 0; i < 20_000; i++) {
            Blackhole.consumeCPU(1_000);
        }
        long best = Long.MAX_VALUE;
        for (int round = 0; round < CALIBRATION_ROUNDS; round++) {
            long start = System.nanoTime();
            Blackhole.consumeCPU(CALIBRATION_TOKENS);
            best = Math.min(best, System.nanoTime() - start);
        }
        return (double) best / CALIBRATION_TOKENS;
    }
}
