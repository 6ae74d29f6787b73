package dev.rota;

import dev.rota.core.Dispatcher;
import dev.rota.core.Engine;
import dev.rota.core.Group;
import dev.rota.core.WorkerContext;
import java.util.ArrayList;
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
    /*
     * A run of the awaited task on the waiting thread is charged to the waiter's group and lends
     * nothing while it runs. A wait inside that run (the awaited task waits on a third group) pauses
     * the waiter's slice, the one the thread runs in, so its group stops competing: for as long as
     * that inner wait blocks, the waiter waits again, and lends to the group it runs a task of, as
     * it would have with a spare standing in. So tickets follow the chain of waits whichever thread
     * runs each link. AWAITED_RUNS holds the runs in progress on this thread, outermost first, as
     * (waiter, target) pairs; each blocking wait lends once for each of them, outermost first, then
     * for itself (a loan among them that would close a cycle is not made, as ever).
     */

    /** Made on a thread's first run of an awaited task, so that a thread that only waits holds none. */
    private static final ThreadLocal<ArrayList<Group[]>> AWAITED_RUNS = new ThreadLocal<>();

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
                    || (runAwaitedTask(waiter, target, awaited, claim) && blocker.isReleasable())) {
                return;
            }
        }
        lendWhileBlocking(dispatcher, waiter, target, blocker, false);
    }

    /** {@link WorkerContext#runAwaitedTask}, with the run entered in {@link #AWAITED_RUNS} while it lasts. */
    private static boolean runAwaitedTask(Group waiter, Group target, Runnable awaited, BooleanSupplier claim) {
        ArrayList<Group[]> runs = AWAITED_RUNS.get();
        if (runs == null) {
            AWAITED_RUNS.set(runs = new ArrayList<>());
        }
        runs.add(new Group[] {waiter, target});
        try {
            return WorkerContext.runAwaitedTask(target, awaited, claim);
        } finally {
            runs.removeLast();
        }
    }

    /**
     * Lends {@code waiter}'s tickets to {@code target} (null: to nobody) while blocking in
     * {@code blocker}, and each enclosing awaited run's waiter's to that run's target (see
     * {@link #AWAITED_RUNS}); with {@code onlyWithSpare}, only while a spare stands in, and returns
     * false at once, lending nothing, where none can ({@link Engine#blockWithSpare}).
     */
    private static boolean lendWhileBlocking(Dispatcher dispatcher, Group waiter, Group target,
            ForkJoinPool.ManagedBlocker blocker, boolean onlyWithSpare) throws InterruptedException {
        ArrayList<Group[]> runs = AWAITED_RUNS.get();
        Dispatcher.Wait[] enclosing = new Dispatcher.Wait[runs == null ? 0 : runs.size()];
        Dispatcher.Wait wait = null;
        try {
            for (int i = 0; i < enclosing.length; i++) {
                enclosing[i] = dispatcher.beginWait(runs.get(i)[0], runs.get(i)[1]);
            }
            wait = target == null ? null : dispatcher.beginWait(waiter, target);
            if (onlyWithSpare) {
                return Engine.blockWithSpare(blocker);
            }
            Engine.managedBlock(blocker);
            return true;
        } finally {
            if (wait != null) {
                dispatcher.endWait(wait);
            }
            for (int i = enclosing.length - 1; i >= 0; i--) {
                if (enclosing[i] != null) {
                    dispatcher.endWait(enclosing[i]);
                }
            }
        }
    }

    /** True when the calling thread runs a task of a group other than {@code target}, in target's pool. */
    static boolean waitsAcrossGroups(Group target) {
        Group waiter = WorkerContext.currentGroup();
        return target != null && waiter != null && waiter != target && waiter.dispatcher() == target.dispatcher();
    }
}
