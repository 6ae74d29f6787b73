package dev.rota;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.PinResult;
import dev.rota.core.Dispatcher;
import dev.rota.core.Engine;
import dev.rota.core.Group;
import dev.rota.core.Inbox;
import dev.rota.core.WorkerContext;
import dev.rota.schedule.DelayScheduler;
import dev.rota.schedule.DueTaskSink;
import dev.rota.share.CurrencyNode;
import dev.rota.share.LotteryScheduler;
import dev.rota.share.ShareScheduler;
import dev.rota.share.StrideScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * An {@link java.util.concurrent.ExecutorService} with one worker per CPU, each pinned to its CPU,
 * fed through lock-free queues. A drop-in replacement for {@link java.util.concurrent.ForkJoinPool}
 * and {@link java.util.concurrent.ThreadPoolExecutor} for plain submission.
 *
 * {@snippet :
 * try (RotaPool pool = RotaPool.create()) {            // one pinned worker per allowed CPU
 *     Future<Integer> answer = pool.submit(() -> 6 * 7);
 *     System.out.println(answer.get());
 * }
 * }
 *
 * <p>Behaviour, as the JDK's pools: {@code execute} after {@code shutdown} throws
 * {@link java.util.concurrent.RejectedExecutionException}; {@code shutdown} lets queued tasks run;
 * {@code shutdownNow} interrupts running tasks and returns every task that never started, exactly
 * once; an exception escaping a task given to {@code execute} goes to the worker thread's
 * {@link Thread.UncaughtExceptionHandler} and the worker carries on; a task given to {@code submit}
 * reports its exception through its {@link java.util.concurrent.Future}. Worker threads are daemon
 * threads by default ({@link Builder#daemon}), as in {@code ForkJoinPool}.
 *
 * <p>Pinning needs native access: run with {@code --enable-native-access=dev.rota} (or
 * {@code ALL-UNNAMED} on the class path, or {@code Enable-Native-Access: ALL-UNNAMED} in an executable
 * jar's manifest). Without it the pool runs unpinned and {@link #topology()} says why; nothing is
 * printed unless pinning was asked for explicitly with {@code pinning(true)}. Where the kernel refuses
 * a worker's CPU, that worker runs unpinned, free to use every CPU the process may use, while the
 * others stay pinned ({@link #topology()} says which is which), and the pool says so through
 * {@link System.Logger} at WARNING, once per cause.
 */
public final class RotaPool extends AbstractExecutorService implements ScheduledExecutorService, AutoCloseable {
    private static final AtomicInteger POOL_NUMBER = new AtomicInteger();

    private final String name;
    private final Engine engine;
    private final CpuTopology topology;
    /*
     * Delayed tasks: one timer per pool (see DelayScheduler). shutdown() first stops this pool
     * from accepting tasks (shutdownRequested), then shuts the scheduler down; the engine itself is
     * shut down only when the scheduler reports itself idle, so that delayed one-shot tasks still
     * find running workers when they come due (ScheduledThreadPoolExecutor's default policy).
     */
    private final DelayScheduler scheduler;
    private volatile boolean shutdownRequested;
    /** The common pool ignores shutdown, as ForkJoinPool.commonPool() does. */
    private final boolean common;
    private final SharePolicy policy;
    private final Duration quantum;
    private final Currency baseCurrency;
    private final TaskGroup defaultGroup;
    /**
     * Groups made through this pool, the default one first; terminated ones are dropped lazily, by
     * {@link #groups()} and at the next group's creation.
     */
    private final CopyOnWriteArrayList<TaskGroup> groups = new CopyOnWriteArrayList<>();
    /**
     * The id of the newest group of any pool: ids are never reused, in a pool or across pools, so
     * that a snapshot diff can match groups and a snapshot never takes another pool's group for one
     * of its own.
     */
    private static final AtomicLong LAST_GROUP_ID = new AtomicLong();

    /**
     * Each worker's steal order: its own where it is alone on its CPU, else one order shared by the
     * workers of that CPU, each of which skips itself in it ({@link CpuTopology#sharedStealOrder}).
     * So the orders take at most (CPUs used) × n entries, not n² for a pool of far more workers than
     * CPUs ({@code workers(32767)} on a few CPUs would need gigabytes).
     */
    private static int[][] stealOrders(CpuTopology machine, int[] cpus) {
        Map<Integer, Integer> workersOn = new HashMap<>();
        for (int cpu : cpus) {
            workersOn.merge(cpu, 1, Integer::sum);
        }
        Map<Integer, int[]> shared = new HashMap<>();
        int[][] orders = new int[cpus.length][];
        for (int i = 0; i < cpus.length; i++) {
            orders[i] = workersOn.get(cpus[i]) == 1 ? machine.stealOrder(i, cpus)
                    : shared.computeIfAbsent(cpus[i], cpu -> machine.sharedStealOrder(cpu, cpus));
        }
        return orders;
    }

    private RotaPool(Builder builder) {
        Affinity affinity = builder.affinity;
        CpuTopology machine = builder.topology != null ? builder.topology : CpuTopology.current();
        int[] cpus = builder.cpus != null ? builder.cpus.clone() : machine.spread(builder.workers(machine));
        for (int cpu : cpus) {
            machine.cpu(cpu);                            // IllegalArgumentException naming a CPU we may not use
        }
        int[][] stealOrder = stealOrders(machine, cpus);
        this.common = builder.common;
        this.name = builder.name != null ? builder.name : common ? "rota-common" : "rota-" + POOL_NUMBER.incrementAndGet();
        boolean pinning = builder.pinning == null || builder.pinning;
        this.policy = builder.policy;
        this.quantum = builder.quantum;
        long seed = builder.seed != null ? builder.seed : new SplittableRandom().nextLong();
        ShareScheduler scheduler = policy == SharePolicy.LOTTERY
                ? new LotteryScheduler(new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L))
                : new StrideScheduler();
        this.engine = new Engine(name, cpus, stealOrder, affinity, pinning, builder.handler, builder.daemon,
                builder.maxSpares, builder.spareKeepAliveNanos(), scheduler, quantum.toNanos(), seed);
        this.baseCurrency = new Currency(this, engine.dispatcher().baseCurrency());
        this.defaultGroup = new TaskGroup(this, engine.defaultGroup(), baseCurrency, LAST_GROUP_ID.incrementAndGet());
        groups.add(defaultGroup);
        engine.cancelLeftoversWith(GroupFuture::cancelLeftover);
        engine.ownedBy(this);
        List<PinResult> pins = engine.start();
        try {
            List<CpuTopology.WorkerPlacement> placements = new ArrayList<>(pins.size());
            for (int i = 0; i < pins.size(); i++) {
                PinResult pin = pins.get(i);
                placements.add(new CpuTopology.WorkerPlacement(i, cpus[i], pin.pinned(), pin.failure()));
            }
            this.topology = machine.withWorkers(placements);
            BitSet timerCpus = new BitSet();
            for (int cpu : cpus) {
                timerCpus.set(cpu);
            }
            // An unpinned pool's timer may run on every CPU of the process, as its workers may
            // (Engine.runOnAnyCpu): it too is started by whichever thread schedules first, which may be
            // pinned (a worker of another pool).
            this.scheduler = new DelayScheduler(new DueTasks(affinity, pinning ? timerCpus : null), name + "-timer",
                    builder.handler);
            if (pinning) {
                PinningLog.reportFailures(name, placements, builder.pinning != null, affinity.canPin());
            }
        } catch (Throwable failure) {
            // Nobody will ever hold this pool to shut it down: its workers, started and idle, would
            // stay for good (a retried commonPool() would add a set per try). Nothing is queued yet.
            try {
                engine.shutdownNow();
            } catch (Throwable stopFailure) {
                failure.addSuppressed(stopFailure);
            }
            throw failure;
        }
    }

    /**
     * A pool with one pinned worker per CPU this process may use, but no more workers than
     * {@code Runtime.availableProcessors()}, which counts a container's CPU quota.
     */
    public static RotaPool create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The pool that runs tasks forked outside any pool: one pinned worker per allowed CPU, created
     * on first use. Like {@code ForkJoinPool.commonPool()}, it ignores {@code shutdown},
     * {@code shutdownNow} and {@code close}, and its daemon workers never keep the JVM alive.
     */
    public static RotaPool commonPool() {
        RotaPool pool = theCommonPool;
        if (pool == null) {
            synchronized (COMMON_LOCK) {
                pool = theCommonPool;
                if (pool == null) {
                    pool = builder().common().build();  // an Error here leaves it unmade: the next use tries again
                    theCommonPool = pool;
                }
            }
        }
        return pool;
    }

    /**
     * The common pool, null until its first use makes it. Made under {@link #COMMON_LOCK}, so that
     * threads racing to the first use make one pool, with one set of workers. A making that fails
     * (no native thread could be started, say: {@code build()} then stops the workers it had
     * started) throws to that caller only, and the next use tries again, as {@code ForkJoinPool}'s
     * common pool tries again to start a worker; a class holding the pool in its static initializer
     * would remember the failure and answer every later use, every {@code fork()} outside a pool
     * included, with {@code NoClassDefFoundError}.
     */
    private static volatile RotaPool theCommonPool;
    private static final Object COMMON_LOCK = new Object();

    // ---- fork/join ----------------------------------------------------------------------------

    /**
     * Runs {@code task} in this pool and returns its result, rethrowing its exception as
     * {@link RotaTask#join()} does. From a worker of this pool, or a spare thread standing in for
     * one, the task runs in the calling thread: it is part of a task already accepted, so it is not
     * refused after {@link #shutdown()}, as {@code ForkJoinPool.invoke} from its own threads is not.
     */
    public <T> T invoke(RotaTask<T> task) {
        Objects.requireNonNull(task, "task");
        if (WorkerContext.runsTasksFor(engine)) {        // a spare too: the same code, the same answer
            return task.invoke();
        }
        execute(task);
        return task.join();
    }

    /** Submits {@code task} and returns it, as {@code ForkJoinPool.submit(ForkJoinTask)} does. */
    public <T> RotaTask<T> submit(RotaTask<T> task) {
        execute(task);
        return task;
    }

    /**
     * As {@code ForkJoinPool.submit(Runnable)}: a {@link RotaTask} (a {@code Runnable} too, so an
     * {@code ExecutorService} reference picks this method) is submitted as itself and returned, not
     * wrapped, so that its future reports what {@code compute()} threw and {@link #shutdownNow()}
     * cancels it; any other task is wrapped as usual.
     */
    @Override
    public Future<?> submit(Runnable task) {
        if (task instanceof RotaTask<?> forked) {
            return submit(forked);
        }
        return super.submit(task);
    }

    // ---- ExecutorService ------------------------------------------------------------------------

    /**
     * Queues {@code task} in the {@linkplain #defaultGroup() default group}, on a worker: the caller's
     * own when the caller is a worker of this pool, else the one the calling thread keeps to (picked by
     * a hash of its id, moved on when other outside threads keep sharing it). Idle workers take tasks
     * from the others.
     *
     * @throws java.util.concurrent.RejectedExecutionException after shutdown, or when the default group's
     *                                    queue, if bounded ({@link TaskGroup#setQueueCapacity}), is full
     *                                    and its rejection policy throws
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public void execute(Runnable task) {
        defaultGroup.execute(task);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new GroupFuture<>(runnable, value, engine.defaultGroup());
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new GroupFuture<>(callable, engine.defaultGroup());
    }

    /** True when {@code group} must refuse submissions because this pool is shutting down. */
    boolean refusesSubmissions(TaskGroup group) {
        return shutdownRequested && !common;
    }

    /**
     * Accepts no new tasks; tasks already accepted still run, and so do delayed one-shot tasks when
     * they come due. Periodic tasks are cancelled, wherever they wait (one that came due and waits in
     * a worker's queue too): no run of one starts after this returns, and a run in progress is not
     * repeated. The pool terminates when all of them are done.
     */
    @Override
    public void shutdown() {
        if (common) {
            return;
        }
        shutdownRequested = true;
        engine.dispatcher().closeAllBut(engine.defaultGroup()); // the default group stays open for due delayed tasks
        scheduler.shutdown();                            // calls DueTasks.schedulerIdle(), now or later
    }

    /**
     * Interrupts running tasks and returns, exactly once each, the tasks that never started,
     * delayed tasks included. Every delayed task's future completes: cancelled, or, for a RotaTask
     * done or started elsewhere (an invoke()), with that task, and then not returned; nor is a
     * periodic task that has run, nor a delayed task the user cancelled. The {@link RotaTask}s
     * returned, forked or submitted (as themselves, or in the future of
     * {@code submit(task, result)}, which is cancelled with its task), are cancelled too, so that no
     * joiner waits for ever: running one of them, or a returned delayed task, does nothing. A queued
     * RotaTask done already (the user cancelled it, or it ran through another call such as
     * {@link RotaTask#invoke()}) is not returned.
     */
    @Override
    public List<Runnable> shutdownNow() {
        if (common) {
            return new ArrayList<>();
        }
        shutdownRequested = true;
        // The timer first: once the engine has stopped, it may report termination to a waiting
        // thread, and every delayed task must be cancelled by then. What the timer had already
        // handed to the pool comes back from the engine's drain below.
        List<Runnable> neverStarted = new ArrayList<>(scheduler.shutdownNow());
        // Settled before the engine may terminate, so that a thread that sees the pool terminated
        // finds every delayed future done, as it does for those of the timer's heap.
        neverStarted.addAll(engine.shutdownNow(this::settleDrained));
        return neverStarted;
    }

    /**
     * Settles a task that shutdownNow drained, cancelling it where a waiter would otherwise wait for
     * ever; true when it never started, and is returned (the engine counts the others completed).
     */
    private boolean settleDrained(Runnable task) {
        if (task instanceof RotaTask<?> || task instanceof GroupFuture<?>) {
            // A RotaTask (itself, or in the future of submit(task, result)) is cancelled, so that
            // its joiner does not wait for ever; not returned when it is done already (the user
            // cancelled it, say) or runs elsewhere: it did not "never start".
            return GroupFuture.settleDrained(task);
        }
        if (scheduler.owns(task)) {
            // A delayed task that came due: its future completes. Returned on the scheduler's
            // terms for its heap: not a periodic one that ran before, nor one the user cancelled
            // (cancel removes a task from the heap, but cannot take it out of this queue), nor one
            // whose RotaTask ran through another call (an invoke()), which completes with it, nor
            // one that a user's early run() began (T6 of ScheduledTask).
            // Another pool's or a user's RunnableScheduledFuture is returned as it is.
            return scheduler.settleDrained(task);
        }
        return true;
    }

    /** Shuts down and waits for termination, as {@code ExecutorService.close()}; no effect on the common pool. */
    @Override
    public void close() {
        if (!common) {
            super.close();
        }
    }

    @Override
    public boolean isShutdown() {
        return shutdownRequested || engine.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return engine.isTerminated();
    }

    /**
     * Waits until this pool has terminated after a shutdown, or the timeout passes. The
     * {@linkplain #commonPool() common pool} never terminates: there this is
     * {@link #awaitQuiescence}, and returns false, as for {@code ForkJoinPool.commonPool()}; from a
     * task of the common pool, which cannot see it quiescent while it runs, it waits the whole
     * timeout and returns false.
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (common && !WorkerContext.runsTasksFor(engine)) {
            awaitQuiescence(timeout, unit);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for the common pool to be quiescent");
            }
            return false;
        }
        return engine.awaitTermination(timeout, unit);
    }

    /**
     * True when no task of this pool is queued and none runs, on a worker or a spare thread, as
     * {@code ForkJoinPool.isQuiescent()}: a moment's answer, which a task submitted next changes.
     * Delayed and periodic tasks count from their deadline on (due and still with the timer, too);
     * before it they do not. A worker counts as running from when it takes a task until it parks,
     * some microseconds after its last task; a group's {@code shutdownNow} counts as running while
     * it settles the tasks it drained.
     */
    public boolean isQuiescent() {
        long timer = scheduler.quietStamp();             // before and after: no due task moved meanwhile
        return timer >= 0 && engine.isQuiescent() && scheduler.quietStamp() == timer;
    }

    /**
     * Waits until this pool is {@linkplain #isQuiescent() quiescent} or the timeout passes, as
     * {@code ForkJoinPool.awaitQuiescence}; true when it is. Once this returns true, what every task
     * that had run did is visible to the caller. Looks again at intervals growing from 10 µs to 1 ms;
     * on a thread of another pool (Rota's or the JDK's), as a managed block, so that a spare runs that
     * pool's tasks meanwhile. An interrupt ends the wait: this returns false, with the thread's
     * interrupt status still set.
     *
     * @throws IllegalStateException from a task of this pool, which runs and so would wait for itself
     *                               (ForkJoinPool helps the other tasks there instead: join them)
     */
    public boolean awaitQuiescence(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (WorkerContext.runsTasksFor(engine)) {
            throw new IllegalStateException("a task of pool " + name + " cannot wait for the pool to be quiescent:"
                    + " it is running itself; join the tasks it waits for instead");
        }
        QuiescenceWait wait = new QuiescenceWait(System.nanoTime() + Math.max(0, unit.toNanos(timeout)));
        if (WorkerContext.runsTasks()) {
            try {
                RotaPool.managedBlock(wait);             // another pool's thread: a spare stands in meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();      // the wait ends with the interrupt still set
            }
        } else if (!wait.isReleasable()) {
            boolean released;
            do {
                released = wait.block();                 // one pause, then a look
            } while (!released);
        }
        return wait.quiescent;
    }

    /**
     * The wait of {@link #awaitQuiescence}: each {@link #block()} pauses once, from 10 µs growing to
     * 1 ms, and it is releasable once the pool is quiescent, the deadline has passed, or the thread
     * is interrupted.
     */
    private final class QuiescenceWait implements ForkJoinPool.ManagedBlocker {
        private final long deadline;
        private long sleep = QUIESCENCE_FIRST_LOOK_NANOS;
        boolean quiescent;

        QuiescenceWait(long deadline) {
            this.deadline = deadline;
        }

        @Override
        public boolean isReleasable() {
            quiescent = isQuiescent();
            return quiescent || deadline - System.nanoTime() <= 0 || Thread.currentThread().isInterrupted();
        }

        @Override
        public boolean block() {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                LockSupport.parkNanos(RotaPool.this, Math.min(sleep, left));
                sleep = Math.min(sleep << 1, QUIESCENCE_LAST_LOOK_NANOS);
            }
            return isReleasable();
        }
    }

    /** The first and the longest pause between two looks of {@link #awaitQuiescence}. */
    private static final long QUIESCENCE_FIRST_LOOK_NANOS = 10_000;
    private static final long QUIESCENCE_LAST_LOOK_NANOS = 1_000_000;

    /**
     * As {@link AbstractExecutorService#invokeAll}, except that a null among {@code tasks} throws
     * {@link NullPointerException} before any task is submitted, as the timed form does; from a task
     * of this pool, each wait is a managed block that lends the caller's group's tickets to
     * the default group (the futures' own {@code get}).
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return InvokeAll.untimed(tasks, this::newTaskFor, this);
    }

    /**
     * As {@link AbstractExecutorService#invokeAny}; from a task of this pool, each wait for a result
     * is a managed block that lends the caller's group's tickets to the default group, so the tasks run even
     * on a pool of one worker. The submissions are not: a task that the rejection policy runs in
     * the caller ({@link RejectionPolicy#CALLER_RUNS}) is the caller's work, charged to its group.
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return ManagedCall.invokeAny(this, engine.defaultGroup(), tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return ManagedCall.invokeAny(this, engine.defaultGroup(), tasks, timeout, unit);
    }

    // ---- managed blocking ---------------------------------------------------------------------

    /**
     * Blocks in {@code blocker}, as {@code ForkJoinPool.managedBlock} does, so that existing blockers
     * port unchanged. Called from a worker of a RotaPool, a spare thread pinned to the same CPU
     * runs other tasks meanwhile (at most {@link Builder#maxSpareThreads} per pool; spares exit
     * after {@link Builder#spareKeepAlive} unused). From any other thread it is
     * {@code ForkJoinPool.managedBlock}: on a worker of a {@code ForkJoinPool} that pool compensates
     * as it would for its own call, and any other thread just blocks.
     *
     * <p>An error starting a spare's thread (an {@code OutOfMemoryError} where no more threads can
     * be made) is thrown here, as {@code ForkJoinPool.managedBlock} throws it, before the caller
     * blocks; the pool is left as it was.
     *
     * <p>The JDK's classes that wait through {@code ForkJoinPool.managedBlock} themselves
     * ({@code CompletableFuture.join()} and {@code get()}, the untimed {@code take()} and {@code put()}
     * of a {@code BlockingQueue}, {@code Condition.await()}) compensate only on a ForkJoinPool's
     * threads: on a worker of a RotaPool they block it outright. Wrap such a wait in this method when
     * it may wait for work of the same pool.
     */
    public static void managedBlock(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        Engine.managedBlock(blocker);
    }

    /**
     * Runs {@code action} in the calling thread with that thread free to run on every CPU the
     * process may use, then restores the CPUs it had. For code in a task that starts threads: on
     * Linux a new thread inherits the CPU affinity of the thread that starts it, so a thread started
     * by a pinned worker (or by a spare, pinned to that worker's CPU) stays on that one CPU for its
     * whole life. That holds for the threads a library starts lazily too: a
     * {@code ThreadPoolExecutor}'s, an HTTP client's, and {@code ForkJoinPool.commonPool()}'s
     * workers, which a parallel stream or {@code CompletableFuture.supplyAsync} in a task may start.
     * Threads started inside {@code action} get the process's CPUs instead. Where the calling
     * thread is not pinned, or no affinity can be set (pinning unavailable), it only runs
     * {@code action}. Costs a few system calls (reading and setting the mask, then restoring it).
     *
     * @throws NullPointerException if {@code action} is null
     */
    public static void runUnpinned(Runnable action) {
        Objects.requireNonNull(action, "action");
        Affinity affinity = Affinity.system();
        BitSet own = null;
        boolean widened = false;
        try {
            if (affinity.canPin()) {
                own = affinity.allowedCpus();
                widened = affinity.allowCurrentThread(affinity.processCpus());
            }
        } catch (RuntimeException e) {
            widened = false;                             // the kernel would not say: run as the thread is
        }
        try {
            action.run();
        } finally {
            if (widened) {
                affinity.allowCurrentThread(own);
            }
        }
    }

    /** Spare threads alive now, standing in for blocked workers or waiting to be reused. */
    public int spareThreads() {
        return engine.spareThreads();
    }

    // ---- ScheduledExecutorService -------------------------------------------------------------

    /**
     * Runs {@code command} once after {@code delay}; semantics of {@code ScheduledThreadPoolExecutor}.
     * A {@link RotaTask} given here belongs to the {@linkplain #defaultGroup() default group}, which
     * runs it when it is due; a join of it from a task of another group waits as a managed block,
     * as a {@code get()} of the returned future does, and lends nothing. The returned future completes
     * with such a task and reports its outcome: null, what {@code compute()} threw as the cause of an
     * {@link java.util.concurrent.ExecutionException}, or cancelled. The future is a
     * {@link java.util.concurrent.RunnableScheduledFuture}: its {@code run()} before the delay runs
     * the task at once and takes it off the timer, as {@code cancel} would.
     *
     * @throws RejectedExecutionException after shutdown, counted in the default group's
     *                                    {@link GroupStats#rejectedTasks()}
     */
    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return countingRejection(() -> bindDelayed(command, scheduler.schedule(command, delay, unit)));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return countingRejection(() -> scheduler.schedule(callable, delay, unit));
    }

    /**
     * Runs {@code command} periodically; runs never overlap, and one that throws ends the task.
     *
     * @throws IllegalArgumentException if {@code period} is not positive, or {@code command} is a
     *                                  {@link RotaTask}, which computes once: schedule a
     *                                  {@code Runnable} that makes a new one each period instead
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        refuseRotaTaskAsPeriodic(command);
        return countingRejection(() -> bindDelayed(command, scheduler.scheduleAtFixedRate(command, initialDelay, period, unit)));
    }

    /**
     * Runs {@code command} periodically, each run {@code delay} after the end of the one before.
     *
     * @throws IllegalArgumentException if {@code delay} is not positive, or {@code command} is a
     *                                  {@link RotaTask}, which computes once: schedule a
     *                                  {@code Runnable} that makes a new one each period instead
     */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        refuseRotaTaskAsPeriodic(command);
        return countingRejection(() -> bindDelayed(command, scheduler.scheduleWithFixedDelay(command, initialDelay, delay, unit)));
    }

    /**
     * A RotaTask is done after its first run, and every later run() of it returns at once: scheduled
     * periodically it would compute once and then stand in the timer for ever, doing nothing, with a
     * future that never completes. Bad input, refused before anything else is checked.
     */
    private static void refuseRotaTaskAsPeriodic(Runnable command) {
        if (command instanceof RotaTask<?> task) {
            throw new IllegalArgumentException("a RotaTask computes once and cannot be periodic: " + task
                    + "; schedule a Runnable that submits a new task each period");
        }
    }

    /** A refused schedule counts in the default group, as a refused execute does: its task would have run there. */
    private <F> F countingRejection(Supplier<F> schedule) {
        try {
            return schedule.get();
        } catch (RejectedExecutionException e) {
            engine.defaultGroup().countRejected();
            throw e;
        }
    }

    /** Once the timer accepted {@code command}: a RotaTask among them belongs to the default group, which runs it when due. */
    private ScheduledFuture<?> bindDelayed(Runnable command, ScheduledFuture<?> accepted) {
        if (command instanceof RotaTask<?> task) {
            task.bindDelayed(engine.defaultGroup());
        }
        return accepted;
    }

    /** Receives delayed tasks as they come due, even after shutdown() (but not after shutdownNow()). */
    private final class DueTasks implements DueTaskSink {
        private final Affinity affinity;
        /** The CPUs of a pinned pool's workers; null for an unpinned pool: every CPU of the process. */
        private final BitSet cpus;

        DueTasks(Affinity affinity, BitSet cpus) {
            this.affinity = affinity;
            this.cpus = cpus;
        }

        /**
         * The timer may run on any CPU of the pool (of the process, for an unpinned pool), not only on
         * that of the pinned thread that started it. Best effort: where it fails the mask stays.
         */
        @Override
        public void timerStarted() {
            if (cpus != null) {
                affinity.allowCurrentThread(cpus);
            } else {
                engine.runOnAnyCpu();                    // as its workers do; best effort, never throws
            }
        }

        /**
         * A RotaTask given to schedule whose delayed future was cancelled: cancelled too, unless it
         * ran or runs already (its own claim decides), so that a join of it does not wait for ever.
         */
        @Override
        public void commandCancelled(Runnable command) {
            if (command instanceof RotaTask<?> task) {
                task.cancelUnstarted();
            }
        }

        /**
         * A shutdownNow takes back the delayed future of {@code command}: a RotaTask is cancelled
         * only if nobody started it (its own claim decides, as for one drained from a queue, see
         * GroupFuture.settleDrained); one done already (run by an invoke(), or cancelled by its
         * user) or running elsewhere leaves the future to complete with it, and unreturned.
         */
        @Override
        public CommandClaim claimUnstartedCommand(Runnable command) {
            if (command instanceof RotaTask<?> task) {
                return task.cancelUnstarted() ? CommandClaim.CLAIMED : CommandClaim.TAKEN_ELSEWHERE;
            }
            return CommandClaim.BY_ITS_FUTURE;
        }

        /**
         * A RotaTask's delayed future completes with the task and reports its outcome, as the future
         * of submit(task, result) does (see GroupFuture): RotaTask.run() keeps what compute() threw to
         * itself, and returns at once when another run holds the task.
         */
        @Override
        public void commandRan(Runnable command, DueTaskSink.Outcome outcome) {
            if (!(command instanceof RotaTask<?> task)) {
                outcome.completed();
                return;
            }
            task.whenDone(() -> {
                if (task.isCompletedNormally()) {
                    outcome.completed();
                } else if (task.isCancelled()) {
                    outcome.cancelled();
                } else {
                    outcome.failed(task.getException()); // the object compute() threw
                }
            });
        }

        /**
         * Refused only once the default group is closed; a full default group takes it past its
         * bound. The pool never closes it while the timer hands tasks over: shutdown() closes it
         * when the scheduler is idle (schedulerIdle, below), shutdownNow() after the scheduler's
         * shutdownNow(), which returns only once the timer's batch is handed over (S3 of
         * DelayScheduler). A refused task would be cancelled, not counted as rejected.
         */
        @Override
        public boolean submitDue(Runnable task) {
            return engine.executeDue(task);              // false: the scheduler cancels it
        }

        @Override
        public void schedulerIdle() {
            engine.shutdown();
        }

        /**
         * A wait for a delayed task: a managed block, without a loan. Until the task is due nothing
         * runs on the waiter's behalf, and a loan would give half the waiter's group's value to
         * unrelated work of the default group for the whole delay.
         */
        @Override
        public void block(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
            TicketTransfer.await(null, blocker);
        }
    }

    // ---- task groups ---------------------------------------------------------------------------

    /** The currency every other currency and group is funded from, directly or not. */
    public Currency baseCurrency() {
        return baseCurrency;
    }

    /**
     * A new group funded by {@code tickets} base tickets: {@code baseCurrency().newGroup(name, tickets)}.
     *
     * @throws IllegalArgumentException if {@code tickets} is not positive or would overflow the base
     *                                  currency's total, or the name is blank or used by a live group
     *                                  or a currency of this pool
     * @throws RejectedExecutionException if the pool is shut down
     */
    public TaskGroup group(String name, long tickets) {
        return baseCurrency.newGroup(name, tickets);
    }

    /**
     * The group that {@link #execute}, the {@code submit}s and {@code invoke*} feed, and where delayed
     * tasks run when due: funded by 100 base tickets, with no bound on its queue unless one is set
     * ({@link TaskGroup#setQueueCapacity}).
     */
    public TaskGroup defaultGroup() {
        return defaultGroup;
    }

    /** The groups of this pool that have not terminated, the default group first. */
    public List<TaskGroup> groups() {
        groups.removeIf(TaskGroup::isTerminated);
        return List.copyOf(groups);
    }

    /** How this pool divides CPU time between its groups. */
    public SharePolicy policy() {
        return policy;
    }

    /** The longest slice of one group on one worker before the policy chooses again. */
    public Duration quantum() {
        return quantum;
    }

    TaskGroup newGroup(String name, Currency currency, long tickets) {
        Objects.requireNonNull(name, "name");
        if (currency.pool() != this) {
            throw new IllegalArgumentException(currency + " belongs to another pool than " + this.name);
        }
        refuseIfShutdown("group", name);
        Group core = engine.dispatcher().newGroup(name, currency.node, tickets, TaskGroup.DEFAULT_QUEUE_CAPACITY,
                NAMED_GROUP_INBOX_CHUNK);
        TaskGroup group = new TaskGroup(this, core, currency, LAST_GROUP_ID.incrementAndGet());
        groups.removeIf(TaskGroup::isTerminated);        // else a pool that makes and ends groups keeps them all
        groups.add(group);
        return group;
    }

    /** The currency of this pool that {@code node} stands for. */
    Currency currencyOf(CurrencyNode node) {
        return node.isBase() ? baseCurrency : new Currency(this, node);
    }

    /**
     * Refuses a new group, currency or funding once this pool is shut down: none could ever serve a
     * task. A shutdown that races the check leaves one that serves none, and terminates with the pool.
     */
    void refuseIfShutdown(String kind, String name) {
        if (shutdownRequested) {
            throw new RejectedExecutionException("pool " + this.name + " is shut down: no new " + kind + " " + name);
        }
    }

    /** Inbox chunk of named groups: smaller than the default group's, as there may be many of them. */
    private static final int NAMED_GROUP_INBOX_CHUNK = 256;

    Dispatcher dispatcher() {
        return engine.dispatcher();
    }

    Engine engine() {
        return engine;
    }

    /** The CPUs of the workers, in worker order, for messages. */
    String workerCpus() {
        return topology.workers().stream().map(p -> String.valueOf(p.cpu())).distinct()
                .collect(java.util.stream.Collectors.joining(", "));
    }

    // ---- Rota ---------------------------------------------------------------------------------

    /** The CPUs this process may use, their grouping, and which worker is pinned to which CPU. */
    public CpuTopology topology() {
        return topology;
    }

    /** Number of workers. */
    public int workers() {
        return engine.workerCount();
    }

    /** Per-worker figures: tasks completed, tasks stolen from others, parks, queue length. */
    public List<WorkerStats> workerStats() {
        List<WorkerStats> stats = new ArrayList<>(engine.workerCount());
        for (int i = 0; i < engine.workerCount(); i++) {
            stats.add(new WorkerStats(i, topology.workers().get(i).cpu(), engine.tasksRun(i), engine.steals(i),
                    engine.parks(i), engine.queued(i)));
        }
        return stats;
    }

    /**
     * Tasks run to completion (or to an exception) by all workers and spare threads so far, counted
     * as the groups count them ({@link GroupStats#completedTasks()}): once the pool is quiescent, the
     * sum of its groups' counts (those of groups that terminated included). A task that a waiter ran
     * in place counts once, when its queued copy is skipped or drained by a {@code shutdownNow}.
     */
    public long completedTasks() {
        long sum = engine.spareTasksRun() + engine.drainedCompletedTasks();
        for (int i = 0; i < engine.workerCount(); i++) {
            sum += engine.tasksRun(i);
        }
        return sum;
    }

    /**
     * Tasks taken by a worker from another worker's queues so far, each task of a batch taken out of
     * an inbox included, as {@code ForkJoinPool.getStealCount()} counts stolen tasks.
     */
    public long stolenTasks() {
        long sum = 0;
        for (int i = 0; i < engine.workerCount(); i++) {
            sum += engine.steals(i);
        }
        return sum;
    }

    /** Times a worker went to sleep for want of work so far. */
    public long parks() {
        long sum = 0;
        for (int i = 0; i < engine.workerCount(); i++) {
            sum += engine.parks(i);
        }
        return sum;
    }

    /**
     * Figures of every live group and every worker. The groups' tickets, values and charged CPU
     * times are read at one instant, so their ratios are exact; the other counts are each exact for
     * their own group or worker.
     */
    public PoolSnapshot snapshot() {
        List<GroupStats> groupStats = dispatcher().read(() -> groups().stream().map(TaskGroup::stats).toList());
        return new PoolSnapshot(System.nanoTime(), groupStats, workerStats());
    }

    /** An estimate of the tasks accepted and not yet started; a delayed task counts once it has come due. */
    public long queuedTasks() {
        long sum = 0;
        for (int i = 0; i < engine.workerCount(); i++) {
            sum += engine.queued(i);
        }
        return sum;
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        // After shutdown() the engine runs on until the delayed one-shot tasks have come due; the
        // pool is shutting down meanwhile, as isShutdown() says.
        String state = shutdownRequested && !engine.isShutdown() ? "Shutting down" : engine.stateName();
        return super.toString() + "[" + state + ", name = " + name + ", workers = " + workers()
                + ", pinned = " + topology.pinned() + ", queued = " + queuedTasks()
                + ", completed = " + completedTasks() + ", stolen = " + stolenTasks() + ", parks = " + parks() + "]";
    }

    /** Builds a {@link RotaPool}; the only way to configure one. */
    public static final class Builder {
        /**
         * Most workers a pool may have: ForkJoinPool's limit on its parallelism. Every worker is a
         * thread started with the pool, pinned to a CPU, so a pool far above the CPU count only
         * shares those CPUs.
         */
        public static final int MAX_WORKERS = 0x7fff;

        private Integer workers;
        private int[] cpus;
        private Boolean pinning;                         // null: pin where native access allows, quietly
        private boolean daemon = true;
        private String name;
        private Thread.UncaughtExceptionHandler handler;
        private Affinity affinity = Affinity.system();
        private CpuTopology topology;
        /**
         * What the JVM says it may use: its CPUs, narrowed by a container's CPU quota; null until
         * {@link #build()} asks ({@link #processAvailableProcessors()}), or a test sets it.
         */
        private Integer availableProcessors;
        private boolean common;
        private int maxSpares = Engine.DEFAULT_MAX_SPARES;
        private Duration spareKeepAlive = Duration.ofNanos(Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS);
        private SharePolicy policy = SharePolicy.STRIDE;
        private Duration quantum = Duration.ofNanos(Engine.DEFAULT_QUANTUM_NANOS);
        private Long seed;

        private Builder() {}

        /** How CPU time is divided between task groups (default {@link SharePolicy#STRIDE}). */
        public Builder policy(SharePolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The scheduling quantum: the longest slice of one group on one worker before the policy
         * chooses again (default 1 ms). Shorter quanta share more finely and cost more decisions;
         * a group that receives work is considered at once whatever the quantum.
         *
         * @throws IllegalArgumentException unless between 1 µs and 1 s
         */
        public Builder quantum(Duration quantum) {
            Objects.requireNonNull(quantum, "quantum");
            if (quantum.compareTo(Duration.ofNanos(1_000)) < 0 || quantum.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("quantum must be between 1 µs and 1 s: " + quantum);
            }
            this.quantum = quantum;
            return this;
        }

        /** Seeds the lottery's random draws, for runs that repeat the same draws. */
        public Builder randomSeed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Most spare threads standing in for workers blocked in {@link #managedBlock} (default 256). */
        public Builder maxSpareThreads(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("maxSpareThreads must be >= 0: " + max);
            }
            this.maxSpares = max;
            return this;
        }

        /**
         * How long an unused spare thread waits to be reused before it exits (default 60 s); longer
         * than {@code Long.MAX_VALUE} nanoseconds (about 292 years) means for ever.
         */
        public Builder spareKeepAlive(Duration keepAlive) {
            Objects.requireNonNull(keepAlive, "keepAlive");
            if (keepAlive.isNegative() || keepAlive.isZero()) {
                throw new IllegalArgumentException("spareKeepAlive must be positive: " + keepAlive);
            }
            this.spareKeepAlive = keepAlive;
            return this;
        }

        private Builder common() {
            this.common = true;
            return this;
        }

        /**
         * Uses {@code n} workers on CPUs spread over distinct physical cores first (then their SMT
         * siblings). More workers than allowed CPUs share CPUs, in the same order.
         *
         * @throws IllegalArgumentException if {@code n} is below 1 or above {@link #MAX_WORKERS}
         */
        public Builder workers(int n) {
            if (n < 1 || n > MAX_WORKERS) {
                throw new IllegalArgumentException("workers must be in [1, " + MAX_WORKERS + "]: " + n);
            }
            this.workers = n;
            this.cpus = null;
            return this;
        }

        /**
         * Uses exactly these CPUs, one worker each, in this order.
         *
         * @throws IllegalArgumentException if none is named, or one is negative or named twice (the
         *                                  message names it); {@link #build()} throws it naming a CPU
         *                                  this process may not use
         */
        public Builder cpus(int... cpus) {
            Objects.requireNonNull(cpus, "cpus");
            if (cpus.length == 0) {
                throw new IllegalArgumentException("cpus must name at least one CPU");
            }
            int[] sorted = cpus.clone();
            Arrays.sort(sorted);
            for (int i = 0; i < sorted.length; i++) {
                if (sorted[i] < 0) {
                    throw new IllegalArgumentException("CPU numbers must be >= 0: " + sorted[i]);
                }
                if (i > 0 && sorted[i] == sorted[i - 1]) {
                    throw new IllegalArgumentException("CPU named twice: " + sorted[i]);
                }
            }
            this.cpus = cpus.clone();
            this.workers = null;
            return this;
        }

        /**
         * Whether workers pin themselves to their CPUs. By default they pin where the JVM allows
         * native access and otherwise run unpinned without a word outside {@link #topology()};
         * {@code pinning(true)} also says, once, how to enable it. With {@code pinning(false)} workers
         * may run on any CPU of the process, even when the pool is built on a pinned thread.
         */
        public Builder pinning(boolean pinning) {
            this.pinning = pinning;
            return this;
        }

        /** Whether worker threads are daemon threads (default true, as in ForkJoinPool). */
        public Builder daemon(boolean daemon) {
            this.daemon = daemon;
            return this;
        }

        /** Prefix of the worker threads' names (default {@code rota-N}); not blank. */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("pool name must not be blank: '" + name + "'");
            }
            this.name = name;
            return this;
        }

        /**
         * Receives exceptions escaping tasks given to {@code execute}, and the Error the pool's timer
         * thread would die of (default: the thread's own).
         */
        public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** For tests: the affinity and topology to use instead of the machine's. */
        Builder platform(Affinity affinity, CpuTopology topology) {
            this.affinity = Objects.requireNonNull(affinity, "affinity");
            this.topology = Objects.requireNonNull(topology, "topology");
            return this;
        }

        /** For tests: {@code Runtime.availableProcessors()} as a container's CPU quota would make it. */
        Builder availableProcessors(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("availableProcessors must be >= 1: " + n);
            }
            this.availableProcessors = n;
            return this;
        }

        /** The keep-alive in nanoseconds, saturated: {@code Duration.toNanos()} throws past 292 years. */
        private long spareKeepAliveNanos() {
            try {
                return spareKeepAlive.toNanos();
            } catch (ArithmeticException tooLong) {
                return Long.MAX_VALUE;
            }
        }

        /**
         * The workers asked for, or by default one per CPU the process may use, but no more than
         * {@code Runtime.availableProcessors()}: under a container's CPU quota (2 CPUs' worth of time
         * on a 64-CPU host, say) the JVM counts the quota, as {@code ForkJoinPool} does, and a worker
         * per CPU of the host would have the quota throttle all of them.
         */
        private int workers(CpuTopology machine) {
            if (workers != null) {
                return workers;
            }
            int available = availableProcessors != null ? availableProcessors : processAvailableProcessors();
            return Math.min(machine.cpus().size(), available);
        }

        /**
         * {@code Runtime.availableProcessors()} as a thread free to run on every CPU of the process
         * sees it. The JVM counts the CPUs of the calling thread's own mask before it applies a
         * container's quota, so on a thread pinned to one CPU (a task of another pool) it says 1:
         * a pool built there would get one worker, and the common pool, first used there, would keep
         * one for the JVM's whole life. The calling thread is widened for the call, then pinned back.
         */
        private static int processAvailableProcessors() {
            int[] available = new int[1];
            runUnpinned(() -> available[0] = Runtime.getRuntime().availableProcessors());
            return available[0];
        }

        public RotaPool build() {
            return new RotaPool(this);
        }
    }
}
