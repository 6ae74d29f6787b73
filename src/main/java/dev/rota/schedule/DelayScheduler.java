package dev.rota.schedule;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;

/**
 * One per pool: holds delayed and periodic tasks and hands each to the pool (a {@link DueTaskSink})
 * when it becomes due. Gives a pool the {@link java.util.concurrent.ScheduledExecutorService}
 * methods with the semantics of {@link java.util.concurrent.ScheduledThreadPoolExecutor} under its
 * default policies.
 *
 * <p>Semantics:
 * <ul>
 *   <li>Zero and negative delays mean "as soon as possible"; delays and periods are capped at
 *       2^62 ns (about 146 years). A non-positive period or delay of a periodic task is an
 *       {@link IllegalArgumentException}; a null command or unit a {@link NullPointerException}.
 *   <li>Fixed rate: run k starts no earlier than {@code initialDelay + k * period}, and never
 *       while run k - 1 is still going (the next run is scheduled when the current one ends).
 *       Fixed delay: the next run starts no earlier than {@code delay} after the current one ended.
 *   <li>A periodic run that throws ends the task: {@code get()} throws an
 *       {@link java.util.concurrent.ExecutionException} with the cause. So does a periodic task that
 *       the heap cannot take back after a run (out of memory), with that Error as the cause. Otherwise {@code get()} on a
 *       periodic future returns only by cancellation.
 *   <li>Cancelling a pending task removes it from the heap at once (STPE's {@code removeOnCancel}
 *       policy, always on): timeouts that are scheduled and then cancelled, the common case, leave
 *       nothing behind. So does running a one-shot task's future before it is due ({@code run()},
 *       which runs it at once, as FutureTask's does): it is done, and the scheduler holds it no longer.
 *   <li>{@link #shutdown()}: further scheduling is rejected; periodic tasks are cancelled, those
 *       that came due and wait in the sink for a worker too, so that no run of one begins after
 *       it (a run in progress finishes, and is not repeated); delayed one-shot tasks still run
 *       when due.
 *       {@link #shutdownNow()}: everything pending is cancelled, and the tasks that never started
 *       are returned.
 *   <li>A due task that the sink refuses is cancelled, so its future completes instead of
 *       hanging: no accepted task is silently lost. One that the sink throws on (out of memory)
 *       ends as a run that threw does, with that failure as the cause of its future's
 *       {@link java.util.concurrent.ExecutionException}.
 *   <li>A timer thread that dies of an Error (out of memory) is replaced; where no thread can be
 *       started, or the timers have died {@link #MAX_TIMER_DEATHS_IN_A_ROW} times after one
 *       another with no task handed over, the tasks it held are cancelled, so that every future
 *       completes and a shut-down scheduler still becomes idle. The Error goes to the timer's
 *       uncaught exception handler (the pool's, where it has one).
 * </ul>
 */
