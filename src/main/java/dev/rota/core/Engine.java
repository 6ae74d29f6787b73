package dev.rota.core;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.PinResult;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The workers of one pool and the protocols between them: where a submission goes, who is woken,
 * and how the pool shuts down without losing a task.
 *
 * <p>Run states, which only increase: {@code RUNNING → SHUTDOWN → STOP → TERMINATED}.
 *
 * <p>Invariants:
 * <ul>
 *   <li>E1: a submission is accepted exactly when its inbox's {@link AdmissionGate} lets it in;
 *       shutdown closes every gate, so nothing is accepted after {@code shutdown()} returns.</li>
 *   <li>E2: after {@code SHUTDOWN}, a worker exits only when every gate is closed and drained and
 *       every inbox and deque is empty: all accepted tasks have then been taken (and, W2, will run).</li>
 *   <li>E3: {@code shutdownNow()} waits for the gates to drain, then takes every inbox's consumer
 *       token for good; by W1 no task can then move between queues, so draining the inboxes and
 *       stealing the deques empty returns every task not yet taken, each exactly once.</li>
 *   <li>E4: the pool is TERMINATED when its last worker has exited; nothing runs afterwards.</li>
 * </ul>
 */
public final class Engine {
    public static final int RUNNING = 0;
    public static final int SHUTDOWN = 1;
    public static final int STOP = 2;
    public static final int TERMINATED = 3;

    /** As ForkJoinPool's default bound on spare threads. */
    public static final int DEFAULT_MAX_SPARES = 256;
    /** As ForkJoinPool's default keep-alive of unused threads. */
    public static final long DEFAULT_SPARE_KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(60);

    private static final VarHandle RUN_STATE;

