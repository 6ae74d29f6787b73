package dev.rota.core;

import dev.rota.affinity.PinResult;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.SplittableRandom;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;

/**
 * One worker: a thread pinned to one CPU, its {@link Lane} of every group, and its duty cycle:
 * serve a slice of the group the {@link Dispatcher} picked (own lane's deque, own lane's inbox, then
 * that group's lanes on the other workers), and when there is nothing, back off and park.
 *
 * <p>Invariants:
 * <ul>
 *   <li>W1: a task moved out of an inbox is pushed onto this worker's deque of the same group (or
 *       run) while the inbox's consumer token is still held, so whoever holds every token sees
 *       every task that left the inboxes already in a deque ({@link Engine#shutdownNow()} relies on
 *       this).</li>
 *   <li>W2: a task taken from any queue is run, whatever the pool's state: only taking is refused
 *       once the pool stops. Hence accepted = run + returned by shutdownNow. One exception: a future
 *       taken once a shutdownNow (the pool's, or the group's) has drained its group is a fork made
 *       after the drain by a task that kept running, and is cancelled instead, so that its joiners
 *       are answered, unless a run elsewhere holds it already, which completes it
 *       ({@link Group#isStopDrained}, {@link Engine#cancelLeftover}, {@link #cancelLeftovers}); a join still takes its
 *       own fork back and runs it ({@link #runIfUnpushed}). Such forks left on this worker's deque
 *       are cancelled as its slice of their group ends ({@link #cancelForksLeftBehind}), and those of
 *       every group as it exits after the pool's stop, so that none keeps its group from
 *       terminating (G3) until some worker comes by to take it.</li>
 *   <li>W3 (no lost wake-up): a worker counts itself parked and publishes {@code PARKED}, then
 *       searches once more before it sleeps; a producer offers, then reads the parked count. Both
 *       sides are sequentially consistent, so either the producer sees the count and wakes a
 *       worker, or the worker's last search sees the task. The count never falls below the
 *       workers that are {@code PARKED}: a worker counts itself before it publishes the state, and
 *       only the one thread that moves it back to {@code ACTIVE} takes the count down; so a count
 *       of 0 means that no worker is parked. A producer that sees the count but not yet the state
 *       read both before the worker's search, which then sees the task.</li>
 *   <li>W4 (slices): every task this worker runs belongs to the group of its open slice, or was
 *       taken while helping inside one of that group's tasks; the slice is charged with the time
 *       between the start and the end of each busy stretch in it (one clock read each), not with
 *       idle time, nor with the time a paced look gives away ({@link #PACED_TAKE}; that time still
 *       counts toward the slice's quantum), nor with the slice decision that opened it, nor with
 *       the charge of a part of it (the dispatcher's lock, a wait for it, the pick). A slice whose
 *       group has run dry stays open while no other group that this worker may serve has work (the
 *       dispatcher's count per worker, D3), so that a group fed one task at a time costs no lock
 *       per task, even beside groups confined to other workers; it
 *       ends after {@link #DRY_SLICE_SEARCHES} empty searches, so that a group with nothing to run
 *       does not stay active for long, and always before parking. A join inside one of the slice's
 *       tasks helps with the group's tasks within the slice; once the slice has used its quantum
 *       while another group this worker may serve has work, the time so far is charged and the
 *       join blocks with a spare standing in ({@link #joinYieldsSlice}). Before a dry slice ends,
 *       the worker looks once more for its group's tasks in the inboxes of the
 *       {@link #DRY_LOOK_VICTIMS} nearest other workers. After the pool's stop, a task's join may
 *       finish the forks left on any of this worker's deques ({@link #helpOnce}); nothing is
 *       charged then.</li>
 *   <li>W5 (masks): a worker takes no task of a group whose mask excludes it, once it has read that
 *       mask: its next search ends a slice of the group, and a join there does not help. A slice is
 *       charged only for busy time, so without that check one fed a task at a time would stay open,
 *       taking the group's tasks from the lanes of the workers it was moved to, for as long as the
 *       group kept having work. A task taken before the change still runs here, and so does a fork
 *       it joins that is still the newest on this worker's deque (taken back as any join takes its
 *       own fork): that fork is part of the task running here, and a join that left it to the
 *       allowed workers would wait on them, for ever if they were blocked on this task or had
 *       exited after shutdown. Other tasks moved onto this worker's deque by then, and forks not
 *       joined, are stolen by the allowed workers. A mask lapses once every worker it allows has
 *       exited after shutdown (E2; {@link Group#allows}): a task of the group still running
 *       elsewhere may have forked after they left, and the workers left finish it; each exit raises
 *       the dispatcher's version, so that a worker whose last pick found nothing picks again.</li>
 *   <li>W6 (exit after shutdown): a worker that may not exit yet (E2) but finds nothing it may run
 *       parks as it would before shutdown; each worker that exits first wakes every parked one.
 *       While a task is left, a worker its group allows is awake (it saw the task, or the offer
 *       woke it, W3) or blocked under a spare that may run it; however the task ends (run by that
 *       worker or a spare, or drained by a shutdownNow of its group), that worker then looks again,
 *       finds that it may exit, and wakes the others. A submission refused after shutdown stood for
 *       a task on its way in until it was withdrawn; the refused submitter wakes the parked workers
 *       ({@link Engine#refusalWithdrawn}). A pool's shutdownNow wakes every worker itself.</li>
 * </ul>
 */
final class Worker implements Runnable {
    static final int ACTIVE = 0;
    static final int PARKED = 1;

