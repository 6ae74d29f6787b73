package dev.rota.core;

import dev.rota.share.ClientNode;
import dev.rota.share.CurrencyNode;
import dev.rota.share.Placement;
import dev.rota.share.ShareLedger;
import dev.rota.share.ShareScheduler;
import dev.rota.share.Ticket;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * Decides which group each worker serves: the live driver of the pool's {@link ShareLedger}, with
 * real time where the simulator drives the same ledger with virtual time.
 *
 * <p>A worker runs a group's tasks in slices. At a slice boundary it calls {@link #nextSlice} once:
 * under one lock hold the ended slice is charged with the CPU time it used, the group's state is
 * brought up to date, queued activations are applied, and the policy picks the next group among
 * those the worker may serve. A slice ends when its quantum is used, when the group has no work
 * left and another group has (or the group is shut down), when the group's mask no longer allows
 * the worker, or when an activation is queued (so that a group that just received work is
 * considered at once, not a quantum later).
 *
 * <p>Locking: one lock guards the ledger and the groups' scheduling fields; it is taken per slice,
 * never per task of a worker's slice, and never by a submitter. Spares take it per task (a pick
 * and a charge), and a managed block on a worker or a spare twice (its slice or turn paused and resumed). Submitters
 * queue activations lock-free (G2 in {@link Group}); the next lock holder applies them. Idle
 * workers read {@link #mayHaveWork()} and {@link #version()}, published after every change, before
 * they take the lock.
 *
 * <p>Invariants, under the lock:
 * <ul>
 *   <li>D1: a group is runnable in the ledger exactly when {@link Group#runnable} is set; it is
 *       cleared only after {@link #reconcile} has published IDLE and found the group without work,
 *       or by {@link #maybeTerminate} for a group whose admission is closed and that holds no work,
 *       so that no submitter can make it runnable again.</li>
 *   <li>D2: {@code byClient[c]} is the live group whose ledger entry has id c; a terminated group is
 *       removed from the ledger, from {@code byClient} and from {@link #groups()} together.</li>
 *   <li>D3: for every worker w, {@code runnableFor(w)} is the number of runnable groups whose
 *       {@link Group#countedMask} allows w; a group's counted mask is its mask as of the last time
 *       the lock holder looked ({@link #maskChanged} brings it up to date).</li>
 *   <li>D4: every lock hold that changes which groups are runnable publishes
 *       {@code ledger.runnableCount()} as {@link #mayHaveWork()}'s count before it lets the lock go:
 *       a count left too high sends idle workers to the lock for a pick that finds nothing, one
 *       left too low lets them park with a group runnable.</li>
 * </ul>
 */
public final class Dispatcher {
    /** Tries at the lock before a slice-boundary caller queues on it (see {@link #lockForSlice()}). */
    private static final int SLICE_LOCK_ATTEMPTS = 64;
    /** Ints per cache line: each worker's runnable count sits on a line of its own. */
    private static final int COUNT_STRIDE = 16;
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(int[].class);

    private final Engine engine;
    private final ReentrantLock lock = new ReentrantLock();
    private final ShareLedger ledger;
    private final long quantumNanos;
    private final MpscUnboundedAtomicArrayQueue<Group> activations = new MpscUnboundedAtomicArrayQueue<>(64);
    private Group[] byClient = new Group[16];
    /**
     * Every live group; replaced whole under the lock, read without it: the volatile write of a new
     * array publishes the groups it holds, built before it.
     */
    private volatile Group[] groups = new Group[0];
    /**
     * Runnable groups, published for idle workers (D4); written under the lock, read without it, and
     * written only when it changes ({@link #publishRunnableCount}): it shares a line with the fields
     * that workers read after every task (the activation queue, the quantum), and a write at every
     * slice end would take that line from them each time.
     */
    private volatile int runnableCount;
    /**
     * D3, published per worker: entry w at {@code (w + 1) * COUNT_STRIDE}, on a cache line of its
     * own (the first line is padding, off the array's header), so that a change writes only the lines
     * of the workers the group may run on, and a worker reading its own count at every dry search
     * shares that line with nobody but the lock holder. Written under the lock (volatile, one writer
     * at a time), read without it.
     */
    private final int[] runnableCounts;
    /** Raised whenever the set of groups a pick could return may have grown. */
    private volatile long version;
    /** Set by the pool's shutdown: no group may be created any more. */
    private boolean closed;
    /** Sees every slice charged, under the lock; null when nobody watches. */
    private volatile SliceObserver observer;

    /**
     * Receives every slice charged, under the dispatcher's lock: keep it short, never block in it,
     * and never throw (an exception would end the worker whose slice was being charged). A test and
     * benchmark hook; the public API has no way to install one.
     */
    @FunctionalInterface
    public interface SliceObserver {
        void charged(Group group, long usedNanos);
    }

    /** Installs (or, with null, removes) the observer of charged slices. */
    public void observeSlices(SliceObserver sliceObserver) {
        this.observer = sliceObserver;
    }

    private void charged(Group group, long usedNanos) {
        group.chargeFigures(usedNanos);
        SliceObserver o = observer;
        if (o != null) {
            o.charged(group, usedNanos);
        }
    }

    Dispatcher(Engine engine, ShareScheduler scheduler, long quantumNanos) {
        if (quantumNanos <= 0) {
            throw new IllegalArgumentException("quantum must be positive: " + quantumNanos + " ns");
        }
        this.engine = engine;
        this.ledger = new ShareLedger(new dev.rota.share.CurrencyGraph(), scheduler);
        this.quantumNanos = quantumNanos;
        this.runnableCounts = new int[(engine.workerCount() + 2) * COUNT_STRIDE];
        scheduler.setPlacement(new GroupPlacement());
    }

    /** The groups' masks, as the policy sees them: read under the lock, as the policy is driven. */
    private final class GroupPlacement implements Placement {
        @Override
        public int workers() {
            return engine.workerCount();
        }

        @Override
        public boolean allows(int client, int worker) {
            return client < byClient.length && eligible(client, worker);
        }

        @Override
        public boolean isRestricted(int client) {
            Group group = client < byClient.length ? byClient[client] : null;
            return group != null && !group.mask().isAll();
        }
    }

    public long quantumNanos() {
        return quantumNanos;
    }

    // ---- lock-free, any thread ----------------------------------------------------------------

    /** G2: a submitter found its group IDLE and set it PENDING; the next lock holder applies this. */
    void queueActivation(Group group) {
        activations.offer(group);
    }

    boolean activationsPending() {
        return !activations.isEmpty();
    }

    /** True when a pick might find a group: some group is runnable or an activation waits. */
    boolean mayHaveWork() {
        return runnableCount > 0 || activationsPending();
    }

    /**
     * True when a group other than {@code current} that {@code worker} may serve is runnable, or a
     * group may become runnable (an activation is queued). A hint read without the lock: a worker
     * that keeps a dry slice on a stale answer ends it before it parks, and looks again then.
     */
    boolean othersMayHaveWork(Group current, int worker) {
        int counted = current.runnable && current.allows(worker) ? 1 : 0;
        return (int) COUNT.getVolatile(runnableCounts, countIndex(worker)) > counted || activationsPending();
    }

    long version() {
        return version;
    }

    /** Under the lock: publishes the ledger's runnable count, if it changed (D4). */
    private void publishRunnableCount() {
        int count = ledger.runnableCount();
        if (count != runnableCount) {
            runnableCount = count;
        }
    }

    /** The live groups. */
    public Group[] groups() {
        return groups;
    }

    // ---- slices -------------------------------------------------------------------------------

    /**
     * Ends {@code worker}'s slice of {@code ending} (if not null), charging {@code usedNanos}, the
     * slice having used {@code sliceNanos} in all (more where a join charged part of it before,
     * {@link #chargeRunningSlice}), and, if {@code pickNext}, starts its next slice: the group to
     * serve now, or null when no runnable group allows this worker.
     */
    Group nextSlice(Worker worker, Group ending, long usedNanos, long sliceNanos, boolean pickNext) {
        lockForSlice();
        try {
            if (ending != null) {
                endSliceLocked(ending, usedNanos, sliceNanos);
            }
            applyActivations();
            Group next = null;
            if (pickNext) {
                int id = ledger.pick(worker.eligible, worker.random);
                if (id != ShareScheduler.NONE) {
                    next = byClient[id];
                    ledger.sliceStarted(next.client);
                }
            }
            publishRunnableCount();
            return next;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: ends a slice (a worker's, or a spare's turn) of {@code group}, charging the
     * {@code usedNanos} not charged yet of the {@code sliceNanos} it used, and checks whether the
     * group is now idle or done.
     */
    private void endSliceLocked(Group group, long usedNanos, long sliceNanos) {
        charged(group, usedNanos);
        ledger.sliceEnded(group.client, usedNanos, sliceNanos, quantumNanos);
        reconcile(group);
        maybeTerminate(group);
    }

    /**
     * Takes the lock at a slice boundary. A hold lasts well under a microsecond, but a thread that
     * queues on the lock parks, and its release then costs the holder a futex wake-up of several
     * microseconds and the waiter a wake-up as long: half the time of a decision in a profile of
     * short slices (docs/BENCHMARKS.md, GroupOverheadBenchmark). So a worker first retries for a few
     * microseconds, yielding now and then in case the holder has lost its CPU, and only then queues.
     */
    private void lockForSlice() {
        for (int attempt = 1; attempt <= SLICE_LOCK_ATTEMPTS; attempt++) {
            if (lock.tryLock()) {
                return;
            }
            if (attempt % 16 == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
        lock.lock();
    }

    /** Under the lock (a pick's predicate): true when the group with ledger id {@code id} allows {@code worker}. */
    boolean eligible(int id, int worker) {
        Group group = byClient[id];
        return group != null && group.allows(worker);
    }

    /**
     * For a spare standing in on worker {@code w}: a runnable group it may serve, or null. The pick
     * opens the spare's turn at the group: until {@link #chargeSpare} or {@link #spareFoundNothing}
     * ends it, the group does not terminate, since the spare may hold its last task (G3). In the
     * ledger the turn is a slice, so that the task keeps its group active (a group whose only
     * running task is on a spare would otherwise lose its value once another slice of it ended dry)
     * and a managed block of the task pauses it ({@link #pauseSlice}), as for a worker's slice.
     */
    Group pickForSpare(IntPredicate eligible, RandomGenerator random) {
        lockForSlice();
        try {
            applyActivations();
            int id = ledger.pick(eligible, random);
            publishRunnableCount();
            if (id == ShareScheduler.NONE) {
                return null;
            }
            Group group = byClient[id];
            group.spareTurns++;                          // G3: no termination until the turn ends
            ledger.sliceStarted(group.client);           // the turn's task keeps its group active, as a slice's do
            return group;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A waiter is about to run a task of {@code group} in place ({@link WorkerContext#runAwaitedTask}):
     * returns true, and until {@link #awaitedRunEnded} the group does not terminate (G3), since the
     * waiter may hold its last task; false, changing nothing, once the group is stopped or terminated.
     */
    boolean awaitedRunStarted(Group group) {
        lock.lock();
        try {
            if (group.isTerminated() || group.runState() >= Group.STOP) {
                return false;
            }
            group.terminationHolds++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Ends what {@link #awaitedRunStarted} began, and checks whether the group is now done. */
    void awaitedRunEnded(Group group) {
        releaseTerminationHold(group);
    }

    private void releaseTerminationHold(Group group) {
        lock.lock();
        try {
            group.terminationHolds--;
            settleLocked(group);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A shutdownNow is about to drain {@code group}: until {@link #drainSettled}, the group does not
     * terminate (G3), so that a thread that sees it terminated finds every task of the drain settled
     * (its futures done, its figures final).
     */
    void drainStarted(Group group) {
        lock.lock();
        try {
            group.terminationHolds++;
        } finally {
            lock.unlock();
        }
    }

    /** Ends what {@link #drainStarted} began, and checks whether the group is now done. */
    void drainSettled(Group group) {
        releaseTerminationHold(group);
    }

    /** Ends a spare's turn at {@code group} (see {@link #pickForSpare}) that found no task to take. */
    void spareFoundNothing(Group group) {
        lock.lock();
        try {
            group.spareTurns--;
            ledger.sliceAbandoned(group.client);
            settleLocked(group);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Charges a slice of {@code group} that is still running with the {@code usedNanos} it has used so
     * far: for a join that yields the slice's worker to a spare ({@link Worker}'s joinYieldsSlice).
     * The slice's end then charges only the time that follows. The group's figures count the part as
     * a slice of its own. Under {@code LOTTERY}, whose charge sets the group's compensation for its
     * next draw from the fraction of a quantum used, the slice's end takes that fraction from the
     * whole slice, this part included ({@link ShareScheduler#chargeSliceEnd}): the part that follows
     * alone would make a slice that used its quantum, and a little more, look as if it had left most
     * of it unused.
     */
    void chargeRunningSlice(Group group, long usedNanos) {
        lockForSlice();
        try {
            chargeLocked(group, usedNanos);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: charges {@code group} with time used outside a slice's end, figures and ledger alike. */
    private void chargeLocked(Group group, long usedNanos) {
        charged(group, usedNanos);
        ledger.charge(group.client, usedNanos, quantumNanos);
    }

    /** Ends a spare's turn at {@code group}: charges the task it ran, and checks whether the group is now done. */
    void chargeSpare(Group group, long usedNanos) {
        lockForSlice();
        try {
            group.spareTurns--;
            endSliceLocked(group, usedNanos, usedNanos); // a spare's turn is a slice (see pickForSpare), charged whole
            publishRunnableCount();
        } finally {
            lock.unlock();
        }
    }

    // ---- activation: the lock holder's side of G2 --------------------------------------------

    /**
     * Applies the queued activations. A group still {@code PENDING} had a task offered after it was
     * last made idle (the submitter set PENDING after its offer, G2), so it is made runnable without
     * looking at its queues: that look reads lines its submitters write on every offer, and each such
     * read costs a submitter a cache miss. If that task has been taken meanwhile (by a worker whose
     * slice of the group was still open), the group is runnable without work until a slice of it
     * ends dry, or a spare's pick finds it empty ({@link #spareFoundNothing}), and
     * {@link #reconcile} makes it idle again. A group made idle again since its activation was
     * queued is reconciled as usual.
     */
    private void applyActivations() {
        Group group;
        while ((group = activations.poll()) != null) {
            if (group.activation() == Group.PENDING && !group.isTerminated()) {
                setRunnable(group, true);
            } else {
                reconcile(group);
            }
        }
    }

    /**
     * Makes the group runnable exactly when it holds work (D1), keeping G2: before clearing it, it
     * publishes IDLE and looks at the queues again, so that a submitter racing with it either is
     * seen here or sees IDLE and queues an activation. PENDING and ACTIVE both mean "not idle" to a
     * submitter, so a PENDING group that is runnable stays PENDING: writing ACTIVE over it would only
     * take the line every submission reads away from its submitters once more.
     */
    private void reconcile(Group group) {
        if (group.isTerminated()) {
            return;
        }
        if (group.hasWork()) {
            if (group.activation() == Group.IDLE) {      // no write per slice on the line every submitter reads
                group.setActivation(Group.ACTIVE);
            }
            setRunnable(group, true);
            return;
        }
        if (!group.runnable && group.activation() == Group.IDLE) {
            return;
        }
        group.setActivation(Group.IDLE);
        VarHandle.fullFence();                           // store-load: IDLE before the second look (G2)
        if (group.hasWork()) {
            group.casActivation(Group.IDLE, Group.ACTIVE); // if PENDING instead, its activation comes here again
            setRunnable(group, true);
        } else {
            setRunnable(group, false);
        }
    }

    /** Reconciles one group under the lock; for the tests of G2. */
    void reconcileNow(Group group) {
        lock.lock();
        try {
            reconcile(group);
            publishRunnableCount();
        } finally {
            lock.unlock();
        }
    }

    private void setRunnable(Group group, boolean runnable) {
        if (group.runnable != runnable) {
            ledger.setRunnable(group.client, runnable);
            group.runnable = runnable;
            if (runnable) {
                group.countedMask = group.mask;
                countRunnable(group.countedMask, 1);
                version++;
            } else {
                countRunnable(group.countedMask, -1);
            }
        }
    }

    /** D3: adds {@code delta} to the runnable count of every worker {@code mask} allows. */
    private void countRunnable(WorkerMask mask, int delta) {
        for (int w : mask.workers()) {
            int at = countIndex(w);
            COUNT.setVolatile(runnableCounts, at, (int) COUNT.get(runnableCounts, at) + delta);
        }
    }

    private static int countIndex(int worker) {
        return (worker + 1) * COUNT_STRIDE;
    }

    /** The runnable count of {@code worker} (D3), read under the lock; for the tests of it. */
    int runnableFor(int worker) {
        lock.lock();
        try {
            return (int) COUNT.get(runnableCounts, countIndex(worker));
        } finally {
            lock.unlock();
        }
    }

    // ---- groups -------------------------------------------------------------------------------

    /**
     * A new group funded by {@code tickets} of {@code currency}.
     *
     * @throws RejectedExecutionException if the pool is shut down
     * @throws IllegalArgumentException   for a bad name, amount or currency (from the ledger)
     */
    public Group newGroup(String name, CurrencyNode currency, long tickets, int capacity, int inboxChunk) {
        lock.lock();
        try {
            if (closed) {
                throw new RejectedExecutionException("pool is shut down: no new group " + name);
            }
            ClientNode client = ledger.newClient(name, currency, tickets);
            Group group;
            try {
                group = new Group(engine, name, client, capacity, inboxChunk);
            } catch (RuntimeException e) {
                ledger.remove(client);
                throw e;
            }
            if (client.id() >= byClient.length) {
                byClient = Arrays.copyOf(byClient, Math.max(client.id() + 1, byClient.length * 2));
            }
            byClient[client.id()] = group;
            Group[] all = Arrays.copyOf(groups, groups.length + 1);
            all[all.length - 1] = group;
            groups = all;
            return group;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A group's mask changed: idle workers must look again, and credit the group built up while
     * it could use fewer CPUs than its share called for is forgiven, so that it does not take the
     * whole pool once it may use more.
     */
    void maskChanged(Group group) {
        lock.lock();
        try {
            if (!group.client.isRemoved()) {              // a terminated group has left the ledger
                ledger.forgiveCredit(group.client);
            }
            if (group.runnable && group.countedMask != group.mask) {   // D3
                countRunnable(group.countedMask, -1);
                group.countedMask = group.mask;
                countRunnable(group.countedMask, 1);
            }
            version++;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A worker has exited, and published it: a group whose mask allows only exited workers now runs
     * on the others (W5), so picks may return more than before, as after {@link #maskChanged}.
     */
    void workerExited() {
        lock.lock();
        try {
            version++;
        } finally {
            lock.unlock();
        }
    }

    /** Shuts one group: no more submissions; it terminates once its queued and running tasks are done. */
    public void shutdown(Group group) {
        group.advanceRunState(Group.SHUTDOWN);
        group.closeAdmission();
        lock.lock();
        try {
            maybeTerminate(group);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Looks at a group again: runnable only if it still holds work, terminated if it is shut down
     * and done. After shutdownNow drained its queues, after a submission it refused gave back its
     * reservation (see {@link Group#offer}), and after a worker of a stopped pool finished (cancelled,
     * mostly) the last task left on its deque of the group, outside any slice of it. A spare that
     * picked it and found no task ends its turn with {@link #spareFoundNothing}, which does the same.
     */
    void settle(Group group) {
        lock.lock();
        try {
            settleLocked(group);
        } finally {
            lock.unlock();
        }
    }

    private void settleLocked(Group group) {
        reconcile(group);
        maybeTerminate(group);
        publishRunnableCount();
    }

    /** Shuts every group and refuses new ones (the pool's shutdown). */
    void closeAll() {
        closeAllBut(null);
    }

    /**
     * Refuses new groups and shuts every group but {@code keep} (null: every group). The pool keeps
     * its default group open while delayed tasks may still come due after {@code shutdown()}.
     */
    public void closeAllBut(Group keep) {
        lock.lock();
        try {
            closed = true;
            for (Group group : groups) {
                if (group != keep) {
                    group.advanceRunState(Group.SHUTDOWN);
                    group.closeAdmission();
                    maybeTerminate(group);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The pool terminated: every group still live terminates too, and leaves the ledger as one that
     * ends by itself does (D2), so that no currency funds a group of a terminated pool. No slice or
     * spare's turn is open any more: every worker ends its slice before it exits, and a spare counts
     * as a participant of the engine until its task is done (E4).
     */
    void poolTerminated() {
        lock.lock();
        try {
            for (Group group : groups) {                 // live, every one (D2)
                leave(group);
            }
            groups = new Group[0];
        } finally {
            lock.unlock();
        }
    }

    /**
     * G3: a shut-down group with no task queued, on its way, or running (in a slice, a spare's turn,
     * or run by its waiter) terminates, and leaves the ledger (D2).
     */
    private void maybeTerminate(Group group) {
        if (group.runState() < Group.SHUTDOWN || group.isTerminated() || !group.admissionClosed()
                || group.hasWork() || ledger.slices(group.client) > 0 || group.spareTurns > 0
                || group.terminationHolds > 0) {
            return;
        }
        leave(group);
        Group[] all = groups;
        Group[] left = new Group[all.length - 1];
        int k = 0;
        for (Group g : all) {
            if (g != group) {
                left[k++] = g;
            }
        }
        groups = left;
    }

    /**
     * Terminates a live group and takes it out of the ledger and {@code byClient}; the caller takes
     * it out of {@link #groups()} under the same lock hold (D2).
     */
    private void leave(Group group) {
        setRunnable(group, false);
        publishRunnableCount();                          // D4: shutdown() and closeAllBut() publish it nowhere else
        for (Ticket loan : group.loansOut) {
            ledger.repay(loan);                          // a terminated group lends nothing any more
        }
        group.loansOut.clear();
        for (Ticket held : group.client.loans()) {
            // The ledger's remove withdraws the loans this group holds; their lenders, live (a removed
            // lender's loans went with it), stop holding them, or a loan never closed would keep this
            // group's ledger entry for as long as its lender lives.
            Group lender = byClient[held.currency().owner().id()];
            lender.loansOut.removeIf(loan -> loan == held);
        }
        group.terminate();
        ledger.remove(group.client);
        byClient[group.client.id()] = null;
    }

    // ---- waits and loans (ticket transfer) -----------------------------------------------------

    /**
     * A wait of {@code waiter} on {@code target}: lends the waiter's tickets to the target until
     * {@link #endWait}. Returns null when there is nothing to lend (same group, or either has
     * terminated). A loan that would close a cycle of loans (the target already lends to the
     * waiter, directly or through others) is not made (the wait's {@code loan} is null): the wait
     * itself never fails for the sake of a loan. The waiting slice, if any, is paused by the managed
     * block the wait is ({@link #pauseSlice}).
     */
    public Wait beginWait(Group waiter, Group target) {
        if (waiter == target || waiter.engine != target.engine) {
            return null;
        }
        lock.lock();
        try {
            if (waiter.isTerminated() || target.isTerminated()) {
                return null;
            }
            Ticket loan;
            try {
                loan = ledger.lend(waiter.client, target.client);
                waiter.loansOut.add(loan);
            } catch (IllegalArgumentException cycle) {
                // Both groups are live (checked above) and distinct, so lend refuses only a loan
                // that would close a cycle of loans: wait without it.
                loan = null;
            }
            return new Wait(waiter, loan);
        } finally {
            lock.unlock();
        }
    }

    public void endWait(Wait wait) {
        lock.lock();
        try {
            if (wait.loan != null) {
                ledger.repay(wait.loan);
                wait.waiter.loansOut.removeIf(loan -> loan == wait.loan);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A wait begun by {@link #beginWait}: its loan of tickets, null when none could be made. */
    public record Wait(Group waiter, Ticket loan) {}

    /**
     * A task on a worker or a spare waits in a managed block: one running slice of {@code group}
     * (a spare's turn is one, see {@link #pickForSpare}) no longer keeps
     * it active (the paper's inactive tickets: a group with nothing to run but waits competes for
     * nothing), so that its currency's other groups share its value meanwhile. The group is
     * reconciled first: a slice that took its last task left it runnable, which would keep it
     * active as well. False when the group has terminated or none of its slices is left to pause.
     */
    boolean pauseSlice(Group group) {
        lock.lock();
        try {
            if (group.client.isRemoved() || ledger.slices(group.client) <= ledger.pausedSlices(group.client)) {
                return false;
            }
            reconcile(group);
            publishRunnableCount();
            ledger.pause(group.client);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Ends a pause begun by {@link #pauseSlice} that returned true. */
    void resumeSlice(Group group) {
        lock.lock();
        try {
            if (!group.client.isRemoved()) {
                ledger.resume(group.client);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- currencies and tickets (the public API's operations, under the lock) -------------------

    /**
     * Runs {@code operation} on the ledger under the lock. The queued activations are applied first
     * and so leave the queue even when the ledger refuses the operation (a bad amount, say): the
     * runnable count is published in either case, or idle workers, which read only the count and the
     * queue, would see no work and park with a group runnable.
     */
    public <T> T withLedger(java.util.function.Function<ShareLedger, T> operation) {
        lock.lock();
        try {
            applyActivations();
            T result = operation.apply(ledger);
            version++;
            return result;
        } finally {
            publishRunnableCount();
            lock.unlock();
        }
    }

    /** Reads something from the ledger under the lock, queued activations applied first. */
    public <T> T read(Supplier<T> reader) {
        lock.lock();
        try {
            applyActivations();
            publishRunnableCount();
            return reader.get();
        } finally {
            lock.unlock();
        }
    }

    /** Reads something from the ledger itself under the lock, queued activations applied first; changes nothing. */
    public <T> T readLedger(java.util.function.Function<ShareLedger, T> reader) {
        return read(() -> reader.apply(ledger));
    }

    /** The base currency of this pool's ledger (immutable identity). */
    public CurrencyNode baseCurrency() {
        return ledger.graph().base();
    }
}
