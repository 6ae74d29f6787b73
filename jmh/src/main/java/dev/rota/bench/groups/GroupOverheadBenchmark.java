package dev.rota.bench.groups;

import dev.rota.GroupStats;
import dev.rota.RotaPool;
import dev.rota.SharePolicy;
import dev.rota.TaskGroup;
import dev.rota.bench.CompletionCount;
import dev.rota.bench.Pools;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Claim: spreading tiny tasks over three ticket-weighted task groups costs a {@code RotaPool} at
 * most 10 % of its throughput with every task in its default group: {@code rota-groups} completes at
 * least 0.9× the tasks per second of {@code rota}.
 *
 * <p>The set-up is {@code ExternalSubmitBenchmark}'s, so that the figures compare: one operation is
 * one task; an invocation submits {@value #TASKS_PER_BATCH} tasks with {@code execute} from a thread
 * outside the pool and returns once all have run (the submitter reads its own striped count ({@link CompletionCount}), which
 * every task increments, and yields between reads). The only difference between the pools is where
 * each task goes; the submitter code is the same for all, a round robin over three executors:
 *
 * <ul>
 *   <li>{@code rota}: {@code RotaPool.builder().workers(W)}, the three executors all the pool itself
 *       (its default group): one group, so a worker's slice ends only when its quantum is used, and
 *       the dispatcher's lock is taken about once per quantum per worker;</li>
 *   <li>{@code rota-groups}: the same pool with three groups, {@code pool.group("gold", 300)},
 *       {@code ("silver", 200)}, {@code ("bronze", 100)}, one task to each in turn: every group is
 *       runnable most of the time, so slices end whenever the group being served runs dry while
 *       another has work, and the scheduling decision (the lock, stride's pick and charge) is taken
 *       far more often;</li>
 *   <li>{@code forkjoin} ({@code new ForkJoinPool(W)}) and {@code threadpool}
 *       ({@code Executors.newFixedThreadPool(W)}), for scale: they have no groups.</li>
 * </ul>
 *
 * <p>{@code taskNanos} sets how much CPU work each task does before it counts itself (calibrated
 * {@code Blackhole.consumeCPU} tokens, see {@link Work}). At its default of 0 a task does nothing, so
 * the figures are the cost of submitting, queueing, picking and running alone, the case where the
 * groups' bookkeeping weighs most; with 1000 (one microsecond), two workers run fewer tasks than one
 * submitter offers, and the ratio says what the groups cost tasks that do some work.
 *
 * <p>{@code run} sets how many consecutive tasks a submitter sends to one executor before it moves
 * on. At its default of 1 each thread spreads its stream task by task over the three groups, the
 * pattern that costs the groups most: every offer writes another group's inbox and admission lines,
 * which the workers serving those groups read meanwhile. A thread that sends its tasks to one tier
 * at a time (runs of 16 or 256) shows what the groups cost a submitter that serves one tier.
 *
 * <p>After each trial one line per group gives Rota's {@code GroupStats}: tasks, slices, and tasks
 * per slice, the figure that turns the cost of one scheduling decision ({@link DecisionCostBenchmark})
 * into a cost per task; a line before them gives each worker's {@code WorkerStats} (tasks run, tasks
 * taken from other workers' queues, parks), which tell how the stream was split between the workers.
 *
 * <p>{@link #oneSubmitter} runs with {@code @Threads(1)}, {@link #twoSubmitters} with
 * {@code @Threads(2)}, on one pool per trial; do not pass {@code -t}. {@code workers} is 2 by
 * default (2 vCPUs here). A batch that is not complete after {@value #STALL_SECONDS} s fails the run,
 * and so does a trial whose count of run tasks differs from the count submitted.
 *
 * <p>Run from the repository root: {@code jmh/run.sh GroupOverhead} (see docs/BENCHMARKS.md).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class GroupOverheadBenchmark {
    /** The {@code pool} value for Rota with three task groups 3 : 2 : 1. */
    public static final String ROTA_GROUPS = "rota-groups";

    static final int TASKS_PER_BATCH = 1000;
    static final long STALL_SECONDS = 30;

    @Param({Pools.ROTA, ROTA_GROUPS, Pools.FORK_JOIN, Pools.THREAD_POOL})
    public String pool;

    @Param({"2"})
    public int workers;

    /** CPU work per task, in nanoseconds; 0 for a task that only counts itself. */
    @Param({"0"})
    public long taskNanos;

    /**
     * Consecutive tasks a submitter sends to one executor before it moves on to the next: 1 spreads
     * its stream task by task over the three groups, a larger run sends them in runs of that length.
     */
    @Param({"1"})
    public int run;

    private ExecutorService executor;
    private Tiers tiers;
    /** Where the submitters send their tasks, in turn ({@link #run} at a time). */
    private ExecutorService[] executors;

    @Setup(Level.Trial)
    public void startPool() {
        if (pool.equals(ROTA_GROUPS)) {
            tiers = Tiers.create(Pools.ROTA, workers, SharePolicy.STRIDE, Duration.ofMillis(1),
                    TaskGroup.DEFAULT_QUEUE_CAPACITY);
            executor = tiers.pool;
            executors = tiers.executors;
        } else {
            executor = Pools.create(pool, workers);
            executors = new ExecutorService[] {executor, executor, executor};
        }
    }

    @TearDown(Level.Trial)
    public void stopPool() throws InterruptedException {
        List<GroupStats> stats = tiers != null ? tiers.stats()
                : executor instanceof RotaPool rota ? List.of(rota.defaultGroup().stats()) : List.of();
        if (executor instanceof RotaPool rota) {
            System.out.printf("%n[workers] %s%n", rota.workerStats());
        }
        Pools.shutdown(executor);
        if (taskNanos > 0) {
            // Each JMH fork calibrates its own work (Work.NANOS_PER_TOKEN): printed, so that forks of
            // different pools can be checked to have run tasks of the same length.
            System.out.printf("%n[work] pool=%s taskNanos=%d: %.3f ns/token%n", pool, taskNanos, Work.NANOS_PER_TOKEN);
        }
        if (!stats.isEmpty()) {
            System.out.printf("%n[group-overhead] pool=%s workers=%d%n%s", pool, workers, Tiers.describe(stats));
        }
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(TASKS_PER_BATCH)
    public void oneSubmitter(Submitter submitter) {
        submitter.submitBatchAndAwait(executors);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(TASKS_PER_BATCH)
    public void twoSubmitters(Submitter submitter) {
        submitter.submitBatchAndAwait(executors);
    }

    /**
     * One submitting thread: its task, its round-robin position (the executor, and the tasks sent to
     * it in the current run), and the count of its tasks that have run.
     */
    @State(Scope.Thread)
    public static class Submitter {
        private final CompletionCount count = new CompletionCount(STALL_SECONDS);
        private int next;
        private int sentInRun;
        private int run;
        /** What this thread submits: its count's task, after {@code taskNanos} of work. */
        private Runnable task;

        @Setup(Level.Trial)
        public void makeTask(GroupOverheadBenchmark benchmark) {
            if (benchmark.run < 1) {
                throw new IllegalArgumentException("run must be >= 1: " + benchmark.run);
            }
            run = benchmark.run;
            task = workingTask(count.task(), benchmark.taskNanos);
        }

        void submitBatchAndAwait(ExecutorService[] executors) {
            Runnable task = this.task;
            int n = next;
            int sent = sentInRun;
            for (int i = 0; i < TASKS_PER_BATCH; i++) {
                executors[n].execute(task);
                if (++sent == run) {
                    sent = 0;
                    n = n == executors.length - 1 ? 0 : n + 1;
                }
            }
            next = n;
            sentInRun = sent;
            count.submitted(TASKS_PER_BATCH);
            count.awaitAll();
        }

        /** {@code counting} alone for 0 ns of work; otherwise that much work, then {@code counting}. */
        private static Runnable workingTask(Runnable counting, long taskNanos) {
            if (taskNanos < 0) {
                throw new IllegalArgumentException("taskNanos must be >= 0: " + taskNanos);
            }
            if (taskNanos == 0) {
                return counting;
            }
            long tokens = Work.tokensFor(taskNanos);
            return () -> {
                Work.run(tokens);
                counting.run();
            };
        }

        @TearDown(Level.Trial)
        public void checkNoTaskLost() {
            count.checkNoTaskLost();
        }
    }
}
