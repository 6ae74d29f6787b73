package dev.rota.bench.throughput;

import dev.rota.bench.CompletionCount;
import dev.rota.bench.Pools;
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
 * Claim: under external submission, a {@code RotaPool} completes at least 1.5× as many tiny tasks
 * per second as a {@code ForkJoinPool} with the same number of workers.
 *
 * <p>One operation is one task: each invocation submits a batch of {@value #TASKS_PER_BATCH} tasks
 * with {@code execute} from a thread outside the pool and returns when all of them have run, so the
 * score (ops/s, summed over submitters) is tasks completed per second, submission and hand-off
 * included. The task increments a counter and nothing else, so the score is the pool's per-task
 * cost: queueing, waking, taking, and its own wrapper objects ({@code ForkJoinPool} wraps each
 * {@code Runnable}, the {@code LinkedBlockingQueue} behind a fixed thread pool allocates a node).
 * The same {@code Runnable} instance is submitted every time, so the benchmark allocates nothing.
 *
 * <p>Counting completion without measuring the counter: each submitter counts its own tasks in a
 * counter striped per thread ({@link CompletionCount}), one cache line pair per stripe, so workers
 * increment different lines and never wait for one another. A {@code CountDownLatch} or an {@code AtomicLong} would make every
 * task a contended read-modify-write on one line, whose cost (10–100 ns when two cores fight over
 * it) is the size of the per-task cost measured here. The submitter waits by reading the sum and
 * calling {@link Thread#yield()}: where cores are scarce (the 2-vCPU machines, two workers plus the
 * submitter) it hands its core to the workers; where they are not, the yield returns within a
 * microsecond or so and paces the reads, so that the submitter does not take each cell's line away
 * from its worker after every increment. Every pool is waited for in the same way.
 *
 * <p>Submitters are JMH threads: {@link #oneSubmitter} runs with {@code @Threads(1)},
 * {@link #twoSubmitters} with {@code @Threads(2)}, both on the same pool (one per trial). JMH then
 * times each submitter's own batches and adds the scores, and no start or join of helper threads is
 * counted, as it would be if an operation fanned out to submitter threads of its own. Each submitter
 * has its own counter. Do not pass {@code -t}, which overrides both methods' thread counts.
 *
 * <p>Parameters: {@code pool} is {@code rota}, {@code forkjoin} or {@code threadpool}, and on request
 * {@code rota-unpinned} (see {@link Pools#create}); {@code workers} is the number of worker threads
 * in each, 2 by default (the development machines have 2 vCPUs). On larger machines run
 * {@code -p workers=1,2,4,8,16}. With W workers and S submitters the machine needs W + S cores for
 * every thread to have one; on fewer, the submitters compete with the workers for CPU time.
 *
 * <p>Not measured here: tasks forked from inside the pool, tasks that block, and the latency of one
 * task. A pool that lost a task fails the run: a batch that is not complete after
 * {@value #STALL_SECONDS} s throws, and so does a trial whose count of run tasks differs from the
 * count submitted.
 *
 * <p>Run from the repository root: {@code jmh/run.sh ExternalSubmit} (JMH options may follow; see
 * docs/BENCHMARKS.md for the equivalent Maven commands and the latest figures).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ExternalSubmitBenchmark {
    /** Tasks per operation. Large enough that the wait at the end of a batch is a small part of it. */
    static final int TASKS_PER_BATCH = 1000;

    /** A batch still incomplete after this long means a lost task, not a slow pool. */
    static final long STALL_SECONDS = 30;

    @Param({Pools.ROTA, Pools.FORK_JOIN, Pools.THREAD_POOL})
    public String pool;

    @Param({"2"})
    public int workers;

    private ExecutorService executor;

    @Setup(Level.Trial)
    public void startPool() {
        executor = Pools.create(pool, workers);
    }

    @TearDown(Level.Trial)
    public void stopPool() throws InterruptedException {
        Pools.shutdown(executor);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(TASKS_PER_BATCH)
    public void oneSubmitter(Submitter submitter) {
        submitter.submitBatchAndAwait(executor);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(TASKS_PER_BATCH)
    public void twoSubmitters(Submitter submitter) {
        submitter.submitBatchAndAwait(executor);
    }

    /** One submitting thread: its task and the count of its tasks that have run. */
    @State(Scope.Thread)
    public static class Submitter {
        private final CompletionCount count = new CompletionCount(STALL_SECONDS);

        void submitBatchAndAwait(ExecutorService executor) {
            Runnable task = count.task();
            for (int i = 0; i < TASKS_PER_BATCH; i++) {
                executor.execute(task);
            }
            count.submitted(TASKS_PER_BATCH);
            count.awaitAll();
        }

        @TearDown(Level.Trial)
        public void checkNoTaskLost() {
            count.checkNoTaskLost();
        }
    }
}
