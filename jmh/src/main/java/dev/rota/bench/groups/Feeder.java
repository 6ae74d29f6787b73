package dev.rota.bench.groups;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A thread outside the pool that feeds one stream of CPU-bound tasks into one executor (a tier's
 * {@code TaskGroup} on Rota, the pool itself on the JDK's pools), every {@value #TICK_MICROS} µs:
 *
 * <ul>
 *   <li>{@link #backlog}: tops the stream's outstanding tasks (submitted and not yet finished) back
 *       up to a target, so the stream always has about that many tasks queued: a tenant that floods
 *       the pool, or a permanently backlogged group;</li>
 *   <li>{@link #steady}: submits a fixed number of tasks per tick whatever is still queued: an open
 *       stream at a fixed rate.</li>
 * </ul>
 *
 * <p>Each task does a fixed amount of work ({@link Work}) and counts itself. With
 * {@code measureCpu}, a task also adds the CPU time of its own thread while it ran
 * ({@link ThreadMXBean#getCurrentThreadCpuTime()} before and after) to {@link #cpuNanos()}: how the
 * fairness harness measures the share a stream received in a pool that keeps no such figure.
 *
 * <p>The feeder sleeps between ticks ({@code parkNanos}), so it takes little CPU time from the
 * workers; the tick is long against a submission and short against the time a backlog takes to
 * drain, so the backlog never runs dry between two ticks.
 */
final class Feeder implements AutoCloseable {
    /** Time between two rounds of submissions. Backlogs here hold tens of milliseconds of work. */
    static final long TICK_MICROS = 1_000;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Executor target;
    private final boolean keepBacklog;
    private final int amount;
    private final Runnable task;
    private final Thread thread;
    private volatile boolean stopped;

    private final AtomicLong outstanding = new AtomicLong();
    private final LongAdder completed = new LongAdder();
    private final LongAdder cpuNanos = new LongAdder();
    // The feeder thread's own figures; read after close().
    private long submitted;
    private long rejected;
    private long ticks;
    private long outstandingBeforeTopUp;
    private long startNanos;
    private long stopNanos;

    private Feeder(String name, Executor target, long taskNanos, boolean keepBacklog, int amount, boolean measureCpu) {
        if (amount < 1) {
            throw new IllegalArgumentException("amount must be >= 1: " + amount);
        }
        this.target = target;
        this.keepBacklog = keepBacklog;
        this.amount = amount;
        long tokens = Work.tokensFor(taskNanos);
        if (measureCpu) {
            if (!THREADS.isCurrentThreadCpuTimeSupported()) {
                throw new IllegalStateException("this JVM cannot measure a thread's CPU time");
            }
            this.task = () -> {
                long start = THREADS.getCurrentThreadCpuTime();
                Work.run(tokens);
                cpuNanos.add(THREADS.getCurrentThreadCpuTime() - start);
                finished();
            };
        } else {
            this.task = () -> {
                Work.run(tokens);
                finished();
            };
        }
        this.thread = new Thread(this::feed, name);
        this.thread.setDaemon(true);
    }

    /** A feeder that keeps {@code backlog} tasks of {@code taskNanos} outstanding in {@code target}. */
    static Feeder backlog(String name, Executor target, long taskNanos, int backlog, boolean measureCpu) {
        return new Feeder(name, target, taskNanos, true, backlog, measureCpu);
    }

    /** A feeder that submits {@code perTick} tasks of {@code taskNanos} to {@code target} every tick. */
    static Feeder steady(String name, Executor target, long taskNanos, int perTick) {
        return new Feeder(name, target, taskNanos, false, perTick, false);
    }

    Feeder start() {
        startNanos = System.nanoTime();
        thread.start();
        return this;
    }

    private void finished() {
        outstanding.decrementAndGet();
        completed.increment();
    }

    private void feed() {
        while (!stopped) {
            long now = outstanding.get();
            outstandingBeforeTopUp += now;
            ticks++;
            long toSubmit = keepBacklog ? amount - now : amount;
            for (long i = 0; i < toSubmit && !stopped; i++) {
                outstanding.incrementAndGet();
                try {
                    target.execute(task);
                    submitted++;
                } catch (RejectedExecutionException full) {
                    outstanding.decrementAndGet();
                    rejected++;
                    break;                               // a full queue: try again next tick
                }
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(TICK_MICROS));
        }
    }

    /** Stops submitting and waits for the feeder thread; tasks already submitted still run. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        LockSupport.unpark(thread);
        thread.join();
        stopNanos = System.nanoTime();
    }

    /** Tasks finished per second between {@link #start()} and {@link #close()}. */
    double completedPerSecond() {
        return completed() * 1e9 / (stopNanos - startNanos);
    }

    long completed() {
        return completed.sum();
    }

    /** Thread CPU time of the tasks that finished (only with {@code measureCpu}). */
    long cpuNanos() {
        return cpuNanos.sum();
    }

    /** Tasks submitted and accepted; exact after {@link #close()}. */
    long submitted() {
        return submitted;
    }

    /** Submissions refused (a full queue); exact after {@link #close()}. */
    long rejected() {
        return rejected;
    }

    /** Mean count of outstanding tasks the feeder found at a tick, before topping up; after {@link #close()}. */
    double meanOutstanding() {
        return ticks == 0 ? 0 : (double) outstandingBeforeTopUp / ticks;
    }
}
