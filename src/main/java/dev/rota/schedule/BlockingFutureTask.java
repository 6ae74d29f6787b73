package dev.rota.schedule;

import dev.rota.core.InterruptOnCancel;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
    /** {@link #owedInterrupt}: no cancel(true) owes this task's thread an interrupt. */
    private static final int NOTHING_OWED = 0;
    /** {@link #owedInterrupt}: a cancel(true) owes this task's thread an interrupt that nobody has taken yet. */
    private static final int OWED = 1;
    /** {@link #owedInterrupt}: a cancel(true)'s interrupt was taken, and so sent to the thread running this task. */
    private static final int TAKEN = 2;
    private static final VarHandle OWED_INTERRUPT;

    static {
        try {
            OWED_INTERRUPT = MethodHandles.lookup().findVarHandle(BlockingFutureTask.class, "owedInterrupt", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * {@link #OWED} from a {@code cancel(true)} until one caller of {@link #takeOwedInterrupt} takes
     * it (a CAS to {@link #TAKEN}): see {@link InterruptOnCancel}. Set once at most
     * by a task that {@link #interruptsItsRunner}: only the cancel that cancelled it sets it.
     */
    private volatile int owedInterrupt;

    protected BlockingFutureTask(Callable<V> callable) {
        super(callable);
    }

    protected BlockingFutureTask(Runnable runnable, V result) {
        super(runnable, result);
    }

    /**
     * As FutureTask's, and with {@code mayInterruptIfRunning} records that an interrupt is owed
     * ({@link InterruptOnCancel}), so that a worker running another task inside this one's join
     * (which clears the interrupts meant for that task) sets it for this one once it is back in
     * this one's code.
     *
     * <p>A task that {@link #interruptsItsRunner} records the debt only once its cancel has won, and
     * before it looks for the runner, so a cancel that lost owes nothing. FutureTask's own cancel
     * interrupts inside the call, whatever the thread runs, and a nested task's end may read the debt
     * right after clearing that interrupt: so the debt is recorded first, while the task is not done.
     * Such a task may be interrupted once more than asked, by a nested task that ends later: after
     * FutureTask's interrupt reached its own code, or after a cancel(true) that lost to a
     * cancel(false) (taking the debt back there could erase the debt of a cancel(true) that won).
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!mayInterruptIfRunning) {
            return super.cancel(false);
        }
        if (!interruptsItsRunner()) {
            if (!isDone()) {
                owedInterrupt = OWED;                    // before FutureTask's interrupt: a nested task's end reads it after
            }
            return super.cancel(true);
        }
        boolean cancelled = super.cancel(false);
        if (cancelled) {
            owedInterrupt = OWED;                        // before the runner is looked for: see interruptRunner
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
     * For {@code cancel(true)}, once this task is cancelled and owes its interrupt, when
     * {@link #interruptsItsRunner}: interrupts the thread running it, if any, before that run
     * returns, by taking the debt ({@link #takeOwedInterrupt}) when it finds the thread in this
     * task's own code. Nothing here.
     */
    protected void interruptRunner() {
    }

    @Override
    public final boolean takeOwedInterrupt() {
        return owedInterrupt == OWED && OWED_INTERRUPT.compareAndSet(this, OWED, TAKEN);
    }

    /** True once the interrupt a {@code cancel(true)} of this task owed has been taken (and so sent). */
    protected final boolean owedInterruptTaken() {
        return owedInterrupt == TAKEN;
    }

    /**
     * Waits in {@code blocker} until it is releasable; called by {@code get} while not done.
     * {@code timed}: the wait ends at the caller's deadline at the latest (a timed {@code get}).
     */
    protected abstract void block(ForkJoinPool.ManagedBlocker blocker, boolean timed) throws InterruptedException;

    @Override
    public final V get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            if (Thread.interrupted()) {
                // As FutureTask's: not done on an interrupted thread. block() might not wait at all
                // (a pool thread with no spare runs the awaited task in place) and so never see it.
                throw new InterruptedException();
            }
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
            if (Thread.interrupted()) {
                throw new InterruptedException();        // as FutureTask's, and as the untimed get
            }
            block(new Waiter(true, deadline), true);
        }
        return super.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * A blocker that waits for this task to be done, as {@code get} does, but no later than
     * {@code deadline} ({@code System.nanoTime()}): for a wait that wants to look again meanwhile.
     */
    protected final ForkJoinPool.ManagedBlocker waiterUntil(long deadline) {
        return new Waiter(true, deadline);
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
