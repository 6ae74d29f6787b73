package dev.rota;

import dev.rota.core.Group;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a task submitted to a {@link TaskGroup}. A task running in the pool that waits on
 * it lends its own group's tickets to this task's group until the wait ends, and waits as a managed
 * block (see {@link TicketTransfer}); any other thread waits as on a {@link FutureTask}.
 */
final class GroupFuture<V> extends FutureTask<V> {
    private final Group group;

    GroupFuture(Callable<V> callable, Group group) {
        super(callable);
        this.group = group;
    }

    GroupFuture(Runnable runnable, V result, Group group) {
        super(runnable, result);
        this.group = group;
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            TicketTransfer.await(group, new Waiter(false, 0));
        }
        return super.get();
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!isDone()) {
            TicketTransfer.await(group, new Waiter(true, deadline));
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
                    GroupFuture.super.get();
                } else {
                    long left = deadline - System.nanoTime();
                    if (left > 0) {
                        GroupFuture.super.get(left, TimeUnit.NANOSECONDS);
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
