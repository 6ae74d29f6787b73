package dev.rota.bench.groups;

import dev.rota.GroupStats;
import dev.rota.SharePolicy;
import dev.rota.TaskGroup;
import dev.rota.bench.Pools;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Claim: on a {@code RotaPool}, a gold tier's request latency under overload by a lower tier stays
 * close to its latency without that overload: gold's 99th percentile with bronze flooding the pool is
 * at most 2× its 99th percentile without the flood. On {@code ForkJoinPool} and
 * {@code ThreadPoolExecutor}, which have no tiers, the same request waits behind the flood.
 *
 * <p>Three tiers (see {@link Tiers}): gold (300 base tickets), silver (200), bronze (100). On Rota
 * each is a {@link TaskGroup}; on the JDK's pools the three streams of tasks go to the one pool.
 * <ul>
 *   <li>Gold is measured. The benchmark method submits one gold task ({@value #GOLD_MICROS} µs of
 *       CPU-bound work, {@link Work}) with {@code submit} and waits for its result with
 *       {@code Future.get}: a closed loop of one request at a time, from a thread outside the pool,
 *       as a request handler would use a tier. {@code Mode.SampleTime} times every request, so JMH
 *       reports the distribution (p50, p99, p99.9): submission, queueing, the wait for a worker, the
 *       task, and the wake-up of the waiting thread. Being a closed loop, it does not correct for
 *       coordinated omission: while one request is delayed no other is sent, so the requests an
 *       open stream would have sent during a stall, each of which would wait for part of it, are
 *       missing from the distribution. The percentiles are those of a client that waits for each
 *       reply before it sends the next request, and understate the tail that an open stream of gold
 *       requests at the same rate would see. {@link #goldRequestOnSchedule} measures that tail: the
 *       same request sent on a schedule, one per {@code sendEveryMicros}, each timed from when the
 *       schedule meant to send it if a late reply held it back ({@link OnSchedule}).</li>
 *   <li>Silver is a steady stream in both loads: {@value #SILVER_PER_TICK} tasks of
 *       {@value #SILVER_MICROS} µs per {@value Feeder#TICK_MICROS} µs tick, about 10 % of two
 *       workers, from a thread of its own ({@link Feeder#steady}). It keeps the pool from being idle
 *       in the unloaded case, so that the two loads differ only by the flood.</li>
 *   <li>Bronze floods, with {@code load=overload} only: a thread of its own ({@link Feeder#backlog})
 *       keeps {@value #BRONZE_BACKLOG} tasks of {@value #BRONZE_MICROS} µs outstanding, topping them
 *       up every tick. That is 80 ms of CPU work, 40 ms of two workers' time: the pool is
 *       saturated throughout, and a FIFO pool makes a new task wait behind the whole backlog. The backlog stays under Rota's
 *       default queue bound of 65,536 per group, so nothing is rejected. Both feeders are started in
 *       the trial's set-up, before JMH's warm-up, and stopped in its tear-down.</li>
 * </ul>
 *
 * <p>What Rota should do: when gold's task arrives, gold becomes runnable and a worker's slice of
 * bronze ends at its next task boundary (an activation ends the slice whatever the quantum); stride
 * picks gold, whose pass is behind bronze's (it has used little CPU). Rota does not preempt a task,
 * so a gold request still waits for the bronze task running on the first worker to finish it: up to
 * {@value #BRONZE_MICROS} µs, about a third of that on average with two workers. The quantum does not
 * enter this path; {@code quantum} (Rota only, {@code 1ms} default, {@code 100us} on request) is
 * there to show it.
 *
 * <p>After each trial one line reports what the feeders did (tasks run, mean backlog found at a
 * tick, rejections) and, on Rota, each tier's figures ({@code GroupStats}: CPU time, tasks, slices,
 * longest slice), so that the load behind the figures can be checked.
 *
 * <p>Parameters: {@code pool} ({@code rota}, {@code forkjoin}, {@code threadpool}); {@code load}
 * ({@code unloaded}, {@code overload}); {@code workers}, 2 by default (the development machines
 * have 2 vCPUs: the workers, the two feeders and the measuring thread then share two CPUs, so the
 * measuring thread itself may wait for a CPU before it sees its result; {@code -p workers=1} leaves
 * it a CPU of its own). A request that gets no result in {@value #STALL_SECONDS} s fails the run.
 *
 * <p>Run from the repository root: {@code jmh/run.sh TierLatency} (see docs/BENCHMARKS.md).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Threads(1)
@State(Scope.Benchmark)
public class TierLatencyBenchmark {
    static final long GOLD_MICROS = 5;
    static final long SILVER_MICROS = 20;
    static final int SILVER_PER_TICK = 10;
    static final long BRONZE_MICROS = 20;
    static final int BRONZE_BACKLOG = 4_000;
    static final long STALL_SECONDS = 30;

    public static final String UNLOADED = "unloaded";
    public static final String OVERLOAD = "overload";

    @Param({Pools.ROTA, Pools.FORK_JOIN, Pools.THREAD_POOL})
    public String pool;

    @Param({UNLOADED, OVERLOAD})
    public String load;

    @Param({"2"})
    public int workers;

    /** Rota's quantum: {@code 1ms} (the default) or e.g. {@code 100us}; ignored by the JDK's pools. */
    @Param({"1ms"})
    public String quantum;

    /** The schedule of {@link #goldRequestOnSchedule}: one gold request per this many µs. */
    @Param({"100"})
    public long sendEveryMicros;

    private Tiers tiers;
    private ExecutorService gold;
    private Callable<Long> goldTask;
    private Feeder silver;
    private Feeder bronze;
    private OnSchedule onSchedule;

    @Setup(Level.Trial)
    public void start(BenchmarkParams benchmark) {
        if (benchmark.getBenchmark().endsWith("goldRequestOnSchedule")) {
            onSchedule = new OnSchedule(TimeUnit.MICROSECONDS.toNanos(sendEveryMicros));
        }
        if (!load.equals(UNLOADED) && !load.equals(OVERLOAD)) {
            throw new IllegalArgumentException("load must be " + UNLOADED + " or " + OVERLOAD + ": " + load);
        }
        tiers = Tiers.create(pool, workers, SharePolicy.STRIDE, parseDuration(quantum),
                TaskGroup.DEFAULT_QUEUE_CAPACITY);
        gold = tiers.executors[Tiers.GOLD];
        long goldTokens = Work.tokensFor(TimeUnit.MICROSECONDS.toNanos(GOLD_MICROS));
        goldTask = () -> {
            Work.run(goldTokens);
            return goldTokens;
        };
        silver = Feeder.steady("silver-feeder", tiers.executors[Tiers.SILVER],
                TimeUnit.MICROSECONDS.toNanos(SILVER_MICROS), SILVER_PER_TICK).start();
        if (load.equals(OVERLOAD)) {
            bronze = Feeder.backlog("bronze-feeder", tiers.executors[Tiers.BRONZE],
                    TimeUnit.MICROSECONDS.toNanos(BRONZE_MICROS), BRONZE_BACKLOG, false).start();
        }
    }

    @Benchmark
    public long goldRequest() throws InterruptedException, ExecutionException, TimeoutException {
        return gold.submit(goldTask).get(STALL_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Gold on a schedule: one request every {@code sendEveryMicros}, each timed from when the schedule
     * meant to send it wherever the previous reply came too late for that ({@link OnSchedule}). JMH's
     * score is only the rate achieved; the figures are the percentiles printed after each trial.
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long goldRequestOnSchedule() throws InterruptedException, ExecutionException, TimeoutException {
        long sendAt = onSchedule.awaitNextSend();
        long result = gold.submit(goldTask).get(STALL_SECONDS, TimeUnit.SECONDS);
        onSchedule.replied(sendAt, System.nanoTime());
        return result;
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams iteration) {
        if (onSchedule != null) {
            onSchedule.startIteration(iteration.getType() == IterationType.MEASUREMENT);
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        silver.close();
        if (bronze != null) {
            bronze.close();
        }
        List<GroupStats> stats = tiers.stats();
        tiers.close();
        StringBuilder line = new StringBuilder(String.format(
                "%n[tier-latency] pool=%s load=%s workers=%d quantum=%s: work %.3f ns/token;"
                        + " silver ran %d of %d (%.0f per s)",
                pool, load, workers, quantum, Work.NANOS_PER_TOKEN, silver.completed(), silver.submitted(),
                silver.completedPerSecond()));
        if (bronze != null) {
            line.append(String.format("; bronze ran %d of %d, backlog at a tick %.0f on average, %d rejected",
                    bronze.completed(), bronze.submitted(), bronze.meanOutstanding(), bronze.rejected()));
        }
        System.out.println(line);
        if (onSchedule != null) {
            System.out.printf("[tier-latency-on-schedule] pool=%s load=%s workers=%d quantum=%s every=%dus: %s%n",
                    pool, load, workers, quantum, sendEveryMicros, onSchedule.summary());
        }
        System.out.print(Tiers.describe(stats));
    }

    /** {@code 1ms}, {@code 100us} or {@code 250ns}. */
    static Duration parseDuration(String text) {
        String t = text.trim();
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        if (t.endsWith("us")) {
            return Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(Long.parseLong(t.substring(0, t.length() - 2))));
        }
        if (t.endsWith("ns")) {
            return Duration.ofNanos(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        throw new IllegalArgumentException("a duration like 1ms, 100us or 500ns expected: " + text);
    }
}
