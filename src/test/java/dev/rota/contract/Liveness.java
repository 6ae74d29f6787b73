package dev.rota.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Generous liveness bounds for the contract tests. They only turn a hang into a failure with a
 * message; no test asserts how fast anything happens.
 */
public final class Liveness {

    /** How long any expected event may take before the test calls it lost. */
    public static final long SECONDS = 30;
    /** Frames shown per thread in {@link #threadDump()}. */
    private static final int DUMP_FRAMES = 12;

    private Liveness() {
    }

    public static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertTrue(latch.await(SECONDS, TimeUnit.SECONDS),
                what + ": still waiting for " + latch.getCount() + " after " + SECONDS + " s");
    }

    /**
     * For a task that holds its worker until {@code latch} opens: waits without a bound, and an
     * interrupt (the pool's shutdownNow) ends the wait with the interrupt status set again.
     */
    public static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * For a task that must keep waiting through interrupts (a shutdownNow's) until {@code latch}
     * opens: sets the interrupt status again once it has, and fails after {@link #SECONDS}.
     */
    public static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                if (latch.await(SECONDS, TimeUnit.SECONDS)) {
                    break;
                }
                throw new AssertionError("never released");
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    public static void awaitTermination(ExecutorService pool) throws InterruptedException {
        if (!pool.awaitTermination(SECONDS, TimeUnit.SECONDS)) {
            fail(pool + " did not terminate within " + SECONDS + " s; threads:\n" + threadDump());
        }
    }

    /**
     * Every live thread's name, state and top frames: for the message of a liveness failure, so that
     * a hang seen once on a CI machine says where each thread was.
     */
    public static String threadDump() {
        return threadDump(frames -> true, DUMP_FRAMES);
    }

    /**
     * As {@link #threadDump()}, for the threads whose stack {@code which} accepts, with up to
     * {@code maxFrames} frames each: for a hang whose cause lies deep in a stack.
     */
    public static String threadDump(Predicate<StackTraceElement[]> which, int maxFrames) {
        StringBuilder dump = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> entry : Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] frames = entry.getValue();
            if (!which.test(frames)) {
                continue;
            }
            Thread thread = entry.getKey();
            dump.append('"').append(thread.getName()).append("\" ").append(thread.getState())
                    .append(thread.isDaemon() ? " daemon" : "").append('\n');
            for (int i = 0; i < Math.min(frames.length, maxFrames); i++) {
                dump.append("    at ").append(frames[i]).append('\n');
            }
        }
        return dump.toString();
    }

    /**
     * Runs {@code call} on a daemon thread and fails unless it returns within the liveness bound: for
     * calls that must never block, where a bug could spin (and so ignore interrupts). A call that
     * hangs is left running on its daemon thread; the failure names it.
     */
    public static <T> T within(String what, Callable<T> call) throws InterruptedException {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread caller = Thread.ofPlatform().daemon().name("bounded: " + what).start(() -> {
            try {
                result.set(call.call());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        caller.join(TimeUnit.SECONDS.toMillis(SECONDS));
        assertFalse(caller.isAlive(), what + " did not return within " + SECONDS + " s");
        if (failure.get() != null) {
            throw new AssertionError(what + " threw", failure.get());
        }
        return result.get();
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
