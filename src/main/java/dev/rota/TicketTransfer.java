package dev.rota;

import dev.rota.core.Dispatcher;
import dev.rota.core.Engine;
import dev.rota.core.Group;
import dev.rota.core.WorkerContext;
import java.util.concurrent.ForkJoinPool;
import java.util.function.BooleanSupplier;

/**
 * Waits of pool threads on work of a group: the waiting task's group lends its tickets to the group
 * waited on (ticket transfer), and the wait is a managed block, so that a spare thread keeps the
 * core busy and the waiting worker's slice is not charged for the time it waits. Where no spare can
 * stand in, a wait for one queued task runs that task on the waiting thread instead, if nobody has
 * started it.
 */
final class TicketTransfer {
    private TicketTransfer() {}

    /**
     * Blocks in {@code blocker} until it is releasable. From a thread running a task of a pool,
     * lends that task's group's tickets to {@code target} (when it is another group of the same pool)
     * and blocks as {@link RotaPool#managedBlock} does; from any other thread just blocks.
     */
    static void await(Group target, ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        await(target, blocker, null, null);
    }

    /**
     * As {@link #await(Group, ForkJoinPool.ManagedBlocker)}, for a wait until {@code awaited}, a task
     * queued in {@code target}, is done. Where no spare can stand in for the waiting thread (the
     * bound on spares), the thread runs {@code awaited} itself if nobody has started it
     * ({@code claim} decides, see {@link WorkerContext#runAwaitedTask}), as a ForkJoinPool's join
     * runs the task it waits for, and waits as before only if it could not: otherwise, once every
     * worker and spare waits so, the tasks they wait for would stay queued for ever. The waiting
     * task's group then pays for that run, as its tickets would have been lent for the wait.
     */
    static void await(Group target, ForkJoinPool.ManagedBlocker blocker, Runnable awaited, BooleanSupplier claim)
            throws InterruptedException {
        Group waiter = WorkerContext.currentGroup();
        if (waiter == null) {
            while (!blocker.isReleasable() && !blocker.block()) {
                // block() returned false: not done yet
            }
            return;
        }
        Dispatcher dispatcher = waiter.dispatcher();
        if (awaited != null && target != null && target.dispatcher() == dispatcher) {
            if (lendWhileBlocking(dispatcher, waiter, target, blocker, true)
                    || (WorkerContext.runAwaitedTask(target, awaited, claim) && blocker.isReleasable())) {
                return;
            }
        }
        lendWhileBlocking(dispatcher, waiter, target, blocker, false);
    }

    /**
     * Lends {@code waiter}'s tickets to {@code target} (null: to nobody) while blocking in
     * {@code blocker}; with {@code onlyWithSpare}, only while a spare stands in, and returns false
     * at once, lending nothing, where none can ({@link Engine#blockWithSpare}).
     */
    private static boolean lendWhileBlocking(Dispatcher dispatcher, Group waiter, Group target,
            ForkJoinPool.ManagedBlocker blocker, boolean onlyWithSpare) throws InterruptedException {
        Dispatcher.Wait wait = target == null ? null : dispatcher.beginWait(waiter, target);
        try {
            if (onlyWithSpare) {
                return Engine.blockWithSpare(blocker);
            }
            Engine.managedBlock(blocker);
            return true;
        } finally {
            if (wait != null) {
                dispatcher.endWait(wait);
            }
        }
    }

    /** True when the calling thread runs a task of a group other than {@code target}, in target's pool. */
    static boolean waitsAcrossGroups(Group target) {
        Group waiter = WorkerContext.currentGroup();
        return target != null && waiter != null && waiter != target && waiter.dispatcher() == target.dispatcher();
    }
}
