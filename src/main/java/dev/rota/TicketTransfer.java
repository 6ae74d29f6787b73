package dev.rota;

import dev.rota.core.Dispatcher;
import dev.rota.core.Engine;
import dev.rota.core.Group;
import dev.rota.core.WorkerContext;
import java.util.ArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

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

    /**
     * How often a wait that found no spare, and may not run the task it awaits because that task's
     * group is kept off the waiter's CPU, looks at the mask again. A mask may be lifted while the
     * wait lasts, and then the waiter runs the task; a wait that only waited for the next spare to
     * come free would wait for ever once every thread of the pool waits so.
     */
    static final long MASK_RECHECK_NANOS = 1_000_000;

    /**
     * How long a wait that found no spare, and may not run the task it awaits for another reason
     * (a run elsewhere holds it, the thread runs too many tasks nested, the pool is stopping),
     * blocks before it tries both again. Those reasons end with the task, or for good; but the mask
     * may have kept the task off this CPU when the run was refused and let it in just after, and
     * this bounds what such a race costs.
     */
    static final long RETRY_NANOS = 100_000_000;

    /** A blocking step of a wait, made while the wait's loans stand. */
    @FunctionalInterface
    private interface Blocking {
        /** Blocks; false when it could not (no spare to stand in) and returned at once. */
        boolean block() throws InterruptedException;
    }

    private TicketTransfer() {}

    /**
     * Blocks in {@code blocker} until it is releasable. From a thread running a task of a pool,
     * lends that task's group's tickets to {@code target} (when it is another group of the same pool)
     * and blocks as {@link RotaPool#managedBlock} does; from any other thread just blocks.
     */
    static void await(Group target, ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        await(target, blocker, null, null, null);
    }

    /**
     * As {@link #await(Group, ForkJoinPool.ManagedBlocker)}, for a wait until {@code awaited}, a task
     * queued in {@code target}, is done. Where no spare can stand in for the waiting thread (the
     * bound on spares), the thread runs {@code awaited} itself if nobody has started it
     * ({@code claim} decides, see {@link WorkerContext#runAwaitedTask}), as a ForkJoinPool's join
     * runs the task it waits for, and waits as before only if it could not: otherwise, once every
     * worker and spare waits so, the tasks they wait for would stay queued for ever. The waiting
     * task's group then pays for that run, as its tickets would have been lent for the wait. A wait
     * that could do neither is one managed block (see {@link Patient}) until the task is done, or
     * until it may be worth trying both again; {@code blockerUntil} gives the blockers it waits in,
     * each waiting for what {@code blocker} does, up to the deadline given.
     */
    static void await(Group target, ForkJoinPool.ManagedBlocker blocker, Runnable awaited, BooleanSupplier claim,
            LongFunction<ForkJoinPool.ManagedBlocker> blockerUntil) throws InterruptedException {
        Group waiter = WorkerContext.currentGroup();
        if (waiter == null) {
            while (!blocker.isReleasable() && !blocker.block()) {
                // block() returned false: not done yet
            }
            return;
        }
        Dispatcher dispatcher = waiter.dispatcher();
        if (awaited == null || target == null || target.dispatcher() != dispatcher) {
            lendWhile(dispatcher, waiter, target, () -> managedBlock(blocker));
            return;
        }
        while (!lendWhile(dispatcher, waiter, target, () -> Engine.blockWithSpare(blocker))
                && !(runAwaitedTask(waiter, target, awaited, claim) && blocker.isReleasable())) {
            Patient patient = new Patient(blocker, blockerUntil, target);
            lendWhile(dispatcher, waiter, target, () -> managedBlock(patient));
            if (blocker.isReleasable()) {
                return;
            }
        }
    }

    /**
     * The blocker of a wait that found no spare and could not run its task: releasable once the
     * task is done, or once trying again may help. Kept off the waiter's CPU by the task's group's
     * mask when it begins, it looks at the mask every {@link #MASK_RECHECK_NANOS} and is releasable
     * once the mask lets that CPU in; otherwise after {@link #RETRY_NANOS}. It blocks within one
     * managed block all the while (its {@code block()} returns false until then), so that the wait
     * keeps its spare, or its place in the queue for the next spare to come free, and the waiter's
     * slice stays paused throughout.
     */
    private static final class Patient implements ForkJoinPool.ManagedBlocker {
        private final ForkJoinPool.ManagedBlocker blocker;
        private final LongFunction<ForkJoinPool.ManagedBlocker> blockerUntil;
        private final Group target;
        private final boolean keptOff;
        private final long retryAt;

        Patient(ForkJoinPool.ManagedBlocker blocker, LongFunction<ForkJoinPool.ManagedBlocker> blockerUntil,
                Group target) {
            this.blocker = blocker;
            this.blockerUntil = blockerUntil;
            this.target = target;
            this.keptOff = WorkerContext.keptOffByMask(target);
            this.retryAt = System.nanoTime() + RETRY_NANOS;
        }

        @Override
        public boolean block() throws InterruptedException {
            long deadline = keptOff ? System.nanoTime() + MASK_RECHECK_NANOS : retryAt;
            blockerUntil.apply(deadline).block();
            return isReleasable();
        }

        @Override
        public boolean isReleasable() {
            return blocker.isReleasable()
                    || (keptOff ? !WorkerContext.keptOffByMask(target) : System.nanoTime() - retryAt >= 0);
        }
    }

    private static boolean managedBlock(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        Engine.managedBlock(blocker);
        return true;
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
     * Lends {@code waiter}'s tickets to {@code target} (null: to nobody) while {@code blocking} blocks,
     * and each enclosing awaited run's waiter's to that run's target (see {@link #AWAITED_RUNS}), and
     * returns what it returned: false when it could not block (no spare to stand in).
     */
    private static boolean lendWhile(Dispatcher dispatcher, Group waiter, Group target, Blocking blocking)
            throws InterruptedException {
        ArrayList<Group[]> runs = AWAITED_RUNS.get();
        Dispatcher.Wait[] enclosing = new Dispatcher.Wait[runs == null ? 0 : runs.size()];
        Dispatcher.Wait wait = null;
        try {
            for (int i = 0; i < enclosing.length; i++) {
                enclosing[i] = dispatcher.beginWait(runs.get(i)[0], runs.get(i)[1]);
            }
            wait = target == null ? null : dispatcher.beginWait(waiter, target);
            return blocking.block();
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
