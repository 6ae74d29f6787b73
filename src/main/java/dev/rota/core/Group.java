package dev.rota.core;

import dev.rota.share.ClientNode;
import dev.rota.share.Ticket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * One task group inside the engine: a lane (inbox and deque) on every worker, admission into a
 * bounded queue, the lock-free half of its activation, its CPU mask, its run state and figures. The
 * share of CPU time it gets is decided by the {@link Dispatcher}, which owns its ledger entry.
 *
 * <p>Invariants:
 * <ul>
 *   <li>G1 (admission): the {@link Admission} counts tasks reserved or sitting in inboxes; a
 *       reservation is made before an offer, and a task counts as taken only after a worker has
 *       moved it into a deque (or taken it to run), so no task pending there with every deque empty
 *       means the group holds no task waiting to run.</li>
 *   <li>G2 (activation, with {@link Dispatcher}): while the group holds a task, it is runnable in
 *       the ledger or an activation of it is queued (or about to be, by the submitter that set
 *       {@code PENDING}). A submitter offers, then reads the activation state; the dispatcher
 *       writes {@code IDLE}, then re-reads the queues: both through volatile accesses, so at least
 *       one of them sees the other (the same pairing as the park protocol W3). A fork's push is a
 *       release store, which the read could pass: {@code Worker.pushFork} fences between the two
 *       where the forking worker will not run the fork itself; elsewhere the forking worker's slice
 *       end reconciles the group, and a worker that sees the fork in its last look before parking
 *       queues the activation itself ({@code Worker.seesWork}).</li>
 *   <li>G3 (run state, only increasing): {@code OPEN → SHUTDOWN → STOP → TERMINATED}. Closing
 *       the admission refuses later offers; the group terminates once it is shut down, its
 *       admission closed, no accepted task is on its way into an inbox or waiting in a queue, no
 *       slice of it runs, no spare's turn at it is open (a spare that picked it may hold its
 *       last task: see {@link Dispatcher#pickForSpare}), and no waiter runs a task of it in place
 *       ({@link Dispatcher#awaitedRunStarted}).</li>
 * </ul>
 */
public final class Group extends GroupActivationFields {
    /** Results of {@link #offer}. */
    public static final int ACCEPTED = 0;
    public static final int FULL = 1;
    public static final int CLOSED = 2;

    /** Queue capacity meaning "no bound". */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    static final int IDLE = 0;
    static final int PENDING = 1;
    static final int ACTIVE = 2;

    static final int OPEN = 0;
    static final int SHUTDOWN = 1;
    static final int STOP = 2;
    static final int TERMINATED = 3;

    final String name;
    /** This group's entry in the ledger; written once under the dispatcher's lock before publication. */
    final ClientNode client;

    /*
     * Layout: the routing fields every submission reads come first, then the activation state, each
     * on a line of its own (see GroupRoutingFields). This class's longs follow in declaration order:
     * the padding keeps the per-slice figures off the activation state's line and off the references,
     * read seldom, that HotSpot lays out after them.
     */
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17, p18;
    // Under the dispatcher's lock, once per slice; volatile so that figures can be read without it.
    volatile long cpuTimeNanos;
    volatile long slices;
    volatile long longestSliceNanos;
    /** Spares that picked this group and have not yet ended that turn (G3); under the dispatcher's lock. */
    int spareTurns;
    /**
     * What holds this group off termination besides its queues, slices and spares' turns (G3): waiters
     * running a task of it in place, and a shutdownNow settling what it drained. Under the
     * dispatcher's lock.
     */
    int terminationHolds;
    /**
     * Loans of this group's tickets not yet repaid (waits and {@code lendTo}), each to a live group: a
     * borrower's termination ends the loans it holds. Under the dispatcher's lock.
     */
    final List<Ticket> loansOut = new ArrayList<>();
    /**
     * The mask this group is counted under in the dispatcher's runnable counts per worker (D3) while
     * it is runnable; under the dispatcher's lock. It trails {@link #mask} from a mask change until
     * the dispatcher hears of it.
     */
    WorkerMask countedMask;
    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;

    private final LongAdder rejected = new LongAdder();
    private final LongAdder completedOffLanes = new LongAdder();
    private final CountDownLatch terminated = new CountDownLatch(1);

    Group(Engine engine, String name, ClientNode client, int capacity, int inboxChunk) {
        super(engine, capacity);
        this.name = name;
        this.client = client;
        for (int w = 0; w < lanes.length; w++) {
            lanes[w] = new Lane(this, w, inboxChunk);
        }
    }

    public String name() {
        return name;
    }

    /** This group's entry in the ledger; read it under the dispatcher's lock. */
    public ClientNode client() {
        return client;
    }

    public Dispatcher dispatcher() {
        return engine.dispatcher();
    }

    // ---- submission -------------------------------------------------------------------------

    /**
     * Queues {@code task}: on the caller's own lane when the caller is a worker allowed to run this
     * group, else on the lane {@link SubmitterLanes} gives the caller's thread (so one outside thread
     * keeps to one inbox, and moves on when it keeps meeting another outside thread there). Then
     * makes sure the group will be picked (G2) and wakes a worker.
     *
     * <p>A refused admission stood for a moment; a shutdown that looked at the group then saw it as
     * work and did not terminate the group (G3), and with the workers parked nothing would look
     * again. So a submitter refused as CLOSED (the admission was closed when it withdrew) asks the
     * dispatcher to look again, and wakes the parked workers ({@link #refusedAsClosed}). The
     * withdrawal and the close of the lane's admission stripe are read-modify-writes of the stripe's
     * one word, so either the close comes first and the withdrawal sees it, or the withdrawal comes
     * first and every look after the close sees it.
     *
     * @return {@link #ACCEPTED}, {@link #FULL} (the queue is at capacity) or {@link #CLOSED} (shut down)
     */
    public int offer(Runnable task) {
        return offer(task, false, null);
    }

    /**
     * As {@link #offer(Runnable)}, and calls {@code accepted} with the task and this group once the
     * admission has taken the task, before the task is published in an inbox (whose release store
     * makes what {@code accepted} wrote visible to the thread that takes the task); never for a task
     * refused, which is left as it was. {@code accepted} must not throw: the admission has counted
     * the task (G1), and only the offer that follows takes that count back.
     */
    public int offer(Runnable task, BiConsumer<Runnable, Group> accepted) {
        return offer(task, false, accepted);
    }

    /**
     * As {@link #offer}, but never refused as {@link #FULL}: for a task that was accepted earlier,
     * a delayed task coming due. It counts against the bound like any queued task, so that plain
     * submissions are refused until the queue is below its capacity again; the bound is passed only
     * by tasks that came due while it was full, which the pool held already.
     *
     * @return {@link #ACCEPTED} or {@link #CLOSED}
     */
    public int offerPastBound(Runnable task) {
        return offer(task, true, null);
    }

    private int offer(Runnable task, boolean pastBound, BiConsumer<Runnable, Group> accepted) {
        if (runState != OPEN) {                          // a plain read: no write after shutdown
            return CLOSED;
        }
        Thread thread = Thread.currentThread();
        WorkerMask m = mask;
        int w;
        boolean outside = true;
        if (thread instanceof WorkerThread wt && wt.worker.engine == engine && m.allows(wt.worker.index)) {
            w = wt.worker.index;
            outside = false;
        } else {
            int[] allowed = m.workers();
            w = allowed[engine.submitterLanes().lane(thread.threadId(), allowed.length)];
        }
        int admitted = pastBound ? admission.admitPastBound(w) : admission.admit(w);
        if (admitted != ACCEPTED) {
            if (admitted == CLOSED) {
                refusedAsClosed();
            }
            return admitted;
        }
        if (accepted != null) {
            accepted.accept(task, this);                 // before the offer publishes the task
        }
        lanes[w].inbox.offer(task);
        noteWork();                                      // G2: after the offer
        engine.signalWork(this, w);                      // W3: after the offer
        if (outside && admission.noteOutsideSubmitter(w, thread.threadId())) {
            engine.submitterLanes().noteShared(thread.threadId());
        }
        return ACCEPTED;
    }

    /**
     * A submission was refused as CLOSED, its reservation withdrawn. For a moment the reservation
     * counted as a task on its way in, and two kinds of look may have taken it for one: a shutdown's,
     * which then did not terminate the group (G3), so the dispatcher looks again; and a worker's last
     * look before parking after the pool's shutdown, which then found that it may not exit yet (E2)
     * and parked (W6), with no offer to come that would wake it, so the parked workers are woken to
     * look again ({@link Engine#refusalWithdrawn}). Called after the withdrawal.
     */
    void refusedAsClosed() {
        engine.dispatcher().settle(this);                // G3
        engine.refusalWithdrawn();                       // W6
    }

    /**
     * G2, the submitter's side: after its task is visible in a queue, a submitter that finds the
     * group IDLE queues its activation, exactly one submitter per idle spell (the CAS).
     */
    void noteWork() {
        if (activation == IDLE && ACTIVATION.compareAndSet(this, IDLE, PENDING)) {
            engine.dispatcher().queueActivation(this);
        }
    }

    /** Counts {@code n} tasks moved out of the inbox of lane {@code w} (G1: after the move). */
    void tasksTaken(int w, int n) {
        admission.taken(w, n);
    }

    /** As {@link #tasksTaken}, called by worker {@code w} itself for its own lane, and by no other thread. */
    void tasksTakenByOwner(int w, int n) {
        admission.takenByOwner(w, n);
    }

    /** Counts a submission refused because the queue was full or the group shut down. */
    public void countRejected() {
        rejected.increment();
    }

    // ---- activation (the dispatcher's side of G2; under its lock) ----------------------------

    int activation() {
        return activation;
    }

    void setActivation(int state) {
        ACTIVATION.setVolatile(this, state);
    }

    boolean casActivation(int expected, int state) {
        return ACTIVATION.compareAndSet(this, expected, state);
    }

    /** True when some task of this group waits in a queue or is on its way into one (volatile reads). */
    boolean hasWork() {
        if (admission.pending() > 0) {
            return true;
        }
        for (Lane lane : lanes) {
            if (!lane.deque.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    // ---- CPU mask -------------------------------------------------------------------------------

    /**
     * True when worker {@code w} may run this group's tasks: its mask allows it, or every worker the
     * mask allows has exited. After shutdown a worker with nothing left to run exits (E2), and a task
     * of this group still running on a worker the mask excludes may fork after the allowed ones have
     * gone; the mask then lapses, and the workers left finish what remains (W5).
     */
    public boolean allows(int w) {
        WorkerMask m = mask;
        return m.allows(w) || engine.allExited(m);
    }

    /**
     * Restricts the group to the given workers. Tasks already queued on other workers' lanes are
     * stolen by allowed workers, so none is stranded.
     *
     * <p>A worker parks once no group it may serve has work (W3), so a worker that parked while this
     * group excluded it stays parked when the mask lets it in, and a narrowed mask may leave the
     * group's queued tasks to workers that are all parked. Only an offer wakes a worker, so when the
     * group holds tasks the change wakes every parked worker the new mask allows. The mask is
     * written (volatile) before the parked states are read, and a parking worker publishes PARKED
     * before it reads the mask, so either the worker sees the new mask and the group's work, or this
     * call sees it parked. An offer routed by the old mask meanwhile is found by the look for work
     * here, or its wake-up ({@link Engine#signalWork}) reads the mask after its reservation, and so
     * after the write here, and wakes a worker the new mask allows.
     */
    public void restrictTo(WorkerMask newMask) {
        if (newMask.allows().length != lanes.length) {
            throw new IllegalArgumentException("mask for " + newMask.allows().length + " workers, pool has " + lanes.length);
        }
        mask = newMask;
        engine.dispatcher().maskChanged(this);
        if (hasWork()) {
            for (int w : newMask.workers()) {
                engine.worker(w).wake();
            }
        }
    }

    public WorkerMask mask() {
        return mask;
    }

    // ---- capacity -------------------------------------------------------------------------------

    public int capacity() {
        return admission.capacity();
    }

    /** Changes the bound on queued tasks; tasks already queued above a lowered bound stay queued. */
    public void setCapacity(int capacity) {
        admission.setCapacity(capacity);
    }

    // ---- run state ----------------------------------------------------------------------------

    /** Moves the run state up to {@code target}; true when this call made the move. */
    boolean advanceRunState(int target) {
        int s;
        do {
            s = runState;
            if (s >= target) {
                return false;
            }
        } while (!RUN_STATE.compareAndSet(this, s, target));
        return true;
    }

    int runState() {
        return runState;
    }

    /** The run state in words, for {@code toString}: as the pool's (G3). */
    public String stateName() {
        return switch (runState) {
            case OPEN -> "Running";
            case SHUTDOWN -> "Shutting down";
            case STOP -> "Stopping";
            default -> "Terminated";
        };
    }

    /**
     * True once a shutdownNow has drained this group's queues (E3). Read it before taking a task:
     * it is set after the drain found every deque empty, with every inbox's consumer token the
     * drain's for good, so a task taken after it read true was pushed after the drain looked, a fork
     * made after the drain, which no shutdownNow returns (W2). A task taken before it is set may be
     * one the drain would have returned; it runs, as any task taken while a drain goes on.
     */
    boolean isStopDrained() {
        return stopDrained;
    }

    /** After {@link #drainTo}, under the engine's stop lock. */
    void markStopDrained() {
        stopDrained = true;
    }

    public boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    /** True once awaitTermination would return true: the latch, counted down last, is the one fact. */
    public boolean isTerminated() {
        return terminated.getCount() == 0;
    }

    /** Refuses later submissions (G3); the run state, written before, is only offer's fast check. */
    void closeAdmission() {
        admission.close();
    }

    /** True once no submission can be accepted any more; whether one is still on its way in, {@link #hasWork} says. */
    boolean admissionClosed() {
        return admission.isClosed();
    }

    /** Marks the group terminated; under the dispatcher's lock, once. */
    void terminate() {
        RUN_STATE.setVolatile(this, TERMINATED);
        terminated.countDown();
    }

    /**
     * Waits up to {@code timeout} for the group to terminate. Returns true at once if it has, even on
     * an interrupted thread, as the JDK's pools do: there is then no wait for an interrupt to end.
     */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return isTerminated() || terminated.await(timeout, unit);
    }

    /**
     * Moves every task that no worker has taken into {@code sink}, each exactly once (E3 for one
     * group). With the admission closed, takes each inbox's consumer token for good (skipping one
     * another stopper took, which drains that inbox), then drains the inboxes until every accepted
     * task is taken (A4): a submitter that reserved before the close may still be offering, for a
     * few instructions. Then steals every deque empty.
     */
    void drainTo(List<Runnable> sink) {
        boolean[] mine = new boolean[lanes.length];
        for (int w = 0; w < lanes.length; w++) {
            mine[w] = lanes[w].inbox.stopConsumer();
        }
        for (int round = 1; ; round++) {
            for (int w = 0; w < lanes.length; w++) {
                if (mine[w]) {
                    int n = 0;
                    Runnable task;
                    while ((task = lanes[w].inbox.poll()) != null) {
                        sink.add(task);
                        n++;
                    }
                    if (n > 0) {
                        tasksTaken(w, n);                // no write on the workers' line for an empty round
                    }
                }
            }
            if (admission.pending() == 0) {
                break;
            }
            if ((round & 63) == 0) {
                Thread.yield();                          // the submitter may have lost its CPU
            } else {
                Thread.onSpinWait();
            }
        }
        for (Lane lane : lanes) {
            while (!lane.deque.isEmpty()) {
                Runnable task = lane.deque.steal();
                if (task != null) {
                    sink.add(task);
                }
            }
        }
    }

    // ---- figures ------------------------------------------------------------------------------

    public long cpuTimeNanos() {
        return cpuTimeNanos;
    }

    public long completedTasks() {
        long sum = completedOffLanes.sum();
        for (Lane lane : lanes) {
            sum += lane.completed();
        }
        return sum;
    }

    /** Counts a completed task that no lane counts: one a spare ran, or a drained copy of a task that ran elsewhere. */
    void countCompletedOffLanes() {
        completedOffLanes.increment();
    }

    /** Tasks accepted and not yet started (an estimate while tasks move). */
    public long queuedTasks() {
        long sum = admission.pending();
        for (Lane lane : lanes) {
            sum += lane.deque.size();
        }
        return sum;
    }

    public long rejectedTasks() {
        return rejected.sum();
    }

    /** Slices charged so far (a spare's task counts as one): how often the policy chose this group. */
    public long slices() {
        return slices;
    }

    /** The longest slice charged so far. */
    public long longestSliceNanos() {
        return longestSliceNanos;
    }

    /** Under the dispatcher's lock: charges one slice's time to the figures. */
    void chargeFigures(long usedNanos) {
        cpuTimeNanos += usedNanos;
        slices++;
        if (usedNanos > longestSliceNanos) {
            longestSliceNanos = usedNanos;
        }
    }

    /** Tasks of this group run by worker {@code w} (spares not included). */
    public long completedOn(int w) {
        return lanes[w].completed();
    }

    @Override
    public String toString() {
        return "group " + name;
    }
}