    static {
        try {
            RUN_STATE = MethodHandles.lookup().findVarHandle(Engine.class, "runState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Worker[] workers;
    private final Affinity affinity;
    private final boolean pinning;
    private final Thread.UncaughtExceptionHandler handler;
    private final CountDownLatch started;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicInteger liveWorkers;
    private final AtomicInteger parkedCount = new AtomicInteger();
    private final SpareThreads spares;
    private final java.util.concurrent.atomic.LongAdder spareTasks = new java.util.concurrent.atomic.LongAdder();
    private volatile int runState = RUNNING;
    /** Set by shutdownNow once it has taken every queued task (E3); workers then clean up after it. */
    private volatile boolean stopDrained;
    /** Task groups' queues and the like; null until installed. Written once (see setWorkSource). */
    private volatile WorkSource workSource;

    /**
     * @param cpus     the CPU of each worker, in worker order
     * @param stealOrder for each worker, the indices of the others in the order it steals from them
     * @param pinning  whether workers pin themselves to their CPUs
     * @param handler  receives exceptions escaping tasks given to {@code execute}; null for the thread's default
     */
    public Engine(String name, int[] cpus, int[][] stealOrder, Affinity affinity, boolean pinning,
                  Thread.UncaughtExceptionHandler handler, boolean daemon) {
        this(name, cpus, stealOrder, affinity, pinning, handler, daemon, DEFAULT_MAX_SPARES, DEFAULT_SPARE_KEEP_ALIVE_NANOS);
    }

    /**
     * @param maxSpares           most spare threads standing in for blocked workers at once
     * @param spareKeepAliveNanos how long an unused spare thread waits before it exits
     */
    public Engine(String name, int[] cpus, int[][] stealOrder, Affinity affinity, boolean pinning,
                  Thread.UncaughtExceptionHandler handler, boolean daemon, int maxSpares, long spareKeepAliveNanos) {
        this.affinity = affinity;
        this.pinning = pinning;
        this.handler = handler;
        this.workers = new Worker[cpus.length];
        for (int i = 0; i < cpus.length; i++) {
            workers[i] = new Worker(this, i, cpus[i], name + "-worker-" + i);
            workers[i].thread.setDaemon(daemon);
            if (handler != null) {
                workers[i].thread.setUncaughtExceptionHandler(handler);
            }
        }
        for (int i = 0; i < cpus.length; i++) {
            Worker[] victims = new Worker[stealOrder[i].length];
            for (int k = 0; k < victims.length; k++) {
                victims[k] = workers[stealOrder[i][k]];
            }
            workers[i].setVictims(victims);
        }
        this.started = new CountDownLatch(cpus.length);
        this.liveWorkers = new AtomicInteger(cpus.length);
        this.spares = new SpareThreads(this, name, maxSpares, spareKeepAliveNanos, daemon, handler);
    }

    /** Starts the workers and waits until each has pinned itself (or failed to); returns the results. */
    public List<PinResult> start() {
        for (Worker w : workers) {
            w.thread.start();
        }
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
    }

    // ---- submission -------------------------------------------------------------------------

    /**
     * Queues {@code task} on the caller's own worker, or, from any other thread, on the worker that
     * thread is mapped to; wakes a parked worker.
     *
     * <p>An outside thread always submits to the same inbox (its thread id modulo the worker count),
     * as ForkJoinPool maps a submitter to one submission queue: several submitters then write to
     * different cache lines instead of fighting over each inbox's, and consecutive threads spread
     * over the workers. Idle workers steal from an inbox that gets more than its worker can run.
     */
    public void execute(Runnable task) {
        Worker target = callerWorker();
        if (target == null) {
            target = workers[(int) (Thread.currentThread().threadId() % workers.length)];
        }
        if (!target.inbox.offer(task)) {
            throw new RejectedExecutionException("pool is " + stateName() + ": task rejected: " + task);
        }
        signalWork(target);                              // W3: the offer precedes this count read
    }

    /** The worker of this pool running the calling thread, or null. */
    private Worker callerWorker() {
        return Thread.currentThread() instanceof WorkerThread wt && wt.worker.engine == this ? wt.worker : null;
    }

    /**
     * Installs the pool's {@link WorkSource}; at most once, before or while running.
     *
     * @throws IllegalStateException if one is installed already
     */
    public void setWorkSource(WorkSource source) {
        synchronized (this) {
            if (workSource != null) {
                throw new IllegalStateException("work source already installed");
            }
            workSource = source;
        }
        if (runState >= SHUTDOWN) {
            source.close();
        }
    }

    WorkSource workSource() {
        return workSource;
    }

    /** Called after work is offered to the {@link WorkSource}: wakes a parked worker if any (W3). */
    public void signalWork() {
        if (parkedCount.get() != 0) {
            signalWork(workers[ThreadLocalRandom.current().nextInt(workers.length)]);
        }
    }

    /** Wakes one parked worker, preferring {@code near}, when any is parked. */
    void signalWork(Worker near) {
        if (parkedCount.get() == 0) {
            return;
        }
        int n = workers.length;
        for (int i = 0; i < n; i++) {
            if (workers[(near.index + i) % n].wake()) {
                return;
            }
        }
    }

    void parkedCountIncrement() {
        parkedCount.incrementAndGet();
    }

    void parkedCountDecrement() {
        parkedCount.decrementAndGet();
    }

    // ---- workers' view ----------------------------------------------------------------------

    PinResult pinCurrentThread(int cpu) {
        if (!pinning) {
            return PinResult.failure(cpu, "pinning disabled");
        }
        if (!affinity.canPin()) {
            return PinResult.failure(cpu, affinity.unavailableReason());
        }
        try {
            return affinity.pinCurrentThread(cpu);
        } catch (RuntimeException | LinkageError e) {
            return PinResult.failure(cpu, e.toString());
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
        for (Worker w : workers) {
            if (!w.inbox.gate().isDrained()) {
                return false;
            }
        }
        WorkSource source = workSource;
        if (source != null && (!source.isDrained() || source.hasWork())) {
            return false;
        }
        for (Worker w : workers) {
            if (w.inbox.hasWork() || !w.deque.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    void workerExited(Worker worker) {
        participantExited();
    }

    /** A spare begins to stand in for a blocked (so still live) worker: E4 counts it. */
    void participantEntered() {
        liveWorkers.incrementAndGet();
    }

    /** A worker exited or a spare finished standing in; the last one terminates the pool (E4). */
    void participantExited() {
        if (liveWorkers.decrementAndGet() == 0) {
            RUN_STATE.setVolatile(this, TERMINATED);
            terminated.countDown();
            spares.terminate();
        }
    }

    // ---- managed blocking ---------------------------------------------------------------------

    /**
     * Blocks the calling worker in {@code blocker} while a spare thread, pinned to the same CPU,
     * runs other tasks (bounded by the spare limit); from any other thread, just blocks.
     */
    public static void managedBlock(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        java.util.Objects.requireNonNull(blocker, "blocker");
        Worker worker = Thread.currentThread() instanceof WorkerThread wt ? wt.worker : null;
        if (worker == null || blocker.isReleasable()) {
            blockUntilReleasable(blocker);
            return;
        }
        SpareThreads.Spare spare = worker.engine.spares.standIn(worker);
        try {
            blockUntilReleasable(blocker);
        } finally {
            if (spare != null) {
                spare.release();
            }
        }
    }

    private static void blockUntilReleasable(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        while (!blocker.isReleasable() && !blocker.block()) {
            // block() returned false: not done yet, block again
        }
    }

    /**
     * One task from anywhere, for a spare standing in for worker {@code near}: the deques first,
     * starting at {@code near}, then one task from an inbox, then the work source. Never more than
     * one task (S2 in SpareThreads).
     */
    Runnable takeOneTask(int near) {
        int n = workers.length;
        for (int i = 0; i < n; i++) {
            Runnable task = workers[(near + i) % n].deque.steal();
            if (task != null) {
                return task;
            }
        }
        for (int i = 0; i < n; i++) {
            Inbox inbox = workers[(near + i) % n].inbox;
            if (inbox.hasWork() && inbox.tryAcquireConsumer()) {
                Runnable task;
                try {
                    task = inbox.poll();
                } finally {
                    inbox.releaseConsumer();
                }
                if (task != null) {
                    return task;
                }
            }
        }
        WorkSource source = workSource;
        return source == null ? null : source.poll(near, workers[near].cpu);
    }

    Affinity affinity() {
        return affinity;
    }

    boolean pinning() {
        return pinning;
    }

    void countSpareTask() {
        spareTasks.increment();
    }

    /** Tasks run by spare threads so far. */
    public long spareTasksRun() {
        return spareTasks.sum();
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
        for (Worker w : workers) {
            w.inbox.gate().close();                      // E1
        }
        WorkSource source = workSource;
        if (source != null) {
            source.close();
        }
        wakeAll();
    }

    /**
     * E3: returns every accepted task that no worker has taken, each exactly once. Only the call
     * that moves the pool to STOP drains it; later or concurrent calls return an empty list.
     */
    public List<Runnable> shutdownNow() {
        if (!advanceRunState(STOP)) {
            return new ArrayList<>();
        }
        for (Worker w : workers) {
            w.inbox.gate().close();
        }
        WorkSource source = workSource;
        if (source != null) {
            source.close();
        }
        for (Worker w : workers) {
            while (!w.inbox.gate().isDrained()) {
                Thread.onSpinWait();                     // producers leave the gate in a few instructions
            }
        }
        while (source != null && !source.isDrained()) {
            Thread.onSpinWait();
        }
        List<Runnable> pending = new ArrayList<>();
        if (source != null) {
            source.drainTo(pending);
        }
        for (Worker w : workers) {
            while (!w.inbox.tryAcquireConsumer()) {
                Thread.yield();                          // held only while a worker moves one batch; never released again
            }
        }
        for (Worker w : workers) {
            Runnable task;
            while ((task = w.inbox.poll()) != null) {
                pending.add(task);
            }
        }
        for (Worker w : workers) {
            while (!w.deque.isEmpty()) {
                Runnable task = w.deque.steal();
                if (task != null) {
                    pending.add(task);
                }
            }
        }
        stopDrained = true;
        for (Worker w : workers) {
            w.thread.interrupt();
        }
        wakeAll();
        return pending;
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

    private void wakeAll() {
        for (Worker w : workers) {
            w.wake();
        }
    }

    public boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    public boolean isTerminated() {
        return runState == TERMINATED;
    }

    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    // ---- observation --------------------------------------------------------------------------

    /** For the package's tests: the worker at {@code index}. */
    Worker worker(int index) {
        return workers[index];
    }

    public int workerCount() {
        return workers.length;
    }

    public long tasksRun(int worker) {
        return workers[worker].tasksRun();
    }

    public long steals(int worker) {
        return workers[worker].steals();
    }

    public long parks(int worker) {
        return workers[worker].parks();
    }

    public int queued(int worker) {
        return workers[worker].inbox.size() + workers[worker].deque.size();
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