public final class DelayScheduler {
    /*
     * Implementation overview
     *
     * One timer thread per scheduler (so one per pool; the JDK 25 ForkJoinPool likewise runs one
     * "DelayScheduler" thread per pool), never a thread per task. It is started lazily by the
     * first schedule call, is a daemon (a forgotten pool does not keep the JVM alive), and exits
     * once the scheduler is shut down and holds nothing.
     *
     * The tasks sit in an indexed 4-ary min-heap (DeadlineHeap) keyed by deadline, then by a
     * sequence number (FIFO among equal deadlines). One ReentrantLock guards the heap and the
     * state below; the timer waits on a Condition of that lock:
     *   - heap empty:            await() with no timeout: no CPU, no wake-ups, until signalled;
     *   - head due in d ns:      awaitNanos(d), then re-check (a wake-up may be early or spurious);
     *   - head due:              move up to MAX_HANDOFF_BATCH due tasks out of the heap, release
     *                            the lock, hand them to the sink, and loop.
     * A schedule call signals the Condition only when its task becomes the new head (an earlier
     * deadline than the timer sleeps towards); shutdown and shutdownNow signal so the timer can
     * exit. A lock rather than a lock-free pending stack: every operation is O(log n) under a lock
     * held for well under a microsecond, which is far below the cost of the timer's own wake-up
     * (~20 us, see "Costs measured" in DESIGN.md), and it makes the shutdown rules below easy to state and to check.
     *
     * Invariants (all under the lock):
     *   S1  runState only grows: RUNNING -> SHUTDOWN -> STOPPED (or RUNNING -> STOPPED).
     *   S2  nothing enters the heap unless runState == RUNNING; so after shutdown the heap only
     *       shrinks, and "idle after shutdown" (I) below is permanent.
     *   S3  handoffsInFlight counts tasks the timer took out of the heap but has not yet passed to
     *       the sink. The sink sees a task before that count drops, so a pool that checks isIdle()
     *       after its queue drained cannot miss a task that is between scheduler and pool; and
     *       shutdownNow() returns only once the count is 0 (on any thread but the timer's), so a pool
     *       that drains its queues after it has every due task the timer took.
     *   S4  cancelsInFlight counts tasks that shutdown() or shutdownNow() took out of the heap but has
     *       not yet cancelled: they are cancelled after the lock is released, since cancelling wakes
     *       their waiters and calls back into remove(). Idle (I) waits for them, so the pool cannot
     *       terminate while a future it took is still pending; and every shutdownNow() caller waits
     *       for the others' (as for S3), so that each returns with every delayed task cancelled, as
     *       does every shutdown() caller after the first, so that each returns with every periodic
     *       task cancelled.
     *   S5  handedOver holds the periodic tasks the timer took out of the heap whose run for that
     *       hand-off has not begun. A periodic run begins only by taking its task out of handedOver
     *       (claimRun), so it runs once per hand-off, never while it waits in the heap (where a run
     *       would move its deadline under the heap's order and then insert it a second time), and
     *       never beside another run of it (T1 of ScheduledTask). Cancelling a task takes it out
     *       (remove), so a hand-off the sink refused, or a queued task the user cancelled, leaves
     *       nothing behind. shutdown() empties it for good: it cancels the tasks there with the
     *       heap's periodic tasks (a task waiting in a worker's queue is still the scheduler's to
     *       end), and after it nothing periodic comes due (S2). So no periodic run begins once
     *       shutdown() has taken the lock; one that claimed its hand-off before runs to its end.
     *   S6  a task waits in the heap only while a timer is there to hand it over: the heap is empty, or
     *       timer != null and that thread has yet to exit (its normal exit needs an empty heap after
     *       shutdown, and then nothing enters it: S2). enqueue() and reschedule() start a timer before
     *       they insert where none is (the first call, or a timer died), and refuse or cancel the task
     *       where none can be started. A timer that dies of an Error (runTimer) cancels the batch it
     *       held, then starts its replacement or, where none can be started (out of native threads),
     *       takes every task out of the heap and cancels it (S4): no future waits for a timer that
     *       never comes, and a shut-down scheduler still reaches idle (I), so its pool terminates.
     *       The failure goes on to the dying thread's uncaught exception handler.
     *   S7  timerDeathsInARow counts timers that died one after another without handing a task to
     *       the sink (timerHandedOver, written by the running timer and read by its own recovery; the
     *       next timer is started after that, so it starts from false). Past
     *       MAX_TIMER_DEATHS_IN_A_ROW, a dying timer is treated as one with no replacement to be had
     *       (S6): the heap's tasks are cancelled, and the count starts again, so that the next
     *       schedule call starts a timer, as it would after any other such death.
     *   I   idle == heap empty && handoffsInFlight == 0 && cancelsInFlight == 0. The sink's
     *       schedulerIdle() is called exactly once, by whichever thread first makes
     *       "runState != RUNNING && idle" true, after it has released the lock (the pool may call
     *       back into the scheduler, and may hold its own lock).
     *
     * Memory ordering: runState is volatile so that isShutdown() and toString() can read it without
     * the lock; it is written only under the lock. Everything else a task carries between threads
     * (deadline, heapIndex) is published by the lock or by the sink's own hand-off to a worker,
     * which must be a happens-before edge as any executor's is.
     */

    private static final int RUNNING = 0;
    private static final int SHUTDOWN = 1;
    private static final int STOPPED = 2;

    /** Delays and periods above this are clamped, keeping deadline differences far from overflow. */
    static final long MAX_DELAY_NANOS = 1L << 62;

    /**
     * Timers that may die one after another, none handing a task over, before the scheduler stops
     * replacing them (S7): a failure that strikes every timer at once would otherwise start and kill
     * threads without end, each reported to the handler.
     */
    static final int MAX_TIMER_DEATHS_IN_A_ROW = 3;

