package dev.rota.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Generous liveness bounds for the contract tests. They only turn a hang into a failure with a
 * message; no test asserts how fast anything happens.
 */
public final class Liveness {

    /** How long any expected event may take before the test calls it lost. */
    public static final long SECONDS = 30;

    private Liveness() {
    }

    public static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertTrue(latch.await(SECONDS, TimeUnit.SECONDS),
                what + ": still waiting for " + latch.getCount() + " after " + SECONDS + " s");
    }

    public static void awaitTermination(ExecutorService pool) throws InterruptedException {
        assertTrue(pool.awaitTermination(SECONDS, TimeUnit.SECONDS),
                pool + " did not terminate within " + SECONDS + " s");
    }

    /** Polls until the condition holds; for states no latch announces (a thread that went idle). */
    public static void awaitCondition(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadline < 0, what + ": not reached after " + SECONDS + " s");
            Thread.sleep(1);
        }
    }
}
