package dev.rota.core;

import dev.rota.affinity.PinResult;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker: a thread pinned to one CPU, its {@link Inbox} and {@link TaskDeque}, and its duty
 * cycle: find a task (own deque, own inbox, then steal), run it, or back off and park.
 *
 * <p>Invariants:
 * <ul>
 *   <li>W1: a task moved out of an inbox is pushed onto this worker's deque (or run) while the
 *       inbox's consumer token is still held, so whoever holds every token sees every task that
 *       left the inboxes already in a deque ({@link Engine#shutdownNow()} relies on this).</li>
 *   <li>W2: a task taken from any queue is run, whatever the pool's state: only taking is refused
 *       once the pool stops. Hence accepted = run + returned by shutdownNow.</li>
 *   <li>W3 (no lost wake-up): a worker publishes {@code PARKED} and counts itself parked, then
 *       searches once more before it sleeps; a producer offers, then reads the parked count. Both
 *       sides are sequentially consistent, so either the producer sees the count and wakes a
 *       worker, or the worker's last search sees the task.</li>
 * </ul>
 */
final class Worker implements Runnable {
    static final int ACTIVE = 0;
    static final int PARKED = 1;

    /** Most tasks moved from an inbox in one go; bounds the time the consumer token is held. */
    static final int BATCH = 64;

    private static final VarHandle PARK_STATE;
    private static final VarHandle TASKS_RUN;
    private static final VarHandle STEALS;
    private static final VarHandle PARKS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PARK_STATE = lookup.findVarHandle(Worker.class, "parkState", int.class);
            TASKS_RUN = lookup.findVarHandle(Worker.class, "tasksRun", long.class);
            STEALS = lookup.findVarHandle(Worker.class, "steals", long.class);
            PARKS = lookup.findVarHandle(Worker.class, "parks", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Engine engine;
    final int index;
    final int cpu;
    final Inbox inbox = new Inbox();
    final TaskDeque deque = new TaskDeque();
    final WorkerThread thread;

    private final Runnable[] batch = new Runnable[BATCH];
    private final IdleBackoff backoff = new IdleBackoff();
    /** Other workers in the order this one steals from them (topology order). Set before start. */
    private Worker[] victims = new Worker[0];
    private volatile PinResult pin;

    private volatile int parkState = ACTIVE;
    // Written by this worker only (opaque), read by anyone for statistics.
    private long tasksRun;
    private long steals;
    private long parks;

    Worker(Engine engine, int index, int cpu, String threadName) {
        this.engine = engine;
        this.index = index;
        this.cpu = cpu;
        this.thread = new WorkerThread(this, threadName);
    }

    void setVictims(Worker[] victims) {
        this.victims = victims.clone();
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
            if (engine.isStopping()) {
                cancelLeftovers();
            }
            engine.workerExited(this);
        }
    }

    private void dutyCycle() {
        while (true) {
            Runnable task = findTask();
            if (task != null) {
                backoff.reset();
                runTask(task);
                continue;
            }
            if (engine.runState() >= Engine.SHUTDOWN) {
                if (engine.mayWorkerExit()) {
                    return;
                }
                Thread.yield();                          // a producer is still inside a gate
                continue;
            }
            if (backoff.idle()) {
                park();
                backoff.reset();
            }
        }
    }

    /**
     * Runs one task found anywhere (own deque, own inbox, the others' queues) on behalf of a task
     * that waits for another (a join); false when there was nothing to run.
     */
    boolean helpOnce() {
        Runnable task = findTask();
        if (task == null) {
            return false;
        }
        runTask(task);
        return true;
    }

    /** Owner only: pushes a forked task on this worker's deque and lets an idle worker know. */
    void pushLocal(Runnable task) {
        deque.push(task);
        engine.signalWork(this);
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
        Runnable task;
        while ((task = deque.pop()) != null) {
            if (task instanceof java.util.concurrent.Future<?> future) {
                future.cancel(false);
            } else {
                runTask(task);
            }
        }
    }

    private void runTask(Runnable task) {
        try {
            task.run();
        } catch (Throwable failure) {
            engine.reportUncaught(thread, failure);
        }
        TASKS_RUN.setOpaque(this, tasksRun + 1);
        Thread.interrupted();                            // a late cancel(true) must not hit the next task
    }

    /** Own deque, then own inbox, then the others' deques and inboxes; null when there is nothing. */
    private Runnable findTask() {
        if (engine.isStopping()) {
            return null;                                 // W2: take nothing more once stopping
        }
        Runnable task = deque.pop();
        if (task != null) {
            return task;
        }
        task = takeFromInbox(inbox, BATCH);
        if (task != null) {
            return task;
        }
        WorkSource source = engine.workSource();
        if (source != null && (task = source.poll(index, cpu)) != null) {
            return task;
        }
        return steal();
    }

    private Runnable steal() {
        for (Worker victim : victims) {
            Runnable task = victim.deque.steal();
            if (task != null) {
                STEALS.setOpaque(this, steals + 1);
                if (!victim.deque.isEmpty()) {
                    engine.signalWork(victim);           // more to take: let another idle worker help
                }
                return task;
            }
        }
        for (Worker victim : victims) {
            if (victim.inbox.hasWork()) {
                int half = Math.max(1, Math.min(BATCH, victim.inbox.size() / 2));
                Runnable task = takeFromInbox(victim.inbox, half);
                if (task != null) {
                    STEALS.setOpaque(this, steals + 1);
                    return task;
                }
            }
        }
        return null;
    }

    /**
     * Moves up to {@code max} tasks from {@code source} to this worker: the oldest is returned to run
     * now, the rest are pushed newest first, so that LIFO pops run them oldest first. Keeps W1.
     */
    private Runnable takeFromInbox(Inbox source, int max) {
        if (!source.hasWork() || !source.tryAcquireConsumer()) {
            return null;
        }
        int n = 0;
        try {
            Runnable task;
            while (n < max && (task = source.poll()) != null) {
                batch[n++] = task;
            }
            for (int i = n - 1; i >= 1; i--) {
                deque.push(batch[i]);
                batch[i] = null;
            }
        } finally {
            source.releaseConsumer();
        }
        if (n == 0) {
            return null;
        }
        if (n == max && max > 1) {
            engine.signalWork(this);                     // a full batch: this worker is falling behind
        }
        Runnable first = batch[0];
        batch[0] = null;
        return first;
    }

    /** True when any queue this worker could take from holds a task (volatile reads only). */
    boolean seesWork() {
        if (!deque.isEmpty() || inbox.hasWork()) {
            return true;
        }
        WorkSource source = engine.workSource();
        if (source != null && source.hasWork()) {
            return true;
        }
        for (Worker victim : victims) {
            if (!victim.deque.isEmpty() || victim.inbox.hasWork()) {
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
     * Publishes PARKED and searches once more (W3). Returns true when the worker must now sleep
     * until woken; false when it found work or shutdown and is ACTIVE again (or a waker already
     * made it ACTIVE, leaving an unpark permit that the next park consumes harmlessly).
     */
    boolean prepareToPark() {
        PARK_STATE.setVolatile(this, PARKED);
        engine.parkedCountIncrement();
        VarHandle.fullFence();                           // store-load: pairs with the producer's offer, then count read
        if (seesWork() || engine.runState() >= Engine.SHUTDOWN) {
            if (PARK_STATE.compareAndSet(this, PARKED, ACTIVE)) {
                engine.parkedCountDecrement();
            }
            return false;
        }
        return true;
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

    long parks() {
        return (long) PARKS.getOpaque(this);
    }

    boolean isParked() {
        return parkState == PARKED;
    }
}