    /** Most tasks moved from an inbox in one go; bounds the time the consumer token is held. */
    static final int BATCH = 64;
    /**
     * Searches that find the slice's group nowhere but in other workers' inboxes look into those
     * inboxes only once in this many (a power of two). An inbox is its owner's to drain; another
     * worker takes from it when the owner is held up by a long task, which a few searches more do
     * not change. But looking costs a read of the inbox's producer index, the line its submitters
     * write on every offer, and an idle worker searches every few hundred nanoseconds: at every
     * search, those reads would cost the submitters a cache miss on most offers.
     */
    static final int INBOX_STEAL_PERIOD = 8;
    /**
     * Most tasks the last look before a dry slice ends takes from another worker's inbox. A slice
     * runs dry far more often than its group does: with a few groups fed from outside, a worker's
     * own queues empty many times a millisecond while the other inboxes still hold that group's
     * tasks, and ending the slice there costs a pick and a clock read for a handful of tasks. A
     * fixed batch, because halving {@link Inbox#size()} would read the producers' index, the
     * submitters' line, on every such look.
     */
    static final int DRY_LOOK_BATCH = 16;
    /**
     * Inboxes the last look before a dry slice ends tries, nearest first (the victims' topology
     * order). Each try is a CAS on a line its owner writes, so the bound keeps the cost of a dry
     * slice end independent of the pool's size; the periodic look in {@link #stealInSlice()} still
     * reaches every inbox.
     */
    static final int DRY_LOOK_VICTIMS = 2;
    /**
     * Empty searches a dry slice is kept open for while no other group this worker may serve has
     * work (W4). Kept open, the slice costs a group fed one task at a time no lock per task, but it
     * also keeps the group active in the ledger, its tickets counting in its currency although it
     * has nothing to run, so that its sibling groups there get less on the other CPUs. A slice that
     * has found nothing for this many searches ends, and the group goes inactive until its next
     * task. That is some 2 µs of the idle backoff's first pauses and yields, and the searches
     * themselves: a few microseconds on a CPU with nothing else to run. A stream of tasks closer
     * together than that still takes no lock per task; a sparser one takes the lock twice per task
     * (the slice's end, and the pick when the task comes), small beside the gap between its tasks.
     */
    static final int DRY_SLICE_SEARCHES = 32;
    /**
     * Most tasks run between two looks at the clock within a slice. A slice looks every quarter of a
     * quantum, as far as the tasks of the same group's last slice on this worker tell
     * ({@link Lane#clockInterval()}); so a slice overruns its quantum by at most this many tasks, and
     * only when they are longer than the tasks of the group's last slice here.
     */
    static final int MAX_CLOCK_INTERVAL = 64;
    /**
     * A take from an inbox that emptied it with fewer tasks than this (and more than none) means the
     * worker keeps pace with its submitters, a few tasks at a time. Such a take ended by reading the
     * slot that the submitters write next, on the line they are filling: looked at again at once,
     * that line moves to this worker before each of their next few offers, and each move costs the
     * submitter a cache miss, some 100 ns. Two workers serving three groups fed round robin by one
     * thread, each slice taking the few tasks that reached its group's inbox since the last look,
     * made 12–14 looks per hundred tasks into that thread's inboxes, against 2–3 for the plain pool,
     * and the thread paid 28–30 ns of CPU per offer against 19 (docs/BENCHMARKS.md, "Looks paced").
     *
     * <p>So the worker's next look into an inbox yields first, as an idle worker's search does
     * now and then ({@link IdleBackoff}), and for the same two reasons: on a CPU of its own the yield
     * returns in well under a microsecond, long enough for the line to fill; on a CPU it shares with
     * a submitter, the submitter runs meanwhile, which a spin would not let it do (a spin of 20
     * {@code onSpinWait}s made the offers as cheap, and the three groups' throughput no higher on a
     * 2-CPU machine; the yield raised it by a fifth). The tasks taken run first, since the yield
     * comes before the next look, and an empty look, which is the idle backoff's to pace, does not
     * start one. The yield is not charged to the slice ({@link #pacedPause}).
     */
    static final int PACED_TAKE = 32;

