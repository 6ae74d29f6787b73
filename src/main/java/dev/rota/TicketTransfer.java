package dev.rota;

import dev.rota.core.Dispatcher;
import dev.rota.core.Engine;
import dev.rota.core.Group;
import dev.rota.core.WorkerContext;
import java.util.concurrent.ForkJoinPool;

/**
 * Waits of pool threads on work of a group: the waiting task's group lends its tickets to the group
 * waited on (ticket transfer), and the wait is a managed block, so that a spare thread keeps the
 * core busy and the waiting worker's slice is not charged for the time it waits.
 */
final class TicketTransfer {
    private TicketTransfer() {}

    /**
     * Blocks in {@code blocker} until it is releasable. From a thread running a task of a pool,
     * lends that task's group's tickets to {@code target} (when it is another group of the same pool)
     * and blocks as {@link RotaPool#managedBlock} does; from any other thread just blocks.
     */
    static void await(Group target, ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        Group waiter = WorkerContext.currentGroup();
        if (waiter == null) {
            while (!blocker.isReleasable() && !blocker.block()) {
                // block() returned false: not done yet
            }
            return;
        }
        Dispatcher dispatcher = waiter.dispatcher();
        Dispatcher.Wait wait = target == null ? null : dispatcher.beginWait(waiter, target);
        try {
            Engine.managedBlock(blocker);
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