    /** Bounds how long the timer holds the lock when a burst of tasks comes due together. */
    private static final int MAX_HANDOFF_BATCH = 256;
    /** Hand-offs held at once above which the emptied set is made anew ({@link #handedOver}). */
    static final int HAND_OFF_SHRINK_PEAK = 64;

    private final DueTaskSink sink;
    private final String threadName;
    /** Makes each timer thread, the first and any replacement (see runTimer). */
    private final ThreadFactory timerThreads;
    /**
     * Sequence numbers of every scheduler's tasks, as ScheduledThreadPoolExecutor's are: tasks of two
     * pools that a user compares (in a queue of their own) are then ordered even at equal deadlines,
     * and compareTo is 0 only for a task and itself. One increment per schedule call, beside the lock
     * the call takes anyway.
     */
    private static final AtomicLong SEQUENCER = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the heap's head gets earlier or when runState changes. */
    private final Condition timerWork = lock.newCondition();
    /** Signalled when handoffsInFlight (S3) or cancelsInFlight (S4) falls. */
    private final Condition settled = lock.newCondition();
    private final DeadlineHeap<ScheduledTask<?>> heap;
    /**
     * Periodic tasks handed to the sink whose run has not begun (S5); under lock. Identity: no equals.
     * Replaced by a new set when it empties after holding more than {@link #HAND_OFF_SHRINK_PEAK}
     * (an IdentityHashMap never shrinks its table): a burst of periodic tasks due at once, behind
     * busy workers, would otherwise keep a table of its size for the pool's life.
     */
    private Set<ScheduledTask<?>> handedOver = newHandOffSet();
    /** The most tasks {@link #handedOver} has held since it was made; under lock. */
    private int handedOverPeak;

    private volatile int runState = RUNNING;   // written under lock (S1)
    private int handoffsInFlight;              // under lock (S3)
    private long takenForHandOff;              // under lock: tasks taken out of the heap for hand-off, ever
    private int cancelsInFlight;               // under lock (S4)
    private boolean idleReported;              // under lock (I)
    private Thread timer;                      // under lock; null until the first schedule
    private int timerDeathsInARow;             // under lock (S7)
    /** True once the running timer has handed a task to the sink; that timer thread's own (S7). */
    private boolean timerHandedOver;
    /** Times the timer returned from a wait; single writer (the timer), read by tests. */
    private volatile long timerWakeups;

    /**
     * @param sink where due tasks go; its {@code submitDue} is called from the timer thread only
     * @param threadName name of the timer thread, started on the first schedule call
     */
    public DelayScheduler(DueTaskSink sink, String threadName) {
        this(sink, threadName, (Thread.UncaughtExceptionHandler) null);
    }

    /**
     * @param sink where due tasks go; its {@code submitDue} is called from the timer thread only
     * @param threadName name of the timer thread, started on the first schedule call
     * @param handler the timer thread's uncaught exception handler, which gets the Error it dies of
     *     (S6); null for the thread's default
     */
    public DelayScheduler(DueTaskSink sink, String threadName, Thread.UncaughtExceptionHandler handler) {
        this(sink, threadName, timerThreads(threadName, handler));
    }

    /** As above, with the timer threads made by {@code timerThreads}: for tests, which make a start fail. */
    DelayScheduler(DueTaskSink sink, String threadName, ThreadFactory timerThreads) {
        this(sink, threadName, timerThreads, DeadlineHeap.Node[]::new);
    }

