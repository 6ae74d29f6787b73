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

    /**
     * Cancels this future and, when it runs a RotaTask that has not started, that task too: once
     * this future is cancelled the task will not run through it, and a join of the task would
     * otherwise wait for a run that never comes. A task already started elsewhere (an invoke(), or
     * this future's own run under way) is left to complete. A run of this future that got past its
     * own state check meets the cancel at the task's started claim (a CAS): either that run claims it
     * and completes the task, or {@code cancelUnstarted} does and the run returns at once.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled && rotaTask != null) {
            rotaTask.cancelUnstarted();
        }
        return cancelled;
    }

    /**
     * For a shutdownNow that drained {@code task} from a queue: cancels it where a waiter would
     * otherwise wait for ever (a RotaTask, or this future of one) and says whether it never started,
     * so that it is returned. A RotaTask done already, or started by a run elsewhere, is not.
     */
    static boolean settleDrained(Runnable task) {
        if (task instanceof RotaTask<?> forked) {
            return forked.cancelUnstarted();
        }
        if (task instanceof GroupFuture<?> future && future.rotaTask != null) {
            return future.cancel(false);
        }
        return true;
    }

    /** On a pool thread: a managed block that lends the waiter's group's tickets to this task's group. */
    @Override
    protected void block(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        TicketTransfer.await(group, blocker);
    }
}
