package dev.rota.core;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.PinResult;
import dev.rota.share.ShareScheduler;
import dev.rota.share.StrideScheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The workers of one pool and the protocols between them: where a submission goes, who is woken,
 * and how the pool shuts down without losing a task. Tasks live in {@link Group}s (the pool's own
 * default group among them), a {@link Lane} of each on every worker; the {@link Dispatcher} decides
 * which group each worker serves.
 *
 * <p>Run states, which only increase: {@code RUNNING → SHUTDOWN → STOP → TERMINATED}.
 *
 * <p>Invariants:
 * <ul>
 *   <li>E1: a submission is accepted exactly when its group's {@link Admission} reserves room for
 *       it; shutdown closes every admission, so nothing is accepted after {@code shutdown()}
 *       returns.</li>
 *   <li>E2: after {@code SHUTDOWN}, a worker exits only when every admission is closed, no
 *       accepted task is still on its way into an inbox or waiting in one, and every deque is
 *       empty: all accepted tasks have then been taken (and, W2, will run).</li>
 *   <li>E3: {@code shutdownNow()} closes every admission and takes every inbox's consumer token for
 *       good; by W1 no task can then move between queues, so draining the inboxes until every
 *       accepted task is taken (A4), then stealing the deques empty, returns every task not yet
 *       taken, each exactly once. A group's own shutdownNow does the same for its lanes; the two
 *       are serialized.</li>
 *   <li>E4: the pool is TERMINATED when its last participant has left: its workers, the spares
 *       standing in for them, and a group's shutdownNow settling its drain; nothing runs
 *       afterwards.</li>
 * </ul>
 *
 * <p>Layout: every worker reads the run state at each task, and every offer reads the parked count
 * and the routing references, so they sit past the header's line ({@link HeaderLinePad}), with the
 * engine's other references after them: no field of the objects next to this one in memory, which
 * the collector picks anew each time it moves them, shares their line (in one fork of a profile of
 * three groups fed by two submitters, the read of an unpadded engine's run state took a sixteenth
 * of the workers' time). The parked count, written only when a worker parks or wakes, shares that
 * line. {@code FieldLayoutTest} checks the offsets.
 */
public final class Engine extends HeaderLinePad {
    public static final int RUNNING = 0;
    public static final int SHUTDOWN = 1;
    public static final int STOP = 2;
    public static final int TERMINATED = 3;

    /** As ForkJoinPool's default bound on spare threads. */
    public static final int DEFAULT_MAX_SPARES = 256;
    /** As ForkJoinPool's default keep-alive of unused threads. */
    public static final long DEFAULT_SPARE_KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Default scheduling quantum: the longest slice of one group before the policy chooses again. */
    public static final long DEFAULT_QUANTUM_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Base tickets of the pool's default group. */
    public static final long DEFAULT_GROUP_TICKETS = 100;
    /** Name of the pool's default group. */
    public static final String DEFAULT_GROUP_NAME = "default";

    private static final VarHandle RUN_STATE;
    private static final VarHandle PARKED_COUNT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RUN_STATE = lookup.findVarHandle(Engine.class, "runState", int.class);
            PARKED_COUNT = lookup.findVarHandle(Engine.class, "parkedCount", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Worker[] workers;
    /** Every worker's index, ascending: whom {@link #signalWork} may wake once masks have lapsed. */
    private final int[] everyWorker;
    private final Dispatcher dispatcher;
    /** Which lane each outside thread submits to, shared by every group. */
    private final SubmitterLanes submitterLanes = new SubmitterLanes();
    private final Group defaultGroup;
    private final Affinity affinity;
    private final boolean pinning;
    private final Thread.UncaughtExceptionHandler handler;
    private final CountDownLatch started;
    /** Starts a worker's thread ({@link #start}); the package's tests make it fail ({@link #startWorkersWith}). */
    private Consumer<Thread> workerStarter;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicInteger liveWorkers;
    private final SpareThreads spares;
    private final LongAdder spareTasks = new LongAdder();
    /**
     * Drained tasks that a shutdownNow kept as completed ({@link #keepNeverStarted}), and leftovers
     * taken after a drain that stand for a run elsewhere ({@link #cancelLeftover}): counted in the
     * pool's figure as their groups count them, so that it stays the sum of the groups' counts.
     */
    private final LongAdder drainedCompleted = new LongAdder();
    /** Serializes the drains of the pool's and the groups' shutdownNow (E3). */
    private final Object stopLock = new Object();
    private volatile int runState = RUNNING;
    /** Workers counted parked: never fewer than those PARKED (W3), so 0 lets a producer skip the scan. */
    private volatile int parkedCount;
    /**
     * Set by shutdownNow once it has taken every queued task (E3); workers then clean up after it.
     * Written after every group's drain, so a worker that reads it true and then pops its deques
     * finds there only forks pushed after the drain looked, which no shutdownNow returns (W2); one
     * that reads it false leaves its deques to the drain.
     */
    private volatile boolean stopDrained;
    /**
     * How a future taken after its group's stop-drain is settled instead of run (W2): cancelled, by
     * default. Set before {@link #start} only (the threads' start publishes it).
     */
    private Predicate<Future<?>> leftoverCanceller = leftover -> !leftover.cancel(false);
    /**
     * The public object this engine runs for (its {@code RotaPool}), for whoever holds only the engine
     * ({@code RotaTask.getPool()}). Set before {@link #start} only (the threads' start publishes it).
     */
    private Object owner;

    /**
     * @param cpus     the CPU of each worker, in worker order
     * @param stealOrder for each worker, the indices of the others in the order it steals from them;
     *                 it may hold the worker's own index, which the worker skips, and workers may share
     *                 one array (the engine keeps them and never writes them)
     * @param pinning  whether workers pin themselves to their CPUs
     * @param handler  receives exceptions escaping tasks given to {@code execute}; null for the thread's default
     */
    public Engine(String name, int[] cpus, int[][] stealOrder, Affinity affinity, boolean pinning,
                  Thread.UncaughtExceptionHandler handler, boolean daemon) {
        this(name, cpus, stealOrder, affinity, pinning, handler, daemon, DEFAULT_MAX_SPARES, DEFAULT_SPARE_KEEP_ALIVE_NANOS,
                new StrideScheduler(), DEFAULT_QUANTUM_NANOS, new SplittableRandom().nextLong());
    }

    /**
     * @param maxSpares           most spare threads standing in for blocked workers at once
     * @param spareKeepAliveNanos how long an unused spare thread waits before it exits
     * @param policy              the proportional-share policy dividing CPU time between groups
     * @param quantumNanos        the longest slice of one group before the policy chooses again
     * @param seed                seed of the workers' random generators (lottery draws)
     */
    public Engine(String name, int[] cpus, int[][] stealOrder, Affinity affinity, boolean pinning,
                  Thread.UncaughtExceptionHandler handler, boolean daemon, int maxSpares, long spareKeepAliveNanos,
                  ShareScheduler policy, long quantumNanos, long seed) {
        this.affinity = affinity;
        this.pinning = pinning;
        this.handler = handler;
        this.workers = new Worker[cpus.length];
        this.everyWorker = WorkerMask.all(cpus.length).workers();
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int i = 0; i < cpus.length; i++) {
            workers[i] = new Worker(this, i, cpus[i], name + "-worker-" + i, seeds.nextLong());
            workers[i].thread.setDaemon(daemon);
            if (handler != null) {
                workers[i].thread.setUncaughtExceptionHandler(handler);
            }
        }
        Set<int[]> checked = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < cpus.length; i++) {
            if (checked.add(stealOrder[i])) {            // once per array: workers of one CPU may share one
                for (int victim : stealOrder[i]) {
                    Objects.checkIndex(victim, cpus.length);
                }
            }
            workers[i].setVictims(stealOrder[i]);
        }
        this.started = new CountDownLatch(cpus.length);
        this.workerStarter = Thread::start;
        this.liveWorkers = new AtomicInteger(cpus.length);
        this.spares = new SpareThreads(this, name, maxSpares, spareKeepAliveNanos, daemon, handler, seeds.nextLong());
        this.dispatcher = new Dispatcher(this, policy, quantumNanos);
        this.defaultGroup = dispatcher.newGroup(DEFAULT_GROUP_NAME, dispatcher.baseCurrency(), DEFAULT_GROUP_TICKETS,
                Group.UNBOUNDED, Inbox.DEFAULT_CHUNK);
    }

    /**
     * Starts the workers and waits until each has pinned itself (or failed to); returns the results.
     * Where a worker's thread cannot be started (the JVM's "unable to create native thread" under a
     * limit on threads) it throws that failure, and the engine is abandoned: nobody will ever hold it
     * to shut it down, so the workers started stop at once and the engine terminates
     * ({@link #abandonStart}), as ThreadPoolExecutor and ForkJoinPool undo a worker whose thread
     * failed to start. Workers left running would idle for ever, and with non-daemon threads keep
     * the JVM alive. So is an engine whose start fails later, while it waits for the workers' pins.
     */
    public List<PinResult> start() {
        int launched = 0;
        try {
            for (Worker w : workers) {
                workerStarter.accept(w.thread);
                launched++;
            }
        } catch (Throwable failure) {
            abandonStart(launched);
            throw failure;
        }
        try {
            boolean interrupted = false;
            while (true) {
                try {
                    started.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            List<PinResult> pins = new ArrayList<>(workers.length);
            for (Worker w : workers) {
                pins.add(w.pin());
            }
            return pins;
        } catch (Throwable failure) {
            abandonStart(workers.length);                // every worker was launched
            throw failure;
        }
    }

    /**
     * After a failed start: stops the workers started ({@link #shutdownNow()}: nothing can be queued
     * yet, since the engine was never handed out) and counts those never started out of the
     * participants (E4), as if they had exited; the last of the others to exit terminates the engine.
     */
    private void abandonStart(int launched) {
        shutdownNow();
        for (int i = launched; i < workers.length; i++) {
            participantExited();
        }
    }

    /** For the package's tests: starts the workers' threads from now on, in place of {@link Thread#start()}. */
    void startWorkersWith(Consumer<Thread> starter) {
        workerStarter = starter;
    }

    // ---- submission -------------------------------------------------------------------------

    /**
     * Queues {@code task} in the pool's default group: on the caller's own lane when the caller is
     * a worker, else on the lane its thread id maps to (see {@link Group#offer}).
     *
     * <p>An outside thread keeps to one inbox (a hash of its thread id), as ForkJoinPool maps a
     * submitter to one submission queue: several submitters then write to different cache lines
     * instead of fighting over each inbox's, and consecutive threads spread over the workers. A
     * thread that keeps meeting another on its inbox moves on ({@link SubmitterLanes}). Idle workers
     * steal from an inbox that gets more than its worker can run.
     *
     * @throws RejectedExecutionException after shutdown
     */
    public void execute(Runnable task) {
        int result = defaultGroup.offer(task);
        if (result != Group.ACCEPTED) {
            defaultGroup.countRejected();
            throw new RejectedExecutionException(result == Group.FULL
                    ? "default group is full (capacity " + defaultGroup.capacity() + "): task rejected: " + task
                    : "pool is " + stateName() + ": task rejected: " + task);
        }
    }

    /**
     * Queues a delayed task that has come due in the default group: as {@link #execute}, but past
     * the group's bound when its queue is full ({@link Group#offerPastBound}), since the task was
     * accepted when it was scheduled. For the same reason a refusal is not counted in the group's
     * rejected tasks, which count refused submissions: the caller ends the task instead (the
     * scheduler cancels it, so that its future reports that it did not run).
     *
     * @return false once the default group is shut down (the task was not queued)
     */
    public boolean executeDue(Runnable task) {
        return defaultGroup.offerPastBound(task) == Group.ACCEPTED;
    }

    /** The pool's own group, which {@link #execute} feeds. */
    public Group defaultGroup() {
        return defaultGroup;
    }

    SubmitterLanes submitterLanes() {
        return submitterLanes;
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /**
     * Called after a task of {@code group} was queued on worker {@code near}'s lane: wakes one parked
     * worker that may run the group, preferring {@code near} (W3: after the offer).
     *
     * <p>The mask is read here, after the offer's admission (a read-modify-write), not taken from the
     * routing that read it before: a {@link Group#restrictTo} whose look for work missed the
     * reservation wrote its mask before that look, so this read sees the new mask and wakes a worker
     * it allows.
     */
    void signalWork(Group group, int near) {
        if (parkedCount == 0) {
            return;
        }
        WorkerMask mask = group.mask();
        int[] allowed = allExited(mask) ? everyWorker : mask.workers(); // a lapsed mask (W5)
        int n = allowed.length;
        int start = 0;
        while (start < n && allowed[start] < near) {
            start++;
        }
        for (int i = 0; i < n; i++) {
            if (workers[allowed[(start + i) % n]].wake()) {
                return;
            }
        }
    }

    /** The workers parked or about to park (W3): an estimate, never below those parked. */
    int parkedWorkers() {
        return parkedCount;
    }

    void parkedCountIncrement() {
        PARKED_COUNT.getAndAdd(this, 1);
    }

    void parkedCountDecrement() {
        PARKED_COUNT.getAndAdd(this, -1);
    }

    // ---- workers' view ----------------------------------------------------------------------

    PinResult pinCurrentThread(int cpu) {
        if (!pinning) {
            runOnAnyCpu();
            return PinResult.failure(cpu, "pinning disabled");
        }
        if (!affinity.canPin()) {
            return PinResult.failure(cpu, affinity.unavailableReason());
        }
        PinResult result;
        try {
            result = affinity.pinCurrentThread(cpu);
        } catch (RuntimeException | LinkageError e) {
            result = PinResult.failure(cpu, e.toString());
        }
        if (!result.pinned()) {
            runOnAnyCpu();                               // a refused pin leaves the mask it inherited
        }
        return result;
    }

    /**
     * Lets the calling thread, a worker, a spare or the timer of an unpinned pool, run on any CPU of
     * the process. A thread starts with the mask of the thread that started it, which may be pinned (a worker of
     * another pool, or a spare's previous CPU): unpinned must mean free, not confined to that CPU.
     * Best effort, as {@link Affinity#allowCurrentThread} itself: where it fails the mask stays.
     */
    public void runOnAnyCpu() {
        if (affinity.canPin()) {
            try {
                affinity.allowCurrentThread(affinity.processCpus());
            } catch (RuntimeException | LinkageError ignored) {
                // the thread keeps the mask it inherited
            }
        }
    }

    void workerStarted() {
        started.countDown();
    }

    int runState() {
        return runState;
    }

    boolean isStopping() {
        return runState >= STOP;
    }

    boolean isStopDrained() {
        return stopDrained;
    }

    /** E2: true when no accepted task remains anywhere, so an idle worker may exit after shutdown. */
    boolean mayWorkerExit() {
        if (runState >= STOP) {
            return true;
        }
        Group[] groups = dispatcher.groups();
        for (Group group : groups) {
            if (!group.admissionClosed()) {
                return false;
            }
        }
        for (Group group : groups) {
            if (group.hasWork()) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when a group other than {@code current} that worker {@code w} may serve holds a task,
     * before the pool stops (volatile reads only; a snapshot, stale at once). The dispatcher's hint
     * first (one volatile read), then the queues themselves, so that a group still runnable with
     * nothing queued does not count.
     */
    boolean othersHaveWork(Group current, int w) {
        if (isStopping() || !dispatcher.othersMayHaveWork(current, w)) {
            return false;
        }
        for (Group group : dispatcher.groups()) {
            if (group != current && group.allows(w) && group.hasWork()) {
                return true;
            }
        }
        return false;
    }

    void workerExited(Worker worker) {
        participantExited();
    }

    /** A spare begins to stand in for a blocked (so still live) worker: E4 counts it. */
    void participantEntered() {
        liveWorkers.incrementAndGet();
    }

    /** A worker exited, a spare finished standing in, or a group's drain was settled; the last one terminates the pool (E4). */
    void participantExited() {
        if (liveWorkers.decrementAndGet() == 0) {
            RUN_STATE.setVolatile(this, TERMINATED);
            dispatcher.poolTerminated();
            terminated.countDown();
            spares.terminate();
        }
    }

    // ---- managed blocking ---------------------------------------------------------------------

    /**
     * Blocks the calling worker in {@code blocker} while a spare thread, pinned to the same CPU,
     * runs other tasks (bounded by the spare limit); on a spare, brings in another spare for the
     * same worker ({@link #blockStandingIn}). Neither the worker's slice nor the spare's task is
     * charged for the time it blocks. Any other thread blocks as {@link ForkJoinPool#managedBlock}
     * has it block: a ForkJoinPool's worker with that pool's compensation, so that code ported from
     * it keeps it where it still runs in a ForkJoinPool; any other thread plainly.
     */
    public static void managedBlock(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        java.util.Objects.requireNonNull(blocker, "blocker");
        if (!blocker.isReleasable() && !blockStandingIn(blocker, false)) {
            ForkJoinPool.managedBlock(blocker);
        }
    }

    /**
     * As {@link #managedBlock}, but only with a spare standing in: on a worker or a spare, blocks in
     * {@code blocker} while another spare runs the core's tasks and returns true; returns false at
     * once, without blocking, when no spare can stand in (S1), or on any other thread. For a join
     * that may help no deeper ({@link WorkerContext#MAX_HELP_DEPTH}): blocking with nobody to run
     * the core's tasks could wait for ever for a task that only this thread would run. And for a
     * wait for a queued task, which the waiter runs itself where no spare can stand in
     * ({@link WorkerContext#runAwaitedTask}).
     */
    public static boolean blockWithSpare(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        return blockStandingIn(blocker, true);
    }

    /**
     * On a worker or a spare: blocks in {@code blocker} while a spare stands in for the worker (on a
     * spare, for the worker it stands in for, or, once released, with {@code onlyWithSpare}, last stood for), and returns true. A spare's task is not charged for
     * the time it blocks, nor is the worker's slice, and that slice does not keep its group active
     * meanwhile (a group whose only work waits competes for nothing). Returns false without blocking on any other
     * thread, and, with {@code onlyWithSpare}, when no spare can stand in (S1); without it, blocks
     * anyway then, and the next spare to come free stands in (S7 of SpareThreads). A task running on a spare that blocks needs another spare: without it, a task
     * that waits for a task of the pool (a join across groups, say) would wait for ever once every
     * worker is blocked too, since the spare was all that ran tasks on that CPU.
     *
     * <p>A block nested in another on the same thread (a blocker whose {@code block()} blocks in a
     * managed block itself) is one wait of that thread: the spare standing in for the outer block
     * stands in for the inner one too, and no second spare shares the CPU with it. Where the outer
     * block found no spare, its request (S7) stands for the inner one too: the inner one makes no
     * request of its own, since each request is served by a spare of its own, and two would bring
     * two spares for one waiting thread once they came free. Such an inner block blocks as the
     * outer one does, but with {@code onlyWithSpare} returns false unless a spare serves the request
     * by now. Only where the outer block has neither (no spares at all) does the inner one look
     * for one. The clock is paused once, and a spare's task has the outermost block's time taken
     * out of its charge, which holds the inner's.
     */
    private static boolean blockStandingIn(ForkJoinPool.ManagedBlocker blocker, boolean onlyWithSpare)
            throws InterruptedException {
        Thread thread = Thread.currentThread();
        if (thread instanceof SpareThreads.SpareThread st) {
            SpareThreads.Spare self = st.spare;
            if (self.blocksWithStandIn || self.blockRequest != null) {
                // nested: the outer block's spare stands in, or its request waits for one
                return blockNested(blocker, self.blocksWithStandIn, self.engine().spares, self.blockRequest,
                        onlyWithSpare);
            }
            // Released (its worker's block ended), a spare still finishes its task on the CPU of the
            // worker it stood in for, and its joins still help there (helpAsSpare): a join's block
            // past the bound on nested helps (onlyWithSpare) brings in a spare for that worker, in
            // place of the helping it would do itself. Any other block of it brings in none: that
            // worker runs, and a spare beside it would run tasks on its CPU for as long as the block lasts.
            Worker standing = self.standingInFor();
            Worker blocked = standing != null ? standing : onlyWithSpare ? self.lastStoodFor : null;
            SpareThreads.Spare other = blocked == null ? null : blocked.engine.spares.standIn(blocked);
            if (other == null && onlyWithSpare) {
                return false;
            }
            boolean outermost = self.blockDepth++ == 0;
            // Only a spare held now: with a request still waiting, a nested join must help on (it
            // returns false from blockNested) rather than block with nobody standing in.
            self.blocksWithStandIn = other != null;
            // The spare's turn pauses as a worker's slice does: a group whose tasks only wait competes for nothing.
            Group turn = self.turnGroup;                 // the ledger's slice, even while another group's task runs inside
            Group paused = outermost && turn != null && self.engine().dispatcher.pauseSlice(turn) ? turn : null;
            // At the bound on spares: the next spare to come free stands in (S7 of SpareThreads).
            SpareThreads.Request late = other == null && blocked != null ? blocked.engine.spares.request(blocked) : null;
            self.blockRequest = late;
            long start = System.nanoTime();
            try {
                blockUntilReleasable(blocker);
            } finally {
                self.blocksWithStandIn = false;          // an outer block here had neither spare nor request, or this is the outermost
                self.blockRequest = null;
                self.blockDepth--;
                if (outermost) {
                    self.blockedNanos += System.nanoTime() - start;
                }
                if (paused != null) {
                    self.engine().dispatcher.resumeSlice(paused);
                }
                if (other != null) {
                    other.release();
                }
                if (late != null) {
                    blocked.engine.spares.endRequest(late);
                }
            }
            return true;
        }
        if (!(thread instanceof WorkerThread wt)) {
            return false;
        }
        Worker worker = wt.worker;
        if (worker.blocksWithStandIn || worker.blockRequest != null) {
            // nested: the outer block's spare stands in, or its request waits for one. The clock is
            // paused again, as it runs for a task run inside the outer block while its request
            // waits (a join's help there, or a wait's run of the task it awaits); otherwise it stands still.
            boolean clockRan = worker.pauseClock();
            try {
                return blockNested(blocker, worker.blocksWithStandIn, worker.engine.spares, worker.blockRequest,
                        onlyWithSpare);
            } finally {
                worker.resumeClock(clockRan);
            }
        }
        boolean clockRan = worker.pauseClock();
        SpareThreads.Spare spare = null;
        SpareThreads.Request late = null;
        try {
            spare = worker.engine.spares.standIn(worker);
            if (spare == null && onlyWithSpare) {
                return false;
            }
            if (spare == null) {
                late = worker.engine.spares.request(worker); // at the bound: the next spare to come free (S7)
            }
            // Only a spare held now, as on a spare: a nested join helps on while the request waits.
            worker.blocksWithStandIn = spare != null;
            worker.blockRequest = late;
            Group paused = worker.pauseSliceActivity();
            try {
                blockUntilReleasable(blocker);
                return true;
            } finally {
                worker.resumeSliceActivity(paused);
            }
        } finally {
            worker.blocksWithStandIn = false;            // an outer block here had neither spare nor request, or this is the outermost
            worker.blockRequest = null;
            if (spare != null) {
                spare.release();                         // whatever the pause did: a held spare never ends
            }
            if (late != null) {
                worker.engine.spares.endRequest(late);
            }
            worker.resumeClock(clockRan);
        }
    }

    /**
     * A block nested in one of the same thread that holds a spare ({@code withSpare}) or a request
     * for one ({@code request}, of {@code spares}): blocks with no spare or request of its own, and
     * returns true; with {@code onlyWithSpare}, returns false at once, without blocking, while the
     * request waits unserved (the join helps on, as where the outer block had found nothing).
     */
    private static boolean blockNested(ForkJoinPool.ManagedBlocker blocker, boolean withSpare, SpareThreads spares,
            SpareThreads.Request request, boolean onlyWithSpare) throws InterruptedException {
        if (onlyWithSpare && !withSpare && !spares.served(request)) {
            return false;
        }
        blockUntilReleasable(blocker);
        return true;
    }

    private static void blockUntilReleasable(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        while (!blocker.isReleasable() && !blocker.block()) {
            // block() returned false: not done yet, block again
        }
    }

    /**
     * For a spare standing in for worker {@code near}: picks a group that worker may serve, takes
     * one of its tasks, runs it and charges the group. Never more than one task (S2 in SpareThreads).
     * Returns false when there was nothing to run.
     */
    boolean runOneTaskAsSpare(int near, SpareThreads.Spare spare) {
        if (isStopping() || !dispatcher.mayHaveWork()) {
            return false;
        }
        Group group = dispatcher.pickForSpare(workers[near].eligible, spare.random);
        if (group == null) {
            return false;
        }
        // Entered before the take, as a worker enters its slice's group before taking: a group's
        // shutdownNow drains the queues and then interrupts the threads running the group, so a task
        // taken before the drain is either interrupted or was entered too late to need it, never
        // run uninterrupted after shutdownNow has returned.
        spare.running.enter(group);
        Runnable task = null;
        try {
            task = takeOne(group, near);
        } finally {
            if (task == null) {                          // none, or a left-over future's cancel() threw
                endEmptySpareTurn(group, spare);
            }
        }
        if (task == null) {
            return false;
        }
        spare.group = group;
        spare.turnGroup = group;
        spare.currentTask = task;
        spare.blockedNanos = 0;
        long wallStart = System.nanoTime();
        long cpuStart = ThreadCpuClock.now();
        try {
            task.run();
        } catch (Throwable failure) {
            reportUncaught(spare.thread, failure);
        } finally {
            spare.currentTask = null;
            spare.group = null;
            spare.turnGroup = null;
            spare.running.exit(group);
        }
        long cpuEnd = ThreadCpuClock.now();
        // CPU time is what the task used, with no blocked time in it; the wall clock needs it taken out.
        long used = ThreadCpuClock.used(cpuStart, cpuEnd, System.nanoTime() - wallStart, spare.blockedNanos);
        group.countCompletedOffLanes();
        spareTasks.increment();
        dispatcher.chargeSpare(group, used);
        return true;
    }

    /**
     * Ends a spare's turn at {@code group} that took no task. The group may be runnable without
     * work (an activation applied after its task was taken). A worker's slice of it would end dry
     * and settle it; a spare's pick charges nothing, so unsettled it would keep the least pass and
     * every later pick would return it again, while other groups' tasks wait for as long as the
     * workers block. Ending the turn settles it, and ends the turn's slice in the ledger, which
     * would otherwise keep the group active for good.
     */
    private void endEmptySpareTurn(Group group, SpareThreads.Spare spare) {
        spare.running.exit(group);
        dispatcher.spareFoundNothing(group);
    }

    /**
     * For a task running on {@code spare} that joins a task of its own group: takes one more task of
     * that group and runs it inside the joining task, whose time the spare charges as a whole; false
     * when there was nothing to take. A spare has no deque, so its forks wait in the group's inboxes,
     * and a join that only waited could wait for ever: the spare may be all that runs tasks on its
     * CPU. One task at a time, taken and run before the next, as S2 requires.
     */
    boolean helpAsSpare(SpareThreads.Spare spare, boolean bounded) {
        Group group = spare.group;
        // Released (its worker's block ended), a spare still helps its own join, on the CPU it is
        // pinned to: its task is what it has to finish, and where every other thread is blocked
        // the tasks the join waits for would have no one else to run them.
        Worker near = spare.lastStoodFor;
        if (group == null || near == null || isStopping() || !group.allows(near.index)) {
            return false;                                // W2: take nothing more once stopping; and keep to the mask
        }
        if (spare.helpDepth >= WorkerContext.helpDepthLimit(bounded)) {
            return false;                                // bounded: the wait becomes a managed block (helpsTooDeep)
        }
        // S6: this spare's own forks first, as a worker's deque; but not inside a task run for its
        // waiter, where they are the waiter's group's forks and this help is the awaited group's.
        Runnable task = spare.group == spare.turnGroup ? spare.pollDeferred() : null;
        if (task == null) {
            task = takeOne(group, near.index);
        }
        if (task == null) {
            return false;
        }
        InterruptOnCancel waitingFuture = spare.runningFuture.leaveForNested(); // first: a cancel(true) of the waiter is not the helped task's
        boolean waiterInterrupted = Thread.interrupted(); // the waiter's, not the helped task's
        Runnable waiter = spare.currentTask;
        spare.helpDepth++;
        spare.currentTask = task;
        try {
            task.run();
        } catch (Throwable failure) {
            reportUncaught(spare.thread, failure);
        } finally {
            spare.currentTask = waiter;
            spare.helpDepth--;
            spare.runningFuture.returnFromNested(waitingFuture);
        }
        afterHelpedTask(group, waiterInterrupted, waiter);
        countSpareTask(group);
        return true;
    }

    /**
     * For a task running on {@code spare} that waits for {@code task} of {@code target} with no
     * other spare to stand in: as {@link Worker#runAwaitedTask}, on the CPU the spare is pinned to.
     * Its time is the waiting task's, whose group is charged for it.
     */
    boolean runAwaitedTaskAsSpare(SpareThreads.Spare spare, Group target, Runnable task, BooleanSupplier claim,
            int maxDepth) {
        Worker near = spare.lastStoodFor;
        if (near == null || spare.helpDepth >= maxDepth) {
            return false;
        }
        Group waiterGroup = spare.group;
        Runnable waiter = spare.currentTask;
        return runAwaitedTask(target, near.index, claim, spare.running, spare.runningFuture, waiterGroup, waiter, () -> {
            spare.group = target;                        // its forks go to target, and it sees target
            spare.currentTask = task;
            spare.helpDepth++;
            try {
                task.run();
            } catch (Throwable failure) {
                reportUncaught(spare.thread, failure);
            } finally {
                spare.helpDepth--;
                spare.currentTask = waiter;
                spare.group = waiterGroup;
            }
        });
    }

    /**
     * For a waiter on worker {@code near}'s CPU ({@link WorkerContext#runAwaitedTask}): unless the pool
     * is stopping, target's mask leaves out that CPU, or target is stopped or terminated, keeps target
     * from terminating while the run lasts (G3: the run is neither a slice nor a spare's turn of it),
     * and, if {@code claim} then claims the awaited task, runs it through {@code run}
     * ({@link #runInsideWaiter}). True when it ran.
     */
    boolean runAwaitedTask(Group target, int near, BooleanSupplier claim, RunningGroup running,
            RunningFuture runningFuture, Group waiterGroup, Runnable waiter, Runnable run) {
        if (isStopping() || !target.allows(near) || !dispatcher.awaitedRunStarted(target)) {
            return false;
        }
        try {
            if (!claim.getAsBoolean()) {
                return false;
            }
            runInsideWaiter(running, runningFuture, target, waiterGroup, waiter, run);
            return true;
        } finally {
            dispatcher.awaitedRunEnded(target);
        }
    }

    /**
     * Runs {@code run}, which runs a task of {@code target} inside a waiting task of
     * {@code waiterGroup} ({@code waiter}, the task the thread runs), with the thread entered in
     * target ({@link RunningGroup#switchTo}), so that target's shutdownNow interrupts it, and then in
     * the group it left again; and with no future's own code running ({@code runningFuture}), so
     * that a cancel(true) of the waiter does not interrupt the run. Interrupts: the waiter's own is taken down first and set again after,
     * as for a join's helped task ({@link #afterHelpedTask}); one that target's or the pool's
     * shutdownNow sent while the thread was still in the waiter's group missed it, and is set before
     * the task runs, as that shutdownNow would have set it.
     */
    private void runInsideWaiter(RunningGroup running, RunningFuture runningFuture, Group target,
            Group waiterGroup, Runnable waiter, Runnable run) {
        InterruptOnCancel waitingFuture = runningFuture.leaveForNested(); // first: a cancel(true) of the waiter is not the run's
        boolean waiterInterrupted = Thread.interrupted(); // the waiter's, not the awaited task's
        Group left = running.switchTo(target);
        Thread.interrupted();                            // landed before the switch: the waiter group's, told below
        if (isStopping() || target.runState() >= Group.STOP) {
            Thread.currentThread().interrupt();
        }
        try {
            run.run();
        } finally {
            running.switchTo(left);
            runningFuture.returnFromNested(waitingFuture);
        }
        afterHelpedTask(waiterGroup, waiterInterrupted, waiter);
    }

    /** A task of {@code group} (null: none) ran on a spare thread: counts it for the group and the pool. */
    void countSpareTask(Group group) {
        if (group != null) {
            group.countCompletedOffLanes();
        }
        spareTasks.increment();
    }

    /**
     * After a task that a worker or spare ran inside a waiting task of {@code waiterGroup} (a join's
     * help), whose interrupt status was taken down before it ran. An interrupt that arrived while the
     * helped task ran was meant for it, a {@code cancel(true)} of it or of a future it wraps (as an
     * ExecutorCompletionService's task does), and was cleared as it returned
     * ({@link RunningFuture#returnFromNested}), as between two tasks of the duty cycle.
     * The interrupts meant for every task that runs, the pool's or the waiter's group's shutdownNow,
     * are told by the state they leave, and set again; so is the waiter's own, if it had one, and
     * the one a {@code cancel(true)} of the waiter itself owes it, if still owed
     * ({@link InterruptOnCancel}): that cancel may have come while the helped task ran. The debt is
     * taken whatever else sets the interrupt, so that no later nested task's end sets it again.
     */
    void afterHelpedTask(Group waiterGroup, boolean waiterInterrupted, Runnable waiter) {
        boolean owed = waiter instanceof InterruptOnCancel cancellable && cancellable.takeOwedInterrupt();
        if (owed || waiterInterrupted || isStopping() || (waiterGroup != null && waiterGroup.runState() >= Group.STOP)) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One task of {@code group} to run: the deques first, starting at {@code near}, then one from an
     * inbox. Once a shutdownNow has drained the group, the forks made after it that no join took back
     * are cancelled as they are taken (W2), and null is returned when none but those was left.
     */
    Runnable takeOne(Group group, int near) {
        return takeOne(group, near, null);
    }

    /**
     * As {@link #takeOne(Group, int)}, for worker {@code taker} (null: a spare), which counts a task
     * taken from another worker's queues as stolen, as its own searches count theirs.
     */
    Runnable takeOne(Group group, int near, Worker taker) {
        boolean drained = group.isStopDrained();         // before the take: see Group.isStopDrained
        Runnable task;
        do {
            task = takeOneQueued(group, near, taker);
        } while (task != null && cancelLeftover(task, drained, group));
        return task;
    }

    /**
     * Before {@link #start}: how the futures among W2's leftovers are settled. The pool's spares a
     * task that a run elsewhere holds already (a RotaTask also invoked, a future its waiter runs),
     * which completes as that run ends; cancelling it would discard the outcome of a task that ran.
     * {@code canceller} returns true when it cancelled nothing: the leftover was done, or a run
     * elsewhere holds it, and it is counted as a completed task of its group, as a drained task
     * that a shutdownNow does not return is ({@link #keepNeverStarted}).
     */
    public void cancelLeftoversWith(Predicate<Future<?>> canceller) {
        leftoverCanceller = Objects.requireNonNull(canceller, "canceller");
    }

    /** Records the public object this engine runs for (see {@link #owner()}); before {@link #start} only. */
    public void ownedBy(Object owner) {
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    /** What {@link #ownedBy} recorded; null if nothing was. */
    public Object owner() {
        return owner;
    }

    /**
     * W2's exception: settles {@code task}, taken from a group's queues by a taker that had read
     * {@link Group#isStopDrained()} (or the pool's) true before the take, if it is a future, so that
     * its joiners are answered ({@link #cancelLeftoversWith}); true for any future, cancelled or left
     * to a run elsewhere that holds it, and the taker then takes the next one instead of running this.
     * A leftover that is not cancelled (done, or held by a run elsewhere) stands for that run, as the
     * queued copy of a task run in place does when a worker takes it, and counts as a completed task
     * of {@code group} (null: of none, and not of the pool either, which counts its groups' tasks).
     */
    boolean cancelLeftover(Runnable task, boolean drainedBeforeTake, Group group) {
        if (drainedBeforeTake && task instanceof Future<?> leftover) {
            if (leftoverCanceller.test(leftover) && group != null) {
                countCompletedOffLanes(group);
            }
            return true;
        }
        return false;
    }

    /** A task of {@code group} that ran, or that stands for a run, counted by no lane: in the group's count and the pool's. */
    private void countCompletedOffLanes(Group group) {
        group.countCompletedOffLanes();
        drainedCompleted.increment();
    }

    /** One task of {@code group}, taken as it is; one from another worker than {@code taker} counts as stolen by it. */
    private Runnable takeOneQueued(Group group, int near, Worker taker) {
        int n = workers.length;
        for (int i = 0; i < n; i++) {
            int w = (near + i) % n;
            Runnable task = group.lanes[w].deque.steal();
            if (task != null) {
                countStolen(taker, w);
                return task;
            }
        }
        for (int i = 0; i < n; i++) {
            int w = (near + i) % n;
            Inbox inbox = group.lanes[w].inbox;
            if (inbox.hasWork() && inbox.tryAcquireConsumer()) {
                Runnable task;
                try {
                    task = inbox.poll();
                } finally {
                    inbox.releaseConsumer();
                }
                if (task != null) {
                    group.tasksTaken(w, 1);
                    countStolen(taker, w);
                    return task;
                }
            }
        }
        return null;
    }

    private static void countStolen(Worker taker, int from) {
        if (taker != null && taker.index != from) {
            taker.countSteals(1);
        }
    }

    Affinity affinity() {
        return affinity;
    }

    boolean pinning() {
        return pinning;
    }

    /** Tasks run by spare threads so far. */
    public long spareTasksRun() {
        return spareTasks.sum();
    }

    /**
     * Tasks that a shutdownNow drained and did not return so far, counted as completed as their
     * groups count them: a task its waiter ran in place (the drained copy stands for that run), or
     * one done already (cancelled by the user), as a worker counts it when it skips it.
     */
    public long drainedCompletedTasks() {
        return drainedCompleted.sum();
    }

    /** The spare threads (for the package's tests). */
    SpareThreads spares() {
        return spares;
    }

    /** Spare threads alive now. */
    public int spareThreads() {
        return spares.count();
    }

    /** Hands {@code failure}, escaping a task run on {@code thread}, to the thread's handler. */
    public void reportUncaught(Thread thread, Throwable failure) {
        try {
            Thread.UncaughtExceptionHandler h = thread.getUncaughtExceptionHandler();
            h.uncaughtException(thread, failure);
        } catch (Throwable ignored) {
            // A failing handler must not take the worker down; the JDK ignores such failures too.
        }
    }

    // ---- shutdown -----------------------------------------------------------------------------

    public void shutdown() {
        advanceRunState(SHUTDOWN);
        dispatcher.closeAll();                           // E1: every admission of every group
        wakeAll();
    }

    /**
     * E3: returns every accepted task that no worker has taken, each exactly once. Only the call
     * that moves the pool to STOP drains it; later or concurrent calls return an empty list.
     */
    public List<Runnable> shutdownNow() {
        return shutdownNow(task -> true);
    }

    /**
     * As {@link #shutdownNow()}, and returns only the drained tasks that {@code neverStarted} accepts;
     * see {@link #keepNeverStarted} for the others. It settles each task before the pool can
     * terminate (no worker exits before stopDrained is set, see cancelLeftovers), so that the pool
     * may complete the futures among them first: a thread that sees the pool terminated then finds
     * them done. It must not block; the workers wait for it.
     */
    public List<Runnable> shutdownNow(Predicate<Runnable> neverStarted) {
        List<Runnable> returned = new ArrayList<>();
        if (!advanceRunState(STOP)) {
            return returned;
        }
        dispatcher.closeAll();
        Group[] drained = dispatcher.groups();
        int held = 0;
        try {
            for (Group group : drained) {
                dispatcher.drainStarted(group);          // G3: none terminates before its drain is settled
                held++;
            }
            List<List<Runnable>> tasksOf = new ArrayList<>(drained.length);
            synchronized (stopLock) {
                for (Group group : drained) {
                    group.advanceRunState(Group.STOP);
                    List<Runnable> tasks = new ArrayList<>();
                    group.drainTo(tasks);
                    group.markStopDrained();
                    tasksOf.add(tasks);
                }
            }
            try {
                for (int i = 0; i < drained.length; i++) {
                    keepNeverStarted(drained[i], tasksOf.get(i), neverStarted, returned);
                }
            } finally {
                stopDrained = true;                      // the workers may exit, and the pool terminate
            }
        } finally {
            for (Worker w : workers) {
                w.thread.interrupt();
            }
            spares.interruptAll();
            // G3 per group, as a group's own shutdownNow does: a drained group none of whose tasks
            // runs terminates now, not with the last worker, which another group's task may hold for
            // long. One whose task still runs terminates when that slice or spare's turn ends.
            for (int i = 0; i < held; i++) {
                dispatcher.drainSettled(drained[i]);
            }
            wakeAll();
        }
        return returned;
    }

    /**
     * Adds to {@code returned} the tasks of {@code group}'s drain that {@code neverStarted} accepts
     * (it settles each task it is asked about: a future it does not return is done, or completes as
     * a run elsewhere ends). Every other one counts as a completed task of the group, as it would
     * had a worker taken it and found it started or done (a future its waiter ran, a task the user
     * cancelled). Called while the group is held off termination ({@link Dispatcher#drainStarted}),
     * so its futures are settled and its figures final once it terminates.
     */
    private void keepNeverStarted(Group group, List<Runnable> drained, Predicate<Runnable> neverStarted,
            List<Runnable> returned) {
        for (Runnable task : drained) {
            if (neverStarted.test(task)) {
                returned.add(task);
            } else {
                countCompletedOffLanes(group);
            }
        }
    }

    /**
     * E3 for one group: refuses its submissions, returns its tasks that no worker has taken, each
     * exactly once, and interrupts the workers running its tasks. Only the call that moves the group
     * to STOP drains it.
     */
    public List<Runnable> shutdownNow(Group group) {
        return shutdownNow(group, task -> true);
    }

    /**
     * As {@link #shutdownNow(Group)}, and returns only the drained tasks that {@code neverStarted}
     * accepts ({@link #keepNeverStarted}), settled before the group, or the pool, may terminate: it
     * must not block, least of all on either's termination.
     */
    public List<Runnable> shutdownNow(Group group, Predicate<Runnable> neverStarted) {
        List<Runnable> returned = new ArrayList<>();
        if (!group.advanceRunState(Group.STOP)) {
            return returned;
        }
        group.closeAdmission();
        if (!enterAsParticipant()) {
            return returned;                             // every worker has left, its queues empty: the pool ends the group
        }
        try {
            dispatcher.drainStarted(group);              // G3: it does not terminate before its drain is settled
            try {
                List<Runnable> drained = new ArrayList<>();
                synchronized (stopLock) {
                    group.drainTo(drained);
                    group.markStopDrained();             // W2: what is taken from now on is a fork made after the drain
                }
                try {
                    keepNeverStarted(group, drained, neverStarted, returned);
                } finally {
                    for (Worker w : workers) {           // after the settling: a waiter sees its task cancelled first
                        w.interruptIfRunning(group);
                    }
                    spares.interruptRunning(group);
                }
            } finally {
                dispatcher.drainSettled(group);          // terminates it now if nothing of it is left
            }
            return returned;
        } finally {
            participantExited();                         // E4: the pool may terminate now, not before
        }
    }

    /**
     * A thread other than a worker or spare that must finish a step before the pool may terminate (a
     * group's shutdownNow settling its drain, on the caller's thread): E4 counts it as it counts a
     * spare, until {@link #participantExited}. False, counting nothing, once the last participant
     * has left (the pool and its groups reach TERMINATED a moment later, on that participant's thread).
     */
    private boolean enterAsParticipant() {
        int live;
        do {
            live = liveWorkers.get();
            if (live == 0) {
                return false;
            }
        } while (!liveWorkers.compareAndSet(live, live + 1));
        return true;
    }

    /** Moves the run state up to {@code target}; true when this call made the move. */
    private boolean advanceRunState(int target) {
        int s;
        do {
            s = runState;
            if (s >= target) {
                return false;
            }
        } while (!RUN_STATE.compareAndSet(this, s, target));
        return true;
    }

    /**
     * W6 for a submission refused after its group's admission closed ({@link Group#refusedAsClosed}):
     * a worker whose last look before parking came while the refused reservation stood saw a task on
     * its way in, found that it may not exit yet (E2), and parked; nothing is offered afterwards to
     * wake it, so once the pool is shut down the refusal wakes the parked workers to look again. The
     * withdrawal, a read-modify-write, comes before the reads of their park states here, and a
     * parking worker publishes PARKED and fences before its look: either the look sees the
     * withdrawal or this sees the worker parked. The run state read here sees the shutdown whenever
     * such a look did, since that look came before the withdrawal.
     */
    void refusalWithdrawn() {
        if (runState >= SHUTDOWN) {
            wakeAll();
        }
    }

    private void wakeAll() {
        for (Worker w : workers) {
            w.wake();
        }
    }

    public boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    /**
     * True when every worker {@code mask} allows has exited (only ever after shutdown, E2): a group
     * so masked may run on the workers left (W5). Each worker publishes its exit before it wakes
     * the parked ones, so a worker woken by that exit sees it.
     */
    boolean allExited(WorkerMask mask) {
        if (runState < SHUTDOWN) {
            return false;
        }
        for (int w : mask.workers()) {
            if (!workers[w].hasExited()) {
                return false;
            }
        }
        return true;
    }

    /** True once awaitTermination would return true: the latch, counted down last, is the one fact. */
    public boolean isTerminated() {
        return terminated.getCount() == 0;
    }

    /** As {@link Group#awaitTermination}: true at once if terminated, even on an interrupted thread. */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return isTerminated() || terminated.await(timeout, unit);
    }

    // ---- observation --------------------------------------------------------------------------

    /**
     * True when, at one instant, no task of this pool was queued and none ran on a worker or a spare
     * (as {@code ForkJoinPool.isQuiescent()}; delayed tasks not yet due are not counted). Two scans
     * of the workers, with the queues read between them:
     * <ul>
     *   <li>Q1: a scan reads each worker's park state (volatile), then its count of tasks run. A
     *       worker counts a task once it has returned and publishes PARKED only after that, so a
     *       scan that sees a PARKED written after a task sees the task counted, and every write the
     *       task made (the volatile read synchronizes with the write of PARKED).</li>
     *   <li>Q2: a worker PARKED at both scans with the same count ran no task between them (a task
     *       run in between is either still running at the second scan, ACTIVE, or counted), and so
     *       moved none between queues either: only workers move tasks. The queues read between the
     *       scans are then all that waits, less a task offered while they were read, which makes the
     *       pool busy again after the instant this answers for, as any later submission does.</li>
     *   <li>Q3: a spare that stands in counts as a participant from its assignment until its last
     *       task has finished (S3 of SpareThreads), so {@code liveWorkers} above the workers that have
     *       not exited, at either scan, is a task that runs. So is a worker that has published its
     *       exit but still settles its leftover forks after shutdown: it leaves {@code liveWorkers}
     *       only after that (E4). A group's shutdownNow settling its drain counts too: the pool is
     *       not quiescent while it lasts.</li>
     * </ul>
     */
    public boolean isQuiescent() {
        if (isTerminated()) {
            return true;
        }
        long[] runs = new long[workers.length];
        if (!idleAtScan(runs, true)) {
            return false;
        }
        for (Group group : dispatcher.groups()) {
            if (group.queuedTasks() > 0) {
                return false;
            }
        }
        return idleAtScan(runs, false);
    }

    /** One scan of {@link #isQuiescent()}: the first records each worker's count in {@code runs}, the second compares. */
    private boolean idleAtScan(long[] runs, boolean first) {
        int notExited = 0;
        for (int i = 0; i < workers.length; i++) {
            Worker worker = workers[i];
            if (worker.hasExited()) {
                continue;
            }
            notExited++;
            if (!worker.isParked()) {                    // Q1: the volatile read first
                return false;
            }
            long counted = worker.tasksRun();
            if (first) {
                runs[i] = counted;
            } else if (runs[i] != counted) {             // Q2
                return false;
            }
        }
        return liveWorkers.get() <= notExited;           // Q3: no spare stands in
    }

    /** The worker at {@code index} (for a wake-up, and for the package's tests). */
    Worker worker(int index) {
        return workers[index];
    }

    public int workerCount() {
        return workers.length;
    }

    public long tasksRun(int worker) {
        return workers[worker].tasksRun();
    }

    /**
     * The time the workers' paced looks have given to other threads so far, inside busy stretches
     * ({@link Worker#PACED_TAKE}): time of the workers' that no slice was charged with, though a
     * slice was open.
     */
    public long yieldedNanos() {
        long sum = 0;
        for (Worker worker : workers) {
            sum += worker.yielded();
        }
        return sum;
    }

    public long steals(int worker) {
        return workers[worker].steals();
    }

    public long parks(int worker) {
        return workers[worker].parks();
    }

    public int queued(int worker) {
        int sum = 0;
        for (Group group : dispatcher.groups()) {
            sum += group.lanes[worker].size();
        }
        return sum;
    }

    public boolean isParked(int worker) {
        return workers[worker].isParked();
    }

    public String stateName() {
        return switch (runState) {
            case RUNNING -> "Running";
            case SHUTDOWN -> "Shutting down";
            case STOP -> "Stopping";
            default -> "Terminated";
        };
    }
}