    private static final VarHandle PARK_STATE;
    private static final VarHandle TASKS_RUN;
    private static final VarHandle STEALS;
    private static final VarHandle YIELDED;
    private static final VarHandle PARKS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PARK_STATE = lookup.findVarHandle(Worker.class, "parkState", int.class);
            TASKS_RUN = lookup.findVarHandle(Worker.class, "tasksRun", long.class);
            STEALS = lookup.findVarHandle(Worker.class, "steals", long.class);
            YIELDED = lookup.findVarHandle(Worker.class, "yielded", long.class);
            PARKS = lookup.findVarHandle(Worker.class, "parks", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Engine engine;
    final int index;
    final int cpu;
    final WorkerThread thread;
    /** The groups (by ledger id) this worker may serve; called by the dispatcher under its lock. */
    final IntPredicate eligible;
    /** This worker's own generator for lottery draws. */
    final SplittableRandom random;

    private final Runnable[] batch = new Runnable[BATCH];
    private final IdleBackoff backoff = new IdleBackoff();
    /**
     * Indices of the other workers in the order this one steals from them (topology order). Set
     * before start. Indices, not the workers: a search reads them on every look, and a victim's
     * fields share lines with the counters it writes after every task.
     */
    private int[] victims = new int[0];
    private volatile PinResult pin;

    private volatile int parkState = ACTIVE;
    /**
     * Set once this worker leaves its duty cycle (after shutdown, E2), before it wakes the parked
     * ones: a group whose mask allows only exited workers may then run on the others (W5).
     */
    private volatile boolean exited;
    // Written by this worker only (opaque), read by anyone for statistics.
    private long tasksRun;
    private long steals;
    private long parks;
    /** Time this worker's paced looks gave away inside busy stretches, in all; this worker is its only writer. */
    private long yielded;

    // ---- the open slice (W4); this worker only ------------------------------------------------
    private Group slice;
    private Lane sliceLane;
    /** CPU time of the slice's busy stretches that have ended. */
    private long sliceUsed;
    /** Time the slice's paced looks gave away within its busy stretches: toward its quantum, not its charge. */
    private long sliceYielded;
    /** CPU time of the slice charged while it ran ({@link #joinYieldsSlice}): its end's fraction of a quantum counts it. */
    private long sliceCharged;
    private boolean inBurst;
    private long burstStart;
    private int sliceTasks;
    /** True while a managed block of this worker has paused the slice in the ledger. */
    private boolean slicePaused;
    /** True while this worker blocks in a managed block with a spare standing in ({@link Engine#managedBlock}). */
    boolean blocksWithStandIn;
    /**
     * The request of this worker's managed block that found no spare (S7 of {@link SpareThreads}),
     * while that block lasts; it stands for the blocks nested in it too. Owner only.
     */
    SpareThreads.Request blockRequest;
    private int clockCountdown = 1;
    /** The dispatcher's version when a pick last found nothing for this worker; no new pick until it moves. */
    private long emptyPickVersion = -1;
    /** Empty searches since the open slice last found a task ({@link #DRY_SLICE_SEARCHES}). */
    private int drySearches;
    /** Searches that reached other workers' inboxes (see {@link #INBOX_STEAL_PERIOD}). */
    private int inboxStealSearches;
    /** Set by a take that emptied an inbox a few tasks at a time; the next look yields first ({@link #PACED_TAKE}). */
    private boolean yieldBeforeNextLook;
    /** What a paced look does first: {@code Thread.yield()}, or a test's stand-in ({@link #pauseLooksWith}). */
    private Runnable lookPause = Thread::yield;
    /** Helped tasks running now nested in waiting ones ({@link WorkerContext#MAX_HELP_DEPTH}). */
    private int helpDepth;
    /** The lane of the task running now (a fork goes there). */
    private Lane currentLane;
    /** The task running now, innermost first (a join's helped task): the waiter of the next one helped. */
    private Runnable currentTask;
    /** The group of the open slice, for a shutdownNow of that group (see {@link RunningGroup}). */
    private final RunningGroup running = new RunningGroup();
    /**
     * The future whose own code this worker runs now, for a {@code cancel(true)} of it
     * ({@link WorkerContext#interruptForCancel}); null while a task nested inside it runs.
     */
    final RunningFuture runningFuture = new RunningFuture();
    /**
     * The group of the task this worker runs for its waiter ({@link #runAwaitedTask}), innermost
     * first, while it runs; null otherwise. A join then helps with that group's tasks, not the slice's. Owner only.
     */
    private Group awaitedGroup;

    Worker(Engine engine, int index, int cpu, String threadName, long seed) {
        this.engine = engine;
        this.index = index;
        this.cpu = cpu;
        this.thread = new WorkerThread(this, threadName);
        this.random = new SplittableRandom(seed);
        this.eligible = id -> engine.dispatcher().eligible(id, index);
    }

    /**
     * The indices of the other workers, nearest first; the array may hold this worker's own index,
     * which every look skips, and may be shared with the other workers of this CPU. Kept, not copied:
     * nobody writes it.
     */
    void setVictims(int[] stealOrder) {
        this.victims = stealOrder;
    }

    PinResult pin() {
        return pin;
    }

    @Override
    public void run() {
        try {
            pin = engine.pinCurrentThread(cpu);
        } finally {
            engine.workerStarted();
        }
        try {
            dutyCycle();
        } finally {
            closeBurst();
            if (engine.isStopping()) {
                cancelLeftovers();
            }
            endSlice();
            if (!exited) {
                publishExit();                           // an exit other than E2's (stopping, or a failure)
            }
            engine.workerExited(this);
        }
    }

    /** True once this worker has left its duty cycle for good. */
    boolean hasExited() {
        return exited;
    }

    private void dutyCycle() {
        while (true) {
            Runnable task = findTask();
            if (task != null) {
                openBurst();
                backoff.reset();
                runTask(task, sliceLane);
                continue;
            }
            closeBurst();
            if (engine.runState() >= Engine.SHUTDOWN) {
                endSlice();
                if (engine.mayWorkerExit()) {
                    exitAfterShutdown();
                    return;
                }
                // A task is still queued, or on its way in: this worker looks for it as before
                // shutdown, and parks (W6) if it may serve none of the groups holding tasks.
            }
            if (backoff.idle()) {
                endSlice();
                park();
                backoff.reset();
            }
        }
    }

    // ---- slices -------------------------------------------------------------------------------

    /** The next task of the open slice, or of a newly picked one; null when there is nothing to run now. */
    private Runnable findTask() {
        if (engine.isStopping()) {
            return null;                                 // W2: take nothing more once stopping
        }
        Dispatcher dispatcher = engine.dispatcher();
        if (slice != null) {
            // A mask change ends the slice at once (W5): busy time alone would not end a slice fed
            // one task at a time, and it would take the group's tasks from the allowed lanes.
            if (slice.allows(index) && !sliceDue()) {
                Runnable task = takeFromSlice();
                if (task != null) {
                    drySearches = 0;
                    return task;
                }
                if (!slice.isShutdown() && !dispatcher.othersMayHaveWork(slice, index)
                        && ++drySearches < DRY_SLICE_SEARCHES) {
                    return null;                         // W4: keep the dry slice a while if no group it may serve has work
                }
                task = lastLookInInboxes();             // the group may still wait in other inboxes
                if (task != null) {
                    drySearches = 0;
                    return task;
                }
            }
            switchSlice(true);
        } else {
            if (!dispatcher.mayHaveWork()
                    || (dispatcher.version() == emptyPickVersion && !dispatcher.activationsPending())) {
                return null;
            }
            switchSlice(true);
        }
        return slice == null ? null : takeFromSlice();
    }

    /** True when the slice's quantum is used up, or a group may have received work and should be considered. */
    private boolean sliceDue() {
        return engine.dispatcher().activationsPending() || quantumUsedAtClockLook();
    }

    /**
     * Counts one more task toward the next look at the clock, one every {@link Lane#clockInterval()}
     * tasks; true when this is a look and the slice has used its quantum.
     */
    private boolean quantumUsedAtClockLook() {
        if (--clockCountdown > 0) {
            return false;
        }
        clockCountdown = sliceLane.clockInterval();
        long used = sliceUsed + sliceYielded + (inBurst ? System.nanoTime() - burstStart : 0);
        return used >= engine.dispatcher().quantumNanos();
    }

    /**
     * The slice's busy time not yet charged, up to now; the count starts again from now, and a busy
     * stretch under way goes on in it.
     */
    private long takeSliceTime() {
        long used = sliceUsed;
        sliceUsed = 0;
        sliceYielded = 0;
        if (inBurst) {
            long now = System.nanoTime();
            used += now - burstStart;
            burstStart = now;
        }
        return used;
    }

    /** Ends the open slice, if any, charging its time, and (if {@code pickNext}) opens the next one. */
    private void switchSlice(boolean pickNext) {
        Dispatcher dispatcher = engine.dispatcher();
        Group ending = slice;
        long used = 0;
        if (ending != null) {
            if (ending.isStopDrained()) {                // one volatile read per slice end, none per task
                cancelForksLeftBehind(ending);
            }
            used = takeSliceTime();                      // a busy stretch goes on, in the next slice
            if (sliceTasks > 0) {                        // for the group's next slice here, not another group's
                long perTask = Math.max(1, used / sliceTasks);
                sliceLane.setClockInterval(Math.clamp(dispatcher.quantumNanos() / (4 * perTask), 1, MAX_CLOCK_INTERVAL));
            }
            running.exit(ending);
        }
        long versionBefore = dispatcher.version();    // before the lock: a change the pick misses raises it past this
        Group next = dispatcher.nextSlice(this, ending, used, sliceCharged + used, pickNext);
        if (inBurst) {
            // The decision (the lock, a wait for it, the charge, the pick) is the pool's, not the
            // next group's: that slice's clock starts once it is made (W4).
            burstStart = System.nanoTime();
        }
        if (ending != null) {
            signalForksLeftBehind(ending);
        }
        slice = next;
        sliceLane = next == null ? null : next.lanes[index];
        drySearches = 0;
        sliceUsed = 0;
        sliceYielded = 0;
        sliceCharged = 0;
        sliceTasks = 0;
        clockCountdown = next == null ? 1 : sliceLane.clockInterval();
        if (next != null) {
            running.enter(next);
        } else if (pickNext) {
            emptyPickVersion = versionBefore;
        }
    }

    /**
     * Owner only, as a slice of {@code group} ends once a shutdownNow has drained the group: takes
     * what is left on this worker's deque of the group, forks made after the drain, and cancels them
     * (W2's exception; one that a run elsewhere holds is left to it), so that the group's termination, looked at in the same slice end, does not
     * wait for them. A slice ends between two tasks of the duty cycle, never inside one: no task runs
     * on this worker, so no join here can take one of them back any more, and any other taker would
     * cancel it too. Left there, they would keep the group live until a worker took them: this one,
     * once the group's turn comes again on it (never, if the mask excludes it, W5), or an allowed one,
     * either of which another group's task may hold for as long as it runs.
     */
    private void cancelForksLeftBehind(Group group) {
        Lane lane = group.lanes[index];
        Runnable task;
        while ((task = lane.deque.pop()) != null) {
            if (!engine.cancelLeftover(task, true, group)) {
                runTask(task, lane);                     // W2: taken, and not a future, so it runs
            }
        }
    }

    private void endSlice() {
        if (slice != null) {
            switchSlice(false);
        }
    }

    /** Starts a busy stretch, unless one is under way: the slice's clock runs from now. */
    private void openBurst() {
        if (!inBurst) {
            inBurst = true;
            burstStart = System.nanoTime();
        }
    }

    /** Ends the current busy stretch: its time joins the slice's. */
    private void closeBurst() {
        if (inBurst) {
            sliceUsed += System.nanoTime() - burstStart;
            inBurst = false;
        }
    }

    /** Owner only, on this worker's thread: stops the slice's clock while a task blocks; true if it ran. */
    boolean pauseClock() {
        boolean wasRunning = inBurst;
        closeBurst();
        return wasRunning;
    }

    /**
     * Owner only, before a managed block: the open slice stops keeping its group active
     * ({@link Dispatcher#pauseSlice}) until {@link #resumeSliceActivity}. Returns the paused group,
     * or null when there was nothing to pause: no slice, or a block nested in a blocker that is
     * itself blocking (the slice is paused once).
     */
    Group pauseSliceActivity() {
        if (slice == null || slicePaused || !engine.dispatcher().pauseSlice(slice)) {
            return null;
        }
        slicePaused = true;
        return slice;
    }

    /** Ends the pause of {@link #pauseSliceActivity()}; {@code paused} is what it returned. */
    void resumeSliceActivity(Group paused) {
        if (paused != null) {
            slicePaused = false;
            engine.dispatcher().resumeSlice(paused);
        }
    }

    /** Restarts the clock stopped by {@link #pauseClock()} if it ran then. */
    void resumeClock(boolean wasRunning) {
        if (wasRunning && !inBurst) {
            inBurst = true;
            burstStart = System.nanoTime();
        }
    }

    /** The group whose task runs on this worker now, or of its open slice; null between slices. */
    Group currentGroup() {
        Lane lane = currentLane;
        return lane != null ? lane.group : slice;
    }

    /** Interrupts this worker if it runs a slice of {@code group} now (a shutdownNow of that group). */
    void interruptIfRunning(Group group) {
        running.interruptIf(group, thread);
    }

    // ---- taking tasks -------------------------------------------------------------------------

    /**
     * The next task of the slice's group to run. Once a shutdownNow has drained the group, the forks
     * made after it that no join took back are cancelled as they are taken (W2), and null is returned
     * when none but those was left.
     */
    private Runnable takeFromSlice() {
        boolean drained = slice.isStopDrained();         // before the take: see Group.isStopDrained
        Runnable task;
        do {
            task = takeOneFromSlice();
        } while (task != null && engine.cancelLeftover(task, drained, slice));
        return task;
    }

    /** Own lane's deque, own lane's inbox, then the slice group's lanes on the other workers. */
    private Runnable takeOneFromSlice() {
        Lane own = sliceLane;
        Runnable task = own.deque.pop();
        if (task != null) {
            return task;
        }
        task = takeFromInbox(own, BATCH);
        if (task != null) {
            return task;
        }
        return stealInSlice();
    }

    private Runnable stealInSlice() {
        Lane[] lanes = slice.lanes;
        for (int victim : victims) {
            if (victim == index) {
                continue;
            }
            TaskDeque deque = lanes[victim].deque;
            Runnable task = deque.steal();
            if (task != null) {
                countSteals(1);
                if (!deque.isEmpty()) {
                    engine.signalWork(slice, victim);    // more to take: let another idle worker help
                }
                return task;
            }
        }
        if ((++inboxStealSearches & (INBOX_STEAL_PERIOD - 1)) != 0) {
            return null;
        }
        for (int victim : victims) {
            Lane lane = lanes[victim];
            if (victim != index && lane.inbox.hasWork()) {
                Runnable task = takeFromInbox(lane, 0);   // counts the tasks it took as stolen
                if (task != null) {
                    return task;
                }
            }
        }
        return null;
    }

    /**
     * The last look for the slice's group before its slice is given up: takes up to
     * {@link #DRY_LOOK_BATCH} tasks from the first of the {@link #DRY_LOOK_VICTIMS} nearest
     * workers' inboxes that yields one. Unlike the periodic look in {@link #stealInSlice()} it reads
     * no producer index: it goes straight for the consumer token and {@link Inbox#relaxedPoll()}, and
     * takes a fixed batch rather than half of {@link Inbox#size()}.
     */
    private Runnable lastLookInInboxes() {
        Lane[] lanes = slice.lanes;
        int tried = 0;
        for (int victim : victims) {
            if (victim == index) {
                continue;
            }
            Runnable task = takeFromInbox(lanes[victim], DRY_LOOK_BATCH); // counted as stolen there
            if (task != null || ++tried == DRY_LOOK_VICTIMS) {
                return task;
            }
        }
        return null;
    }

    /**
     * {@code n} more tasks taken from another worker's queues: a batch out of an inbox counts each of
     * its tasks, as {@code ForkJoinPool.getStealCount()} counts tasks. This worker is the counter's
     * only writer.
     */
    void countSteals(int n) {
        STEALS.setOpaque(this, steals + n);
    }

    /**
     * Moves up to {@code max} tasks from the inbox of {@code lane} (a lane of the slice's group) to this
     * worker: the oldest is returned to run now, the rest are pushed onto this worker's deque of the
     * group newest first, so that LIFO pops run them oldest first. A {@code max} of 0 steals from
     * another worker's inbox: about half of what waits there, so that its owner keeps the rest. Tasks
     * taken from another worker's inbox count as stolen, each of them. Keeps W1 and G1.
     *
     * <p>An idle worker calls this on every search, so it looks at the inbox only through the consumer
     * token and {@link Inbox#relaxedPoll()}, whose lines the submitters do not write on every offer;
     * the queue's size (the producers' index) is read only for a steal that found a task.
     */
    private Runnable takeFromInbox(Lane lane, int max) {
        if (yieldBeforeNextLook) {
            yieldBeforeNextLook = false;
            pacedPause();
        }
        Inbox source = lane.inbox;
        if (!source.tryAcquireConsumer()) {
            return null;
        }
        TaskDeque deque = sliceLane.deque;
        int n = 0;
        try {
            Runnable task = source.relaxedPoll();
            if (task != null) {
                batch[n++] = task;
                if (max == 0) {
                    max = Math.clamp((source.size() + 1) / 2, 1, BATCH);
                }
                while (n < max && (task = source.relaxedPoll()) != null) {
                    batch[n++] = task;
                }
                for (int i = n - 1; i >= 1; i--) {
                    deque.push(batch[i]);
                    batch[i] = null;
                }
            }
        } finally {
            source.releaseConsumer();
        }
        if (n == 0) {
            return null;
        }
        yieldBeforeNextLook = n < PACED_TAKE && n < max; // fewer than asked for: the inbox ran dry
        if (lane.worker == index) {                      // G1: after the tasks are in the deque
            slice.tasksTakenByOwner(index, n);           // this worker is its own lane's only owner
        } else {
            slice.tasksTaken(lane.worker, n);
            countSteals(n);                              // every task of the batch, not the one take
        }
        if (n == max && max > 1) {
            engine.signalWork(slice, index);             // a full batch: this worker is falling behind
        }
        Runnable first = batch[0];
        batch[0] = null;
        return first;
    }

    // ---- running ------------------------------------------------------------------------------

    /**
     * For the package's jcstress tests, on a worker whose thread was never started: finds and runs
     * one task as the duty cycle does; false when there was none. The slice's clock does not run, so
     * that no slice ends by its quantum.
     */
    boolean runOneTask() {
        return runOneTask(false);
    }

    /** As {@link #runOneTask()}, with the slice's clock running as in the duty cycle. */
    boolean runOneTimedTask() {
        return runOneTask(true);
    }

    private boolean runOneTask(boolean timed) {
        Runnable task = findTask();
        if (task == null) {
            closeBurst();
            return false;
        }
        if (timed) {
            openBurst();
        }
        runTask(task, sliceLane);
        return true;
    }

    /**
     * The yield before a paced look ({@link #PACED_TAKE}). It gives the CPU to whatever thread the OS
     * has waiting, which is not the group's time: within a busy stretch it is left out of the charge
     * (W4), and counted toward the slice's quantum, so that the slice lasts no longer for it. Charged,
     * it came to a third of all the time charged to three groups fed round robin on 2 CPUs shared
     * with their submitters (docs/BENCHMARKS.md, GroupOverheadBenchmark).
     */
    private void pacedPause() {
        if (!inBurst) {
            lookPause.run();
            return;
        }
        long start = System.nanoTime();
        sliceUsed += start - burstStart;
        try {
            lookPause.run();                             // Thread.yield()
        } finally {
            long end = System.nanoTime();
            sliceYielded += end - start;
            YIELDED.setOpaque(this, yielded + (end - start));
            burstStart = end;
        }
    }

    /** For the tests: what a paced look does in place of {@code Thread.yield()} ({@link #PACED_TAKE}). */
    void pauseLooksWith(Runnable pause) {
        lookPause = pause;
    }

    /** Whether this worker's next inbox look will yield first ({@link #PACED_TAKE}); for the tests. */
    boolean yieldsBeforeNextLook() {
        return yieldBeforeNextLook;
    }

    private void runTask(Runnable task, Lane lane) {
        execute(task, lane);
        Thread.interrupted();                            // a late cancel(true) must not hit the next task
    }

    /** Runs {@code task} inside a waiting one: see {@link Engine#afterHelpedTask}. */
    private void runHelped(Runnable task, Lane lane) {
        InterruptOnCancel waitingFuture = runningFuture.leaveForNested(); // first: a cancel(true) of the waiter is not the helped task's
        boolean waiterInterrupted = Thread.interrupted(); // the waiter's, not the helped task's
        Runnable waiter = currentTask;
        helpDepth++;
        try {
            execute(task, lane);
        } finally {
            helpDepth--;
            runningFuture.returnFromNested(waitingFuture);
        }
        engine.afterHelpedTask(lane.group, waiterInterrupted, waiter);
    }

    /** Runs {@code task} as one of {@code lane}'s and counts it; leaves the interrupt status alone. */
    private void execute(Runnable task, Lane lane) {
        execute(task, lane, task);
    }

    /** As {@link #execute(Runnable, Lane)}, with {@code runningAs} the running task meanwhile ({@link #currentTask}). */
    private void execute(Runnable task, Lane lane, Runnable runningAs) {
        Lane outer = currentLane;
        Runnable outerTask = currentTask;
        currentLane = lane;
        currentTask = runningAs;
        try {
            task.run();
        } catch (Throwable failure) {
            engine.reportUncaught(thread, failure);
        } finally {
            currentLane = outer;
            currentTask = outerTask;
        }
        sliceTasks++;
        countCompleted(lane);
    }

    /** Owner only: one more task of {@code lane}'s group completed here, in this worker's figures and the group's. */
    private void countCompleted(Lane lane) {
        TASKS_RUN.setOpaque(this, tasksRun + 1);
        lane.countCompleted();
    }

    /**
     * Runs one more task of the slice's group on behalf of a task that waits for another (a join);
     * false when there was nothing to run, or, if {@code bounded}, when the join should block with a
     * spare standing in instead (too deep, or the slice's quantum used while other groups wait).
     * Never opens another slice: a join waits within its group. Once the pool has stopped it takes nothing from the queues (W2) but finishes what was left on
     * this worker's deques after shutdownNow's drain, which is where the waited-for fork is.
     */
    boolean helpOnce(boolean bounded) {
        if (engine.isStopping()) {
            return engine.isStopDrained() && finishOneLeftover();
        }
        if (awaitedGroup != null) {
            return helpInAwaitedRun(awaitedGroup, bounded);
        }
        if (slice == null) {
            return false;
        }
        if (!slice.allows(index)) {
            leaveForksToAllowedWorkers(slice);           // W5: a group moved off this worker waits for its workers
            return false;
        }
        if (helpDepth >= WorkerContext.helpDepthLimit(bounded) || (bounded && joinYieldsSlice())) {
            return false;                                // bounded: the wait becomes a managed block
        }
        Runnable task = takeFromSlice();
        if (task == null) {
            return false;
        }
        runHelped(task, sliceLane);
        return true;
    }

    /**
     * Owner only, for a task that waits for {@code task} of {@code target} (a group of this pool,
     * the waiter's or another) with no spare to stand in: runs it here, as one of target's tasks,
     * if target may run on this worker and {@code claim} then claims it (false: a run elsewhere, or
     * a drain, has it); see {@link Engine#runAwaitedTask}. What the task forks goes to target's deque
     * here, and a join in it helps with target's tasks ({@link #helpInAwaitedRun}), never with the
     * slice's. It is not counted here: its copy in target's queue counts once a taker skips it, as
     * for any task run elsewhere first. Its time is the waiting slice's, whose group would have lent
     * its tickets to target for the wait, also inside a managed block, whose pause of the clock it lifts. Not past {@code maxDepth} tasks nested
     * on this thread, so that a chain of such waits stays within the stack. True when it ran.
     */
    boolean runAwaitedTask(Group target, Runnable task, BooleanSupplier claim, int maxDepth) {
        if (helpDepth >= maxDepth) {
            return false;
        }
        Lane outer = currentLane;
        Runnable outerTask = currentTask;
        Group outerAwaited = awaitedGroup;
        boolean ran = engine.runAwaitedTask(target, index, claim, running, runningFuture, currentGroup(), outerTask, () -> {
            currentLane = target.lanes[index];           // its forks go to target's deque here, and it sees target
            currentTask = task;
            awaitedGroup = target;
            helpDepth++;
            // Inside a managed block that found no spare the slice's clock is paused; the run is
            // work, charged to the slice as the waiting task's own time would be.
            boolean clockPaused = !inBurst;
            resumeClock(clockPaused);
            try {
                task.run();
            } catch (Throwable failure) {
                engine.reportUncaught(thread, failure);
            } finally {
                if (clockPaused) {
                    pauseClock();
                }
                helpDepth--;
                currentLane = outer;
                currentTask = outerTask;
                awaitedGroup = outerAwaited;
            }
        });
        if (ran) {
            // No slice of target ends here to look after forks it left on this deque: make sure a
            // worker target may run on takes them (W3, W5), as a join that may not help does.
            leaveForksToAllowedWorkers(target);
        }
        return ran;
    }

    /**
     * Owner only, for a join inside a task run for its waiter ({@link #runAwaitedTask}): runs one more
     * task of that task's group, taken as a spare takes one (its deques first, this worker's own,
     * where its forks are, before the others; then an inbox). Never one of the slice's group: it would run with the thread
     * entered in the awaited group ({@link RunningGroup#switchTo}), out of reach of its own group's
     * shutdownNow, and the forks the join waits for are the awaited group's. False when there was
     * nothing to run, the mask excludes this worker, or, if {@code bounded}, the join may help no deeper.
     */
    private boolean helpInAwaitedRun(Group group, boolean bounded) {
        if (!group.allows(index)) {
            leaveForksToAllowedWorkers(group);           // W5, as for a slice's group
            return false;
        }
        if (helpDepth >= WorkerContext.helpDepthLimit(bounded)) {
            return false;
        }
        Runnable task = engine.takeOne(group, index, this); // W2 included, this worker's deque first
        if (task == null) {
            return false;
        }
        runHelped(task, group.lanes[index]);
        return true;
    }

    /**
     * Owner only, in a join about to help: true when the slice has used its quantum while another
     * group this worker may serve has work (W4). A join that helps runs its group's tasks inside one
     * task of that group, so no slice boundary comes until it returns: a fork/join computation of a
     * low-ticket group would hold the worker for as long as it lasts, and the other groups' tasks
     * would wait for that long, whatever their tickets. Here the slice's time so far is charged, so
     * that the picks made while the join waits see it, and the join blocks with a spare standing in,
     * which serves the groups by their picks, this one's forks included when its turn comes; with no
     * spare to stand in, the join helps on ({@link WorkerContext#helpPastBound}). The clock is read
     * as for the duty cycle's tasks ({@link #quantumUsedAtClockLook}), once every few helped tasks.
     */
    private boolean joinYieldsSlice() {
        if (!quantumUsedAtClockLook() || !engine.othersHaveWork(slice, index)) {
            return false;
        }
        long part = takeSliceTime();
        sliceCharged += part;
        engine.dispatcher().chargeRunningSlice(slice, part); // the slice's end charges only what follows
        if (inBurst) {
            burstStart = System.nanoTime();              // the charge, and a wait for the lock, are the pool's
        }
        sliceTasks = 0;                                  // so its estimate of a task's time covers that part alone
        return true;
    }

    /** Owner only: true when a join may help no deeper, so it blocks with a spare standing in. */
    boolean helpsTooDeep() {
        return helpDepth >= WorkerContext.MAX_HELP_DEPTH && !engine.isStopping();
    }

    /**
     * Owner only, for a join that found nothing of its group to run ({@link #helpOnce}): true when
     * another group this worker may serve holds tasks, so the join blocks with a spare standing in
     * rather than poll. The joined task may wait for one of those tasks, and this worker, held by
     * the join (no slice ends inside a task), may be the only one to run them: the pool's only
     * worker, or the only one their group's mask allows ({@link Engine#othersHaveWork}).
     */
    boolean otherGroupsWait() {
        Group current = awaitedGroup != null ? awaitedGroup : slice;
        return current != null && engine.othersHaveWork(current, index);
    }

    /**
     * Owner only: pops {@code task} if it is the newest on the running task's deque (a fork about to
     * be joined), whatever the group's mask (W5), and runs it here, counted as any task this worker
     * takes from that lane (it counted as queued there); false, without running it, otherwise.
     */
    boolean runIfUnpushed(Runnable task) {
        Lane lane = forkLane();
        if (lane == null || !lane.deque.tryUnpush(task)) {
            return false;
        }
        // Run and counted as any task of the lane, but as the joiner's own code, as on a spare: the
        // joiner stays the running task, so that a join inside the fork that helps takes the debt of
        // the joiner's cancel(true) afterwards (Engine#afterHelpedTask), which a fork is no InterruptOnCancel to owe.
        execute(task, lane, currentTask);
        return true;
    }

    /** Owner only: see {@link WorkerContext#swapRunningTask}. */
    Runnable swapCurrentTask(Runnable task) {
        Runnable outer = currentTask;
        currentTask = task;
        return outer;
    }

    /** Owner only: pops {@code task} if it is the newest on the running task's deque, without running it. */
    boolean tryUnpush(Runnable task) {
        Lane lane = forkLane();
        if (lane == null || !lane.deque.tryUnpush(task)) {
            return false;
        }
        if (task instanceof Future<?> done && done.isDone()) {
            // Done before it was taken back (run in place by its waiter, or completed or cancelled by
            // its user): the copy stood for that, and is counted as a taker that skipped it counts it.
            countCompleted(lane);
        }
        return true;
    }

    /** Owner only: the tasks on the running task's deque beyond the pool's parked workers, or 0. */
    int surplusQueuedTasks() {
        return Math.max(0, queuedLocalTasks() - engine.parkedWorkers());
    }

    /** Owner only: the tasks on the running task's deque; 0 when no task or slice runs here. */
    int queuedLocalTasks() {
        Lane lane = forkLane();
        return lane == null ? 0 : lane.deque.size();
    }

    /** Owner only: the lane a fork of the running task goes to; null when no task or slice runs here. */
    private Lane forkLane() {
        return currentLane != null ? currentLane : sliceLane;
    }

    /** Owner only: pushes a forked task on this worker's deque of the forking task's group. */
    void pushLocal(Runnable task) {
        Lane lane = forkLane();
        if (lane == null) {
            lane = engine.defaultGroup().lanes[index];
        }
        pushFork(lane, task);
    }

    /**
     * Owner only: pushes {@code task} on this worker's {@code lane}, makes sure the group will be
     * picked (G2) and wakes a parked worker that may run it (W3). Neither the activation nor the
     * wake-up may be lost, even where this worker may run the fork itself: the task that forked it
     * may wait for it without joining it (a latch, a plain blocking call), holding this worker, and
     * the fork is then for another worker to take. The push is a release store, which the reads of
     * the activation state and of the parked count could pass, so a fence orders the push before
     * both, as an offer's CAS does for inboxes (pairing with the fences in {@link Dispatcher}'s
     * reconcile, which publishes IDLE and then looks at the queues again, and in
     * {@link #prepareToPark()}); ForkJoinPool's push is fenced too. Should a mask change exclude this
     * worker after the read of the mask, {@link #signalForksLeftBehind} makes up for the wake-up
     * when the slice ends.
     */
    void pushFork(Lane lane, Runnable task) {
        lane.deque.push(task);
        VarHandle.fullFence();                           // store-load: the push before the reads below
        lane.group.noteWork();                           // G2 for forks; the slice's end reconciles too
        engine.signalWork(lane.group, index);
    }

    /**
     * Owner only, for a join that may not help because the group's mask now excludes this worker
     * (W5): makes sure the workers the mask allows will take the forks left on this worker's deque of
     * the group. The join does not end the slice, so neither {@link #signalForksLeftBehind} nor the
     * slice end's reconcile runs while it waits; and a fork pushed while the mask still allowed this
     * worker signalled by that mask, so the workers of the new one may sleep beside it. So this
     * looks again, the fence ordering the forks before the reads of the activation state (G2) and
     * the parked count (W3), as in {@link #pushFork}; the join calls this at every recheck, and
     * each call after the first is a fence and a few reads.
     */
    void leaveForksToAllowedWorkers(Group group) {
        if (!group.lanes[index].deque.isEmpty()) {
            VarHandle.fullFence();                       // store-load: the forks before the reads below
            group.noteWork();
            engine.signalWork(group, index);
        }
    }

    /**
     * Owner only, as a slice of {@code group} ends, after the dispatcher's lock: wakes a worker the
     * group's mask allows if this worker, which the mask excludes, still holds forks of the group
     * (W3 and W5). {@link #pushFork} signals by the mask it read: a fork pushed just before
     * {@link Group#restrictTo} excluded this worker signalled the old mask's workers, and
     * restrictTo's own look for the group's work may have come before the push. restrictTo writes the mask and then takes the
     * dispatcher's lock ({@link Dispatcher#maskChanged}) before that look, and this slice's end takes
     * it after the push: if this worker had the lock first, restrictTo's look sees the push and
     * wakes the new mask's parked workers; if restrictTo had it first, the read here sees the new
     * mask, and the fence orders the fork before the parked count (pairing with
     * {@link #prepareToPark()}) for a wake by the new mask.
     */
    void signalForksLeftBehind(Group group) {
        if (!group.allows(index) && !group.lanes[index].deque.isEmpty()) {
            VarHandle.fullFence();                       // store-load: the forks before the parked count
            engine.signalWork(group, index);
        }
    }

    /**
     * When the pool stops, a task forked after shutdownNow drained the deques would be neither run
     * nor returned. Once that drain is over (never before: until then the deque's tasks are the
     * drain's to return), cancel what is left if it is a future, so its joiners complete; anything
     * else is run, as W2 requires of every task taken.
     */
    private void cancelLeftovers() {
        while (!engine.isStopDrained()) {
            Thread.yield();                              // shutdownNow is draining; it finishes without waiting on us
        }
        while (finishOneLeftover()) {
            // until every deque of this worker is empty
        }
    }

    /**
     * Once the pool has stopped and shutdownNow's drain is over: pops one task left on this
     * worker's deques (the running task's lane first) and cancels it if it is a future, else runs it
     * (W2). False when none is left. A task that joins a fork made after the drain calls this through
     * {@link #helpOnce}: the fork is cancelled, so the join returns instead of waiting for a task
     * that nobody will take.
     *
     * <p>The task finished may have been its group's last work, and no slice or spare's turn of the
     * group need be open to look at the group afterwards: this worker's slice may be of another
     * group, or over (as it exits). So once it has emptied this worker's deque of that group, it
     * settles the group, which terminates it if nothing of it is left anywhere (G3). Only while the
     * pool stops, so no lock is taken on any path before the stop.
     */
    private boolean finishOneLeftover() {
        Lane lane = currentLane;
        Runnable task = lane == null ? null : lane.deque.pop();
        if (task == null) {
            for (Group group : engine.dispatcher().groups()) {
                lane = group.lanes[index];
                if ((task = lane.deque.pop()) != null) {
                    break;
                }
            }
        }
        if (task == null) {
            return false;
        }
        if (!engine.cancelLeftover(task, true, lane.group)) {
            runTask(task, lane);
        }
        if (lane.deque.isEmpty()) {
            engine.dispatcher().settle(lane.group);      // G3: after the task is done, and off the deque
        }
        return true;
    }

    // ---- parking ------------------------------------------------------------------------------

    /**
     * True when any group this worker may serve holds a task, or an activation waits. A group seen
     * holding a task while idle gets its activation queued here, as a submitter would queue it (G2):
     * a fork's push that the forking worker's read of the activation state passed ({@link #pushFork})
     * leaves the group idle with the fork on that worker's deque, and without this the workers that
     * see the fork would neither park nor pick the group, spinning until the forking worker's slice
     * ends, and a task that waits for the fork without helping or a managed block would wait for
     * ever. Volatile reads otherwise, and the activation's CAS only where the group is idle.
     */
    boolean seesWork() {
        Dispatcher dispatcher = engine.dispatcher();
        if (dispatcher.activationsPending()) {
            return true;
        }
        for (Group group : dispatcher.groups()) {
            if (group.allows(index) && group.hasWork()) {
                group.noteWork();                        // G2: an idle group seen holding a task is activated here
                return true;
            }
        }
        return false;
    }

    /** Sleeps until woken by {@link #wake()}, unless the last search before sleeping finds work. */
    private void park() {
        if (!prepareToPark()) {
            return;
        }
        PARKS.setOpaque(this, parks + 1);
        while (parkState == PARKED) {
            LockSupport.park(engine);
            Thread.interrupted();                        // an interrupt must not turn park into a spin
        }
    }

    /**
     * Counts this worker parked, publishes PARKED and searches once more (W3). Returns true when the
     * worker must now sleep until woken; false when it found work, or may exit after shutdown, and is
     * ACTIVE again (or a waker already made it ACTIVE, leaving an unpark permit that the next park
     * consumes harmlessly).
     */
    boolean prepareToPark() {
        // Counted before PARKED is published (W3): a waker that finds PARKED takes the count down,
        // and a take-down before this worker's own count would hide another parked worker from a
        // producer that reads the count meanwhile.
        engine.parkedCountIncrement();
        PARK_STATE.setVolatile(this, PARKED);
        VarHandle.fullFence();                           // store-load: pairs with the producer's offer, then count read
        if (seesWork() || (engine.runState() >= Engine.SHUTDOWN && engine.mayWorkerExit())) { // W3, W6
            if (PARK_STATE.compareAndSet(this, PARKED, ACTIVE)) {
                engine.parkedCountDecrement();
            }
            return false;
        }
        return true;
    }

    /**
     * Leaves for good after shutdown (E2): publishes the exit, then wakes the parked workers (W6).
     * A group whose mask allows only exited workers lapses (W5), and the exit comes before the
     * fence in {@link #wakeOthersToExit()}: a worker whose last look before parking missed it is
     * seen parked here and woken, and looks again.
     */
    void exitAfterShutdown() {
        publishExit();
        wakeOthersToExit();
    }

    /**
     * Publishes this worker's exit. A group whose mask allows only exited workers lapses with it
     * (W5), so the set of groups a pick may return to the workers left can grow without any change
     * in the ledger: the dispatcher's version goes up after the exit is published, or a worker
     * whose last pick found nothing would skip the pick for as long as the version stayed (see
     * {@link #findTask}) and spin beside the lapsed group's tasks, which it sees but never takes.
     */
    private void publishExit() {
        exited = true;
        engine.dispatcher().workerExited();
    }

    /**
     * W6: a worker that may exit wakes the parked ones, which parked after shutdown while tasks they
     * may not run were left and now may exit too. Whatever ended the last of those tasks came before
     * this worker's look in {@link Engine#mayWorkerExit()}; the fence orders that look before the
     * reads of the parked states, as in {@link #prepareToPark()}, so either a parking worker's last
     * look sees that nothing is left or this call sees it parked.
     */
    void wakeOthersToExit() {
        VarHandle.fullFence();                           // store-load: pairs with the fence in prepareToPark
        for (int w = 0, n = engine.workerCount(); w < n; w++) {
            if (w != index) {
                engine.worker(w).wake();
            }
        }
    }

    /**
     * Wakes this worker if it is parked; true when this call did. Any thread. The CAS makes sure
     * exactly one waker counts the wake-up.
     */
    boolean wake() {
        if (parkState == PARKED && PARK_STATE.compareAndSet(this, PARKED, ACTIVE)) {
            engine.parkedCountDecrement();
            LockSupport.unpark(thread);
            return true;
        }
        return false;
    }

    long tasksRun() {
        return (long) TASKS_RUN.getOpaque(this);
    }

    long steals() {
        return (long) STEALS.getOpaque(this);
    }

    /** See {@link #yielded}: time that no slice was charged with, though the worker was in a busy stretch. */
    long yielded() {
        return (long) YIELDED.getOpaque(this);
    }

    long parks() {
        return (long) PARKS.getOpaque(this);
    }

    boolean isParked() {
        return parkState == PARKED;
    }
}
