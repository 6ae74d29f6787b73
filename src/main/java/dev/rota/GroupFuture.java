package dev.rota;

import dev.rota.core.Group;
import dev.rota.schedule.FutureBlocker;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
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
            TicketTransfer.await(group, new FutureBlocker(this, this::superAwait, false, 0L));
        }
        return super.get();
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        Long deadline = FutureBlocker.deadlineAfter(unit.toNanos(timeout));
        if (deadline == null) {
            return super.get(0L, TimeUnit.NANOSECONDS);   // no time left: only looks
        }
        if (!isDone()) {
            TicketTransfer.await(group, new FutureBlocker(this, this::superAwait, true, deadline));
        }
        return super.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** FutureTask's own wait, under the managed block. */
    private void superAwait(boolean timed, long nanos) throws InterruptedException, ExecutionException, TimeoutException {
        if (timed) {
            super.get(nanos, TimeUnit.NANOSECONDS);
        } else {
            super.get();
        }
    }
}
