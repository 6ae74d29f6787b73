package dev.rota.bench.throughput;

import dev.rota.bench.Pools;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Claim: a {@code RotaPool} schedules and cancels delayed tasks at least as fast (1.0×) as a
 * {@code ScheduledThreadPoolExecutor} with the same number of workers.
 *
 * <p>The pattern is that of timeouts: most delayed tasks are cancelled long before they come due.
 * One operation is one schedule + cancel pair: an invocation schedules {@value #TASKS_PER_OP}
 * one-shot tasks with {@code schedule(Runnable, delay, NANOSECONDS)}, then cancels all of them with
 * {@code cancel(false)}, in the order they were scheduled; the score is pairs per second. The delays
 * are fixed at set-up, pseudo-random (fixed seed) between {@value #MIN_DELAY_SECONDS} s and
 * {@value #MAX_DELAY_SECONDS} s, so none comes due while an invocation lasts (well under a
 * millisecond) and the tasks enter each pool's delay queue in an order other than their deadlines'.
 * A pool's delay queue holds up to {@value #TASKS_PER_OP} tasks during an invocation, none between
 * invocations, except as a pool's cancel policy leaves them (below). Submission is from the
 * benchmark thread, outside the pool; nothing ever runs on the workers.
 *
 * <p>Pools, all with {@code workers} threads (2 by default), in the same run:
 * <ul>
 *   <li>{@code rota}: {@code RotaPool}, whose cancel removes the task from its delay queue at once;
 *   <li>{@code forkjoin}: {@code new ForkJoinPool(workers)}, a {@code ScheduledExecutorService} since
 *       JDK 25: schedule and cancel are requests that its scheduler thread applies to its delay queue
 *       asynchronously;
 *   <li>{@code stpe-remove}: {@code ScheduledThreadPoolExecutor} with
 *       {@code setRemoveOnCancelPolicy(true)}, which removes a cancelled task at once, as Rota does:
 *       the like-for-like comparison, and what a user who cancels timeouts by the thousand sets;
 *   <li>{@code stpe}: {@code new ScheduledThreadPoolExecutor(workers)} as constructed, whose cancel
 *       only marks the task: it stays queued, holding memory and making later inserts dearer, until
 *       its delay ends. Within an iteration its queue grows by every task scheduled (millions);
 *       the iteration tear-down below empties it with {@code purge()}, so that each iteration starts
 *       from an empty queue, as the other pools' do. That favours {@code stpe}: without the purge,
 *       its queue would hold some {@value #MAX_DELAY_SECONDS} s' worth of cancelled tasks.
 * </ul>
 * {@code ThreadPoolExecutor} is left out: it does not schedule.
 *
 * <p>Cancelled tasks must leave the pool, or later iterations would run against a fuller queue and
 * more live memory than earlier ones. After each iteration, outside the measured time, the tear-down
 * (for {@code stpe} after {@code purge()}) keeps only weak references to the last invocation's
 * {@value #TASKS_PER_OP} futures and runs {@code System.gc()} until all are cleared (pausing 10 ms
 * between collections, doubling up to 1 s), so that the pool is known to hold none of them (for
 * {@code forkjoin} this also waits for its scheduler thread to apply the cancellations). It throws if
 * any is still reachable after {@value #RELEASE_SECONDS} s. It
 * then records the heap in use after that collection; a pool that kept cancelled tasks would show it
 * growing from iteration to iteration. The trial tear-down prints one line per trial with these
 * figures, and with the queue lengths that the JDK pools report ({@code getQueue().size()},
 * {@code getDelayedTaskCount()}) at the end of each iteration.
 *
 * <p>A task that runs, or a cancel that fails, fails the run: {@code cancel(false)} must return true
 * for every task (false means the task already ran, or the pool lost track of it), and the tasks'
 * shared run counter must still be 0 at the end of the trial.
 *
 * <p>Not measured: tasks that come due, periodic tasks, several scheduling threads, and how late a
 * due task runs.
 *
 * <p>Run from the repository root: {@code jmh/run.sh ScheduleCancel} (JMH options may follow; see
 * docs/BENCHMARKS.md for the latest figures).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ScheduleCancelBenchmark {
    /** Schedule + cancel pairs per invocation: the size of a burst of timeouts. */
    static final int TASKS_PER_OP = 1000;

    static final long MIN_DELAY_SECONDS = 1;
    static final long MAX_DELAY_SECONDS = 10;

    /** The pool must let go of cancelled tasks within this long after an iteration. */
    static final long RELEASE_SECONDS = 30;

    @Param({Pools.ROTA, Pools.FORK_JOIN, Pools.SCHEDULED_REMOVE_ON_CANCEL, Pools.SCHEDULED})
    public String pool;

    @Param({"2"})
    public int workers;

    private ScheduledExecutorService executor;
    private long[] delayNanos;
    private ScheduledFuture<?>[] futures;
    /** Counts runs of the task; none is expected. */
    private final AtomicLong ran = new AtomicLong();
    private final Runnable task = ran::incrementAndGet;

    private final Check check = new Check();

    @Setup(Level.Trial)
    public void startPool() {
        executor = Pools.createScheduled(pool, workers);
        SplittableRandom random = new SplittableRandom(7);
        delayNanos = random.longs(TASKS_PER_OP,
                TimeUnit.SECONDS.toNanos(MIN_DELAY_SECONDS), TimeUnit.SECONDS.toNanos(MAX_DELAY_SECONDS)).toArray();
        futures = new ScheduledFuture<?>[TASKS_PER_OP];
    }

    @Benchmark
    @OperationsPerInvocation(TASKS_PER_OP)
    public void scheduleThenCancel() {
        ScheduledExecutorService executor = this.executor;
        ScheduledFuture<?>[] futures = this.futures;
        long[] delayNanos = this.delayNanos;
        for (int i = 0; i < TASKS_PER_OP; i++) {
            futures[i] = executor.schedule(task, delayNanos[i], TimeUnit.NANOSECONDS);
        }
        for (int i = 0; i < TASKS_PER_OP; i++) {
            if (!futures[i].cancel(false)) {
                throw new IllegalStateException("cancel failed for a task due in " + delayNanos[i]
                        + " ns: it ran, or the pool lost it: " + futures[i]);
            }
        }
    }

    /** Outside the measured time: the last invocation's cancelled tasks must leave the pool. */
    @TearDown(Level.Iteration)
    public void checkCancelledTasksLeftPool() throws InterruptedException {
        switch (executor) {
            case ScheduledThreadPoolExecutor stpe -> {
                check.queuedAtEnd = Math.max(check.queuedAtEnd, stpe.getQueue().size());
                if (!stpe.getRemoveOnCancelPolicy()) {
                    stpe.purge();
                }
            }
            case ForkJoinPool forkJoin ->
                    check.queuedAtEnd = Math.max(check.queuedAtEnd, forkJoin.getDelayedTaskCount());
            default -> check.queuedAtEnd = -1;                 // RotaPool offers no such count
        }
        WeakReference<?>[] cancelled = new WeakReference<?>[TASKS_PER_OP];
        for (int i = 0; i < TASKS_PER_OP; i++) {
            cancelled[i] = new WeakReference<>(futures[i]);
            futures[i] = null;
        }
        long start = System.nanoTime();
        int collections = 0;
        int reachable;
        long pauseMillis = 10;
        while ((reachable = countReachable(cancelled)) > 0 || collections == 0) {
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(RELEASE_SECONDS)) {
                throw new IllegalStateException(pool + " still holds " + reachable + " of the last " + TASKS_PER_OP
                        + " cancelled tasks " + RELEASE_SECONDS + " s after the iteration ended");
            }
            if (collections > 0) {
                // Let an asynchronous scheduler catch up; doubling, so that a slow release costs a
                // few collections rather than one every few milliseconds.
                Thread.sleep(pauseMillis);
                pauseMillis = Math.min(2 * pauseMillis, 1000);
                check.lateReleases++;
                check.maxReachableAfterFirstCollection = Math.max(check.maxReachableAfterFirstCollection, reachable);
            }
            System.gc();
            collections++;
        }
        check.record(collections, System.nanoTime() - start,
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }

    private static int countReachable(WeakReference<?>[] references) {
        int reachable = 0;
        for (WeakReference<?> reference : references) {
            if (reference.get() != null) {
                reachable++;
            }
        }
        return reachable;
    }

    @TearDown(Level.Trial)
    public void stopPool() throws InterruptedException {
        System.out.println(check.describe(pool));
        Pools.shutdown(executor);
        if (ran.get() != 0) {
            throw new IllegalStateException(ran.get() + " cancelled tasks ran in " + pool);
        }
    }

    /** Figures of the iteration tear-downs, printed once per trial. */
    private static final class Check {
        int iterations;
        int maxCollections;
        long maxReleaseNanos;
        long firstHeapUsed = -1;
        long lastHeapUsed;
        long maxHeapUsed;
        long queuedAtEnd;
        /** Collections after the first that found some of the cancelled tasks still reachable. */
        int lateReleases;
        int maxReachableAfterFirstCollection;

        void record(int collections, long releaseNanos, long heapUsed) {
            iterations++;
            maxCollections = Math.max(maxCollections, collections);
            maxReleaseNanos = Math.max(maxReleaseNanos, releaseNanos);
            if (firstHeapUsed < 0) {
                firstHeapUsed = heapUsed;
            }
            lastHeapUsed = heapUsed;
            maxHeapUsed = Math.max(maxHeapUsed, heapUsed);
        }

        String describe(String pool) {
            return String.format("[cancelled-task check] pool=%s: %d iterations; the last %d cancelled tasks became "
                            + "unreachable every time, within at most %d System.gc() and %.0f ms (still reachable after "
                            + "a collection: %d times, at most %d tasks); heap in use after GC: first %.1f MiB, "
                            + "last %.1f MiB, max %.1f MiB; delayed tasks queued at iteration end, max: %s",
                    pool, iterations, TASKS_PER_OP, maxCollections, maxReleaseNanos / 1e6, lateReleases,
                    maxReachableAfterFirstCollection, firstHeapUsed / 1048576.0, lastHeapUsed / 1048576.0,
                    maxHeapUsed / 1048576.0, queuedAtEnd < 0 ? "(no count offered)" : Long.toString(queuedAtEnd));
        }
    }
}
