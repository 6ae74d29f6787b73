package dev.rota.schedule;

import dev.rota.core.InterruptOnCancel;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link FutureTask} whose {@code get} waits through {@link #block}, which a pool's future makes a
 * managed block on the pool's own threads (with ticket transfer for a group's future), so that a
 * task waiting for the pool's work does not keep that work from running. Outcomes are reported as FutureTask reports
 * them. A timed {@code get} with no time left (a timeout of zero or less, however negative) only
 * looks, as FutureTask's does: a deadline of now plus a huge negative timeout would overflow.
 *
 * @param <V> the result type
 */
public abstract class BlockingFutureTask<V> extends FutureTask<V> implements InterruptOnCancel {
    /** Set by cancel(true) before the runner is interrupted (see {@link InterruptOnCancel}): a nested run that kept the interrupt away reads it. */
    private volatile boolean interruptRequested;

    protected BlockingFutureTask(Callable<V> callable) {
        super(callable);
    }

    protected BlockingFutureTask(Runnable runnable, V result) {
        super(runnable, result);
    }

    /**
     * As FutureTask's, and with {@code mayInterruptIfRunning} records first that an interrupt was
     * asked for, so that a worker running another task inside this one's join (which clears the
     * interrupts meant for that task) sets it again for this one ({@link InterruptOnCancel}).
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (mayInterruptIfRunning && !isDone()) {        // a cancel of a done task interrupts nothing
            interruptRequested = true;                   // before the interrupt: a join's help reads it after
        }
        if (!mayInterruptIfRunning || !interruptsItsRunner()) {
            return super.cancel(mayInterruptIfRunning);
        }
        boolean cancelled = super.cancel(false);
        if (cancelled) {
            interruptRunner();
        }
        return cancelled;
    }

    /**
     * True when this task interrupts the thread that runs it itself, on {@code cancel(true)}
     * ({@link #interruptRunner}), rather than through FutureTask; false here.
     */
    protected boolean interruptsItsRunner() {
        return false;
    }

    /**
     * For {@code cancel(true)}, once this task is cancelled, when {@link #interruptsItsRunner}: interrupts
     * the thread running it, if any, before that run returns. Nothing here.
     */
    protected void interruptRunner() {
    }

    @Override
    public final boolean interruptRequested() {
        return interruptRequested;
    }

    /**
     * Waits in {@code blocker} until it is releasable; called by {@code get} while not done.
     * {@code timed}: the wait ends at the caller's deadline at the latest (a timed {@code get}).
     */
    protected abstract void block(ForkJoinPool.ManagedBlocker blocker, boolean timed) throws InterruptedException;

    @Override
    public final V get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            block(new Waiter(false, 0L), false);
        }
        return super.get();
    }

    @Override
    public final V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        long nanos = unit.toNanos(timeout);
        if (nanos <= 0) {
            return super.get(0L, TimeUnit.NANOSECONDS);  // no time left: only looks
        }
        long deadline = System.nanoTime() + nanos;
        if (!isDone()) {
            block(new Waiter(true, deadline), true);
        }
        return super.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Waits for completion (or the deadline) through FutureTask's own wait, ignoring the outcome. */
    private final class Waiter implements ForkJoinPool.ManagedBlocker {
        private final boolean timed;
        private final long deadline;

        Waiter(boolean timed, long deadline) {
            this.timed = timed;
            this.deadline = deadline;
        }

        @Override
        public boolean block() throws InterruptedException {
            try {
                if (!timed) {
                    BlockingFutureTask.super.get();
                } else {
                    long left = deadline - System.nanoTime();
                    if (left > 0) {
                        BlockingFutureTask.super.get(left, TimeUnit.NANOSECONDS);
                    }
                }
            } catch (ExecutionException | CancellationException | TimeoutException outcome) {
                // the caller's own get() reports it
            }
            return true;
        }

        @Override
        public boolean isReleasable() {
            return isDone() || (timed && System.nanoTime() - deadline >= 0);
        }
    }
}
