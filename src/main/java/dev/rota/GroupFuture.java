package dev.rota;

import dev.rota.core.Group;
import dev.rota.schedule.BlockingFutureTask;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.FutureTask;

/**
 * The future of a task submitted to a {@link TaskGroup}. A task running in the pool that waits on
 * it lends its own group's tickets to this task's group until the wait ends, and waits as a managed
 * block (see {@link TicketTransfer}); any other thread waits as on a {@link FutureTask}.
 */
final class GroupFuture<V> extends BlockingFutureTask<V> {
    private final Group group;
    /** The RotaTask this future runs ({@code submit(task, result)}), bound to its group on submission; else null. */
    private final RotaTask<?> rotaTask;

    GroupFuture(Callable<V> callable, Group group) {
        super(callable);
        this.group = group;
        this.rotaTask = null;
    }

    GroupFuture(Runnable runnable, V result, Group group) {
        super(runnable, result);
        this.group = group;
        this.rotaTask = runnable instanceof RotaTask<?> task ? task : null;
    }

    /** The RotaTask this future runs, or null when it runs another kind of task. */
    RotaTask<?> rotaTask() {
        return rotaTask;
    }

    /** On a pool thread: a managed block that lends the waiter's group's tickets to this task's group. */
    @Override
    protected void block(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        TicketTransfer.await(group, blocker);
    }
}
