package dev.rota.schedule;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

/**
 * A managed blocker that waits for a future to complete, or for a deadline, through the future's
 * own wait: for a {@link java.util.concurrent.FutureTask} subclass whose {@code get} is overridden
 * to wait as a managed block, the superclass's {@code get}. It ignores the outcome; the caller's
 * own {@code get} reports it afterwards.
 */
public final class FutureBlocker implements ForkJoinPool.ManagedBlocker {
    /** The future's underlying wait: untimed when {@code timed} is false, else for at most {@code nanos}. */
    @FunctionalInterface
    public interface Await {
        void await(boolean timed, long nanos) throws InterruptedException, ExecutionException, TimeoutException;
    }

    private final Future<?> future;
    private final Await await;
    private final boolean timed;
    private final long deadline;

    /** Waits until {@code future} is done, or with {@code timed} until {@code deadline} (a nanoTime reading). */
    public FutureBlocker(Future<?> future, Await await, boolean timed, long deadline) {
        this.future = future;
        this.await = await;
        this.timed = timed;
        this.deadline = deadline;
    }

    /**
     * The deadline {@code nanos} from now, or null when there is no time left: a timed get then
     * only looks, as {@code FutureTask.get} does for a timeout of zero or less (and a difference
     * of nanoTime readings would overflow for a huge negative one).
     */
    public static Long deadlineAfter(long nanos) {
        return nanos <= 0 ? null : System.nanoTime() + nanos;
    }

    @Override
    public boolean block() throws InterruptedException {
        try {
            if (!timed) {
                await.await(false, 0L);
            } else {
                long left = deadline - System.nanoTime();
                if (left > 0) {
                    await.await(true, left);
                }
            }
        } catch (ExecutionException | CancellationException | TimeoutException outcome) {
            // the caller's own get() reports it
        }
        return true;
    }

    @Override
    public boolean isReleasable() {
        return future.isDone() || (timed && System.nanoTime() - deadline >= 0);
    }
}