    /** As above, with the heap's arrays made by {@code heapArrays}: for tests, which make its growth fail. */
    DelayScheduler(DueTaskSink sink, String threadName, ThreadFactory timerThreads,
                   IntFunction<DeadlineHeap.Node[]> heapArrays) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.timerThreads = Objects.requireNonNull(timerThreads, "timerThreads");
        this.heap = new DeadlineHeap<>(heapArrays);
    }

    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        return enqueue(new ScheduledTask<Void>(this, command, deadlineAfter(delay, unit), 0, nextSequence()));
    }

    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        Objects.requireNonNull(unit, "unit");
        return enqueue(new ScheduledTask<>(this, callable, deadlineAfter(delay, unit), nextSequence()));
    }

    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                  TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        long periodNanos = positiveNanos("period", period, unit);
        return enqueue(new ScheduledTask<Void>(
                this, command, deadlineAfter(initialDelay, unit), periodNanos, nextSequence()));
    }

    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                     TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        long delayNanos = positiveNanos("delay", delay, unit);
        return enqueue(new ScheduledTask<Void>(
                this, command, deadlineAfter(initialDelay, unit), -delayNanos, nextSequence()));
    }

    /**
     * Rejects further scheduling, cancels periodic tasks (those handed to the sink and not yet run
     * too), keeps delayed one-shot tasks (they run when due). Idempotent: a later or concurrent
     * call returns once the tasks an earlier one took are cancelled (S4), as shutdownNow() does. Reports
     * {@link DueTaskSink#schedulerIdle()} now if nothing remains.
     */
    public void shutdown() {
        List<ScheduledTask<?>> periodic;
        boolean reportIdle;
        lock.lock();
        try {
            if (runState != RUNNING) {
                // S4, as for shutdownNow(): a later caller returns only once the periodic tasks an
                // earlier shutdown() took (and any shutdownNow()'s) are cancelled, so that every
                // caller, not only the first, finds them cancelled (STPE's callers share one lock).
                while (cancelsInFlight > 0 && Thread.currentThread() != timer) {
                    settled.awaitUninterruptibly();
                }
                return;
            }
            runState = SHUTDOWN;
            periodic = heap.removeIf(ScheduledTask::isPeriodic);
            periodic.addAll(handedOver);                 // S5: come due, in the sink, not yet run
            handedOver.clear();
            shrinkHandOffsIfEmpty();
            cancelsInFlight += periodic.size();          // S4: idle only once they are cancelled
            reportIdle = claimIdleReport();              // so true only when there were none
            timerWork.signal();   // the timer may now have to exit
        } finally {
            lock.unlock();
        }
        if (!periodic.isEmpty()) {
            try {
                for (ScheduledTask<?> task : periodic) {
                    task.cancel(false);   // out of the heap and of handedOver, so its remove() finds nothing to do
                }
            } finally {
                reportIdle = cancelled(periodic.size());
            }
        }
        if (reportIdle) {
            sink.schedulerIdle();
        }
    }

    /**
     * Cancels every pending task and returns those that never started, each exactly once, in
     * deadline order. Each element is the very {@link ScheduledFuture} that {@code schedule*}
     * returned (as in ScheduledThreadPoolExecutor), already cancelled, so running it does nothing
     * and waiters on it wake up. A periodic task that has run at least once is cancelled but not
     * listed; a one-shot task whose command ran or runs through another call (the sink says so,
     * {@link DueTaskSink#claimUnstartedCommand}) completes with that command, and is not listed.
     * Tasks already handed to the pool are the pool's to drain; this waits until the timer has
     * handed over the batch it is passing on (unless called on the timer thread), so that the
     * pool's drain, after this, finds them, and until a concurrent {@code shutdown()} or
     * {@code shutdownNow()} has cancelled the tasks it took, so that every caller returns with every
     * pending task cancelled.
     */
    public List<Runnable> shutdownNow() {
        List<ScheduledTask<?>> pending;
        boolean reportIdle;
        lock.lock();
        try {
            boolean first = runState != STOPPED;
            runState = STOPPED;
            pending = first ? heap.clear() : List.of();
            cancelsInFlight += pending.size();           // S4: ours, cancelled below
            timerWork.signal();
            // S3 and S4, for every caller: the timer's hand-off (short, since the sink never
            // blocks) and the cancellations of other callers of shutdown() or shutdownNow().
            while ((handoffsInFlight > 0 || cancelsInFlight > pending.size()) && Thread.currentThread() != timer) {
                settled.awaitUninterruptibly();
            }
            if (!first) {
                return List.of();                        // the first caller returns the pending tasks
            }
        } finally {
            lock.unlock();
        }
        List<Runnable> neverStarted = new ArrayList<>(pending.size());
        try {
            pending.sort(ScheduledTask::compareTo);
            for (ScheduledTask<?> task : pending) {
                // A periodic task in the heap may have run before. A task the user cancelled meanwhile
                // is theirs, not ours to return; nor is one whose command ran through another call, nor
                // one that a user's early run() begins now (T6 of ScheduledTask).
                if (task.cancelForShutdownNow()) {
                    neverStarted.add(task);
                }
            }
        } finally {
            reportIdle = cancelled(pending.size());
        }
        if (reportIdle) {
            sink.schedulerIdle();
        }
        return neverStarted;
    }

    /**
     * True when {@code task} is one of this scheduler's tasks: for a shutdownNow() of the pool, which
     * cancels the delayed tasks it drains from its queues, but no other task, not even a
     * {@link java.util.concurrent.RunnableScheduledFuture} of another kind that a user executed.
     */
    public boolean owns(Runnable task) {
        return task instanceof ScheduledTask<?> scheduled && scheduled.belongsTo(this);
    }

    /**
     * For a shutdownNow() of the pool, which drained {@code task}, one of this scheduler's tasks
     * ({@link #owns}), from its queues: settles it as this scheduler's own {@link #shutdownNow()}
     * settles the tasks of its heap, and says whether it never started, and so is returned. It is
     * cancelled, unless the user cancelled it already or its command ran or runs through another
     * call ({@link DueTaskSink#claimUnstartedCommand}), when it completes with that command instead.
     *
     * @throws IllegalArgumentException if {@code task} is not one of this scheduler's
     */
    public boolean settleDrained(Runnable task) {
        if (!owns(task)) {
            throw new IllegalArgumentException("not a task of scheduler " + threadName + ": " + task);
        }
        return ((ScheduledTask<?>) task).cancelForShutdownNow();
    }

    /** True when the scheduler holds no task: after shutdown, the pool may terminate once drained. */
    public boolean isIdle() {
        lock.lock();
        try {
            return isIdleLocked();
        } finally {
            lock.unlock();
        }
    }

    /** Tasks waiting for their deadline, plus due tasks on their way to the pool. */
    public int pendingCount() {
        lock.lock();
        try {
            return heap.size() + handoffsInFlight;
        } finally {
            lock.unlock();
        }
    }

    /**
     * For a pool's quiescence: -1 while a task is due in the heap or on its way to the sink, else
     * the count of tasks taken out of the heap for hand-off so far. Two calls that return the same
     * count, neither -1, saw no due task move to the sink between them: one due in between was
     * still in the heap at the second call, and due.
     */
    public long quietStamp() {
        lock.lock();
        try {
            if (handoffsInFlight > 0) {
                return -1;
            }
            ScheduledTask<?> head = heap.peek();
            return head != null && head.deadline() - System.nanoTime() <= 0 ? -1 : takenForHandOff;
        } finally {
            lock.unlock();
        }
    }

    /** For the package's tests: periodic tasks handed over whose run has not begun (S5). */
    int handedOverCount() {
        lock.lock();
        try {
            return handedOver.size();
        } finally {
            lock.unlock();
        }
    }

    public boolean isShutdown() {
        return runState != RUNNING;
    }

    @Override
    public String toString() {
        return "DelayScheduler[" + threadName + ", " + stateName(runState) + ", pending=" + pendingCount() + "]";
    }

    // ---- called by ScheduledTask -------------------------------------------------------------

    /** A get() of a task's future waits here: see {@link DueTaskSink#block}. */
    void block(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        sink.block(blocker);
    }

    /**
     * Whether a run of periodic {@code task} may begin: true once per hand-off (S5), for the first
     * run() after the timer handed it to the sink; false for a run() of a task that waits in the heap,
     * runs now, or whose hand-off has run already, which then does nothing. Always false after
     * shutdown(), which cancelled every hand-off not yet claimed: STPE's default run-after-shutdown
     * policy. After a shutdownNow() alone the pool decides: a task still queued there comes back
     * from its drain, and one a worker took before the pool stopped runs, since every task taken
     * from a queue runs (refusing it here would neither run nor return it); it is not rescheduled.
     */
    boolean claimRun(ScheduledTask<?> task) {
        lock.lock();
        try {
            return takeHandOff(task);
        } finally {
            lock.unlock();
        }
    }

    private static Set<ScheduledTask<?>> newHandOffSet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }

    /** Under lock: S5, a periodic task handed to the sink. */
    private void addHandOff(ScheduledTask<?> task) {
        handedOver.add(task);
        handedOverPeak = Math.max(handedOverPeak, handedOver.size());
    }

    /** Under lock: takes {@code task} out of the hand-offs; true when it was there. */
    private boolean takeHandOff(ScheduledTask<?> task) {
        boolean removed = handedOver.remove(task);
        if (removed) {
            shrinkHandOffsIfEmpty();
        }
        return removed;
    }

    /** Under lock: see {@link #handedOver}. */
    private void shrinkHandOffsIfEmpty() {
        if (handedOverPeak > HAND_OFF_SHRINK_PEAK && handedOver.isEmpty()) {
            handedOver = newHandOffSet();
            handedOverPeak = 0;
        }
    }

    /** For the package's tests: the hand-off set in use now. */
    Object handOffSet() {
        lock.lock();
        try {
            return handedOver;
        } finally {
            lock.unlock();
        }
    }

    /** For the package's tests: the most hand-offs held at once since the set was last made. */
    int handedOverPeak() {
        lock.lock();
        try {
            return handedOverPeak;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts a periodic task back after a normal run; cancels it instead once shut down (S2), or when
     * the timer died since the hand-off and no new one can be started (S6).
     */
    void reschedule(ScheduledTask<?> task) {
        lock.lock();
        try {
            if (task.isCancelled()) {   // cancelled during its run: stays out (T4)
                return;
            }
            if (runState == RUNNING) {
                try {
                    startTimerIfNeeded();   // S6: only after a timer died, else it finds one
                    insert(task);
                    return;
                } catch (RejectedExecutionException noTimer) {
                    // cancelled below, as when shut down: nothing would hand it over again
                }
            }
        } finally {
            lock.unlock();
        }
        task.cancel(false);
    }

    /** The one-shot run of {@code command} returned: the sink completes its future ({@link DueTaskSink#commandRan}). */
    void commandRan(Runnable command, DueTaskSink.Outcome outcome) {
        sink.commandRan(command, outcome);
    }

    /** A shutdownNow takes back the future of {@code command}: see {@link DueTaskSink#claimUnstartedCommand}. */
    DueTaskSink.CommandClaim claimUnstartedCommand(Runnable command) {
        return sink.claimUnstartedCommand(command);
    }

    /** The future of {@code command} was cancelled: tells the sink, outside the lock (see {@link DueTaskSink#commandCancelled}). */
    void commandCancelled(Runnable command) {
        sink.commandCancelled(command);
    }

    /**
     * Removes a cancelled task, or a one-shot task run before it came due (T5 of ScheduledTask), from
     * the heap, or a cancelled periodic task from the hand-offs not yet run (S5), if it is there.
     */
    void remove(ScheduledTask<?> task) {
        boolean reportIdle;
        lock.lock();
        try {
            if (!heap.remove(task)) {
                if (task.isPeriodic()) {
                    takeHandOff(task);
                }
                return;
            }
            if (runState != RUNNING && heap.isEmpty()) {
                timerWork.signal();   // shut down and now empty: the timer can exit (idle or not: S4)
            }
            reportIdle = claimIdleReport();
        } finally {
            lock.unlock();
        }
        if (reportIdle) {
            sink.schedulerIdle();
        }
    }

    // ---- scheduling ----------------------------------------------------------------------------

    private <T> ScheduledFuture<T> enqueue(ScheduledTask<T> task) {
        lock.lock();
        try {
            if (runState != RUNNING) {
                throw new RejectedExecutionException(
                        "scheduler " + threadName + " is " + stateName(runState) + "; task rejected: " + task);
            }
            startTimerIfNeeded();
            insert(task);
        } finally {
            lock.unlock();
        }
        return task;
    }

    /** Under lock: adds the task and wakes the timer only if the task is the new head. */
    private void insert(ScheduledTask<?> task) {
        heap.add(task);
        if (heap.peek() == task) {
            timerWork.signal();
        }
    }

    private void startTimerIfNeeded() {
        if (timer != null) {
            return;
        }
        try {
            Thread thread = timerThreads.newThread(this::runTimer);
            thread.start();
            timer = thread;
        } catch (OutOfMemoryError | RuntimeException e) {   // OOM: "unable to create native thread"
            throw new RejectedExecutionException("cannot start timer thread " + threadName, e);
        }
    }

    private static ThreadFactory timerThreads(String threadName, Thread.UncaughtExceptionHandler handler) {
        Thread.Builder.OfPlatform builder = Thread.ofPlatform()
                .name(Objects.requireNonNull(threadName, "threadName"))
                .daemon(true)
                .inheritInheritableThreadLocals(false);
        if (handler != null) {
            builder.uncaughtExceptionHandler(handler);
        }
        return builder.factory();
    }

    private long nextSequence() {
        return SEQUENCER.getAndIncrement();
    }

    private static long deadlineAfter(long delay, TimeUnit unit) {
        long nanos = Math.clamp(unit.toNanos(delay), 0L, MAX_DELAY_NANOS);
        return System.nanoTime() + nanos;
    }

    private static long positiveNanos(String what, long value, TimeUnit unit) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + value + " " + unit);
        }
        return Math.min(unit.toNanos(value), MAX_DELAY_NANOS);
    }

    // ---- the timer thread ------------------------------------------------------------------

    private void runTimer() {
        ScheduledTask<?>[] batch = new ScheduledTask<?>[MAX_HANDOFF_BATCH];
        try {
            sink.timerStarted();
            int due;
            while ((due = awaitDueTasks(batch)) >= 0) {
                handOff(batch, due);
            }
        } catch (Throwable failure) {
            recoverFromTimerFailure(batch, failure);
            throw failure;   // this thread dies of it, and its uncaught exception handler reports it
        }
    }

    /**
     * Blocks until tasks are due, moves up to {@code batch.length} of them out of the heap and
     * returns how many; returns -1 when the timer should exit (stopped, or shut down and empty).
     */
    private int awaitDueTasks(ScheduledTask<?>[] batch) {
        lock.lock();
        try {
            for (;;) {
                int state = runState;
                if (state == STOPPED || (state == SHUTDOWN && heap.isEmpty())) {
                    return -1;
                }
                // No local holds the head while the timer waits: a head cancelled meanwhile must
                // be garbage at once, not at its deadline (T4).
                if (heap.isEmpty()) {
                    timerWork.awaitUninterruptibly();
                    timerWakeups++;   // single writer
                    continue;
                }
                long now = System.nanoTime();
                long wait = heap.peek().deadline() - now;
                if (wait > 0) {
                    awaitNanosUninterruptibly(wait);
                    timerWakeups++;
                    continue;
                }
                int count = 0;
                ScheduledTask<?> head;
                while (count < batch.length && (head = heap.peek()) != null && head.deadline() - now <= 0) {
                    // In the batch first: should what follows fail (out of memory in handedOver),
                    // the recovery finds the task there and cancels it, in the heap or out of it.
                    batch[count++] = head;
                    handoffsInFlight = count;   // S3: still counted as ours until the sink has them
                    takenForHandOff++;
                    if (head.isPeriodic()) {
                        addHandOff(head);       // S5: before the sink has it, so its run can claim it
                    }
                    heap.poll();
                    if (!head.isPeriodic()) {
                        head.markTakenByTimer(); // T5 of ScheduledTask: its run need not look in the heap
                    }
                }
                return count;
            }
        } finally {
            lock.unlock();
        }
    }

    private void awaitNanosUninterruptibly(long nanos) {
        try {
            timerWork.awaitNanos(nanos);
        } catch (InterruptedException e) {
            // Only this class starts the timer thread; an interrupt carries no request. The loop
            // re-reads the heap and the state either way.
        }
    }

    /**
     * Outside the lock: passes each due task to the sink; a refused task is cancelled, and one the
     * sink threw on fails with what it threw.
     */
    private void handOff(ScheduledTask<?>[] batch, int count) {
        for (int i = 0; i < count; i++) {
            ScheduledTask<?> task = batch[i];
            if (!task.isDone()) {
                handOff(task);
            }
            batch[i] = null;   // only now: a task whose hand-off killed the timer is the recovery's to cancel
        }
        boolean reportIdle;
        lock.lock();
        try {
            handoffsInFlight = 0;
            settled.signalAll();
            reportIdle = claimIdleReport();
        } finally {
            lock.unlock();
        }
        if (reportIdle) {
            sink.schedulerIdle();
        }
    }

    /**
     * A task the sink refuses is cancelled, so that its future reports that it did not run. One the
     * sink throws on (out of memory, most likely) ends with that failure as its cause instead, so
     * that whoever waits for it learns why; the timer goes on with the next task.
     */
    private void handOff(ScheduledTask<?> task) {
        boolean accepted;
        try {
            accepted = sink.submitDue(task);
        } catch (RuntimeException | Error e) {
            task.handOffFailed(e);
            return;
        }
        if (accepted) {
            timerHandedOver = true;                      // S7: this timer made progress
        } else {
            task.cancel(false);
        }
    }

    /**
     * The timer loop ended by an unexpected failure (an Error: out of memory, most likely). Cancels
     * the due tasks it was passing on, so none hangs, and leaves the heap to a replacement timer or,
     * where none can be started, cancels every task in it (S6). What fails meanwhile is added to
     * {@code failure} as suppressed; the recovery goes on.
     */
    private void recoverFromTimerFailure(ScheduledTask<?>[] batch, Throwable failure) {
        for (int i = 0; i < batch.length; i++) {
            if (batch[i] != null) {
                cancelAfterTimerFailure(batch[i], failure);
                batch[i] = null;
            }
        }
        List<ScheduledTask<?>> stranded = List.of();
        boolean reportIdle;
        lock.lock();
        try {
            handoffsInFlight = 0;
            settled.signalAll();                         // S3: a shutdownNow may wait for this batch
            timer = null;
            timerDeathsInARow = timerHandedOver ? 0 : timerDeathsInARow + 1; // S7: a death after progress is not counted
            timerHandedOver = false;                     // the next timer's own, from its start
            if (!heap.isEmpty()) {
                try {
                    if (timerDeathsInARow > MAX_TIMER_DEATHS_IN_A_ROW) {
                        throw new RejectedExecutionException("timer " + threadName + " died " + timerDeathsInARow
                                + " times in a row without handing a task over: its tasks are cancelled");
                    }
                    startTimerIfNeeded();
                } catch (RejectedExecutionException noTimer) {
                    failure.addSuppressed(noTimer);
                    timerDeathsInARow = 0;               // S7: the next schedule call tries afresh
                    stranded = heap.clear();             // S6: no task waits for a timer that never comes
                    cancelsInFlight += stranded.size();  // S4: idle only once they are cancelled
                }
            }
            reportIdle = claimIdleReport();              // so true only when nothing was stranded
        } finally {
            lock.unlock();
        }
        if (!stranded.isEmpty()) {
            try {
                for (ScheduledTask<?> task : stranded) {
                    cancelAfterTimerFailure(task, failure);
                }
            } finally {
                reportIdle = cancelled(stranded.size());
            }
        }
        if (reportIdle) {
            sink.schedulerIdle();
        }
    }

    /** Cancels a task the dead timer held; a failure of that (a sink's callback) is kept with the timer's. */
    private static void cancelAfterTimerFailure(ScheduledTask<?> task, Throwable failure) {
        try {
            task.cancel(false);
        } catch (Throwable e) {
            if (e != failure) {                          // the JVM may throw one preallocated OutOfMemoryError again
                failure.addSuppressed(e);
            }
        }
    }

    // ---- idle reporting ----------------------------------------------------------------------

    private boolean isIdleLocked() {
        return heap.isEmpty() && handoffsInFlight == 0 && cancelsInFlight == 0;
    }

    /** S4: {@code count} tasks taken out of the heap are now cancelled; true when this caller reports idle (I). */
    private boolean cancelled(int count) {
        lock.lock();
        try {
            cancelsInFlight -= count;
            settled.signalAll();
            return claimIdleReport();
        } finally {
            lock.unlock();
        }
    }

    /** Under lock: true exactly once, for the caller that first sees "shut down and idle" (I). */
    private boolean claimIdleReport() {
        if (runState != RUNNING && !idleReported && isIdleLocked()) {
            idleReported = true;
            return true;
        }
        return false;
    }

    private static String stateName(int state) {
        return switch (state) {
            case RUNNING -> "running";
            case SHUTDOWN -> "shut down";
            default -> "stopped";
        };
    }

    // ---- for tests -------------------------------------------------------------------------

    /** The timer thread, or null before the first schedule call. */
    Thread timerThread() {
        lock.lock();
        try {
            return timer;
        } finally {
            lock.unlock();
        }
    }

    long timerWakeups() {
        return timerWakeups;
    }

    int heapCapacity() {
        lock.lock();
        try {
            return heap.capacity();
        } finally {
            lock.unlock();
        }
    }

    /** The first violation of the heap's invariants (H1-H3 of DeadlineHeap), or null. */
    String heapInvariantViolation() {
        lock.lock();
        try {
            return heap.checkInvariants();
        } finally {
            lock.unlock();
        }
    }
}
