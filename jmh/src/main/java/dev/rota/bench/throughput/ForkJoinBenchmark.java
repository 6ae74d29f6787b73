package dev.rota.bench.throughput;

import dev.rota.RotaPool;
import dev.rota.RotaTask;
import dev.rota.bench.Pools;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.RecursiveTask;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Claim: for divide and conquer, a {@code RotaPool} running {@link RotaTask}s completes at least as
 * many computations per second (1.0×) as a {@code ForkJoinPool} with the same number of workers
 * running the same computation as {@link RecursiveTask}s.
 *
 * <p>Two computations, each written twice with the same shape, once as a {@code RotaTask} and once
 * as a {@code RecursiveTask}: above a sequential threshold a task forks its first half, computes its
 * second half in its own thread, then joins the first ({@code left.fork(); right.compute() +
 * left.join()}); at or below the threshold it computes sequentially, in code shared by both pools.
 * <ul>
 *   <li>{@link #fibonacci}: fib({@code n}) by the doubly recursive definition, sequential at
 *       {@code n <= fibThreshold}. The defaults, fib(30) with threshold 15, make 3,193
 *       tasks, the leaves a few microseconds each (fib(15) is 1,973 calls), 2.7 million calls in
 *       all: a few milliseconds per computation on one core. Per-task costs (fork, steal, join)
 *       matter, but do not dominate.
 *   <li>{@link #arraySum}: the sum of a {@code long[]} of {@code size} elements (4 Mi, 32 MiB by
 *       default), halved down to {@code sumThreshold} elements (4096: 2,047 tasks, 1,024 of them
 *       leaves). The leaves stream the array with one addition per element, so memory (or cache,
 *       where 32 MiB fits in it) sets their pace, and the per-task costs are small beside them.
 * </ul>
 * One operation is one whole computation, submitted from the benchmark thread (outside the pool) and
 * awaited there: the score is computations per second. The pool is built once per trial. Rota's
 * tasks fork onto the worker's own deque and join by helping; {@code ForkJoinPool}'s likewise.
 *
 * <p>{@code ThreadPoolExecutor} is left out: it has no fork/join, and a recursive computation whose
 * tasks block in {@code Future.get()} on a fixed number of threads measures blocking, or deadlocks
 * once every thread waits, rather than the pools' fork/join machinery.
 *
 * <p>Parameters: {@code pool} is {@code rota} or {@code forkjoin} (and on request
 * {@code rota-unpinned}, see {@link Pools#create}); {@code workers} is the number of worker threads,
 * 2 by default (the development machines have 2 vCPUs); {@link Fibonacci} takes {@code n} and
 * {@code fibThreshold}, {@link ArraySum} takes {@code size} and {@code sumThreshold}.
 *
 * <p>A wrong or lost task fails the run: every result is compared with the value known in advance
 * (fib(n) computed iteratively; the array's sum computed sequentially at set-up) and a mismatch
 * throws. A lost task would leave its joiner, and so the whole computation, waiting for ever: the
 * benchmark thread therefore waits with {@code submit(task).get(timeout)} (what {@code invoke(task)}
 * does, with a deadline) and throws if the computation is not done after {@value #STALL_SECONDS} s.
 *
 * <p>Run from the repository root: {@code jmh/run.sh ForkJoinBenchmark} (JMH options may follow;
 * see docs/BENCHMARKS.md for the latest figures).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ForkJoinBenchmark {
    /** A computation still running after this long means a lost task, not a slow pool. */
    static final long STALL_SECONDS = 30;

    @Param({Pools.ROTA, Pools.FORK_JOIN})
    public String pool;

    @Param({"2"})
    public int workers;

    private RotaPool rota;
    private ForkJoinPool forkJoin;

    @Setup(Level.Trial)
    public void startPool() {
        ExecutorService executor = Pools.create(pool, workers);
        switch (executor) {
            case RotaPool r -> rota = r;
            case ForkJoinPool f -> forkJoin = f;
            default -> {
                executor.shutdownNow();
                throw new IllegalArgumentException("pool " + pool + " has no fork/join: " + executor);
            }
        }
    }

    @TearDown(Level.Trial)
    public void stopPool() throws InterruptedException {
        Pools.shutdown(rota != null ? rota : forkJoin);
    }

    @Benchmark
    public long fibonacci(Fibonacci fib) {
        long result = rota != null
                ? await(rota.submit(new RotaFib(fib.n, fib.fibThreshold)))
                : await(forkJoin.submit(new JdkFib(fib.n, fib.fibThreshold)));
        if (result != fib.expected) {
            throw new IllegalStateException("fib(" + fib.n + ") = " + result + ", expected " + fib.expected
                    + ": a task was lost or ran twice");
        }
        return result;
    }

    @Benchmark
    public long arraySum(ArraySum sum) {
        long result = rota != null
                ? await(rota.submit(new RotaSum(sum.array, 0, sum.array.length, sum.sumThreshold)))
                : await(forkJoin.submit(new JdkSum(sum.array, 0, sum.array.length, sum.sumThreshold)));
        if (result != sum.expected) {
            throw new IllegalStateException("sum = " + result + ", expected " + sum.expected
                    + ": a task was lost or ran twice");
        }
        return result;
    }

    /** {@code invoke(task)} with a deadline: a lost task fails the run instead of hanging it. */
    private static long await(Future<? extends Number> computation) {
        try {
            return computation.get(STALL_SECONDS, TimeUnit.SECONDS).longValue();
        } catch (TimeoutException e) {
            throw new IllegalStateException("computation not done after " + STALL_SECONDS + " s: a task was lost", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the computation", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("computation failed", e.getCause());
        }
    }

    // ---- Fibonacci ----------------------------------------------------------------------------

    /** fib(n) with a sequential threshold; the expected value is computed iteratively. */
    @State(Scope.Benchmark)
    public static class Fibonacci {
        @Param({"30"})
        public int n;

        /** At or below this n a task computes sequentially. */
        @Param({"15"})
        public int fibThreshold;

        long expected;

        @Setup(Level.Trial)
        public void computeExpected() {
            if (n < 0 || n > 90 || fibThreshold < 1) {
                throw new IllegalArgumentException("need 0 <= n <= 90 and fibThreshold >= 1: n = " + n
                        + ", fibThreshold = " + fibThreshold);
            }
            long previous = 1;                            // fib(-1), so that fib(0) = 0 and fib(1) = 1
            long current = 0;
            for (int i = 0; i < n; i++) {
                long next = previous + current;
                previous = current;
                current = next;
            }
            expected = current;
        }
    }

    /** The sequential leaf, shared by both pools' tasks. */
    static long fibSequential(int n) {
        return n < 2 ? n : fibSequential(n - 1) + fibSequential(n - 2);
    }

    static final class RotaFib extends RotaTask<Long> {
        private final int n;
        private final int threshold;

        RotaFib(int n, int threshold) {
            this.n = n;
            this.threshold = threshold;
        }

        @Override
        protected Long compute() {
            if (n <= threshold) {
                return fibSequential(n);
            }
            RotaFib left = new RotaFib(n - 1, threshold);
            left.fork();
            long right = new RotaFib(n - 2, threshold).compute();
            return right + left.join();
        }
    }

    static final class JdkFib extends RecursiveTask<Long> {
        private final int n;
        private final int threshold;

        JdkFib(int n, int threshold) {
            this.n = n;
            this.threshold = threshold;
        }

        @Override
        protected Long compute() {
            if (n <= threshold) {
                return fibSequential(n);
            }
            JdkFib left = new JdkFib(n - 1, threshold);
            left.fork();
            long right = new JdkFib(n - 2, threshold).compute();
            return right + left.join();
        }
    }

    // ---- array sum ----------------------------------------------------------------------------

    /** A {@code long[]} of pseudo-random values (fixed seed) and its sum, computed sequentially once. */
    @State(Scope.Benchmark)
    public static class ArraySum {
        @Param({"4194304"})
        public int size;

        /** At or below this many elements a task sums sequentially. */
        @Param({"4096"})
        public int sumThreshold;

        long[] array;
        long expected;

        @Setup(Level.Trial)
        public void fill() {
            if (size < 1 || sumThreshold < 1) {
                throw new IllegalArgumentException("need size >= 1 and sumThreshold >= 1: size = " + size
                        + ", sumThreshold = " + sumThreshold);
            }
            array = new SplittableRandom(42).longs(size, 0, 1L << 32).toArray();
            expected = sumSequential(array, 0, size);
        }
    }

    /** The sequential leaf, shared by both pools' tasks. */
    static long sumSequential(long[] array, int from, int to) {
        long sum = 0;
        for (int i = from; i < to; i++) {
            sum += array[i];
        }
        return sum;
    }

    static final class RotaSum extends RotaTask<Long> {
        private final long[] array;
        private final int from;
        private final int to;
        private final int threshold;

        RotaSum(long[] array, int from, int to, int threshold) {
            this.array = array;
            this.from = from;
            this.to = to;
            this.threshold = threshold;
        }

        @Override
        protected Long compute() {
            if (to - from <= threshold) {
                return sumSequential(array, from, to);
            }
            int middle = (from + to) >>> 1;
            RotaSum left = new RotaSum(array, from, middle, threshold);
            left.fork();
            long right = new RotaSum(array, middle, to, threshold).compute();
            return right + left.join();
        }
    }

    static final class JdkSum extends RecursiveTask<Long> {
        private final long[] array;
        private final int from;
        private final int to;
        private final int threshold;

        JdkSum(long[] array, int from, int to, int threshold) {
            this.array = array;
            this.from = from;
            this.to = to;
            this.threshold = threshold;
        }

        @Override
        protected Long compute() {
            if (to - from <= threshold) {
                return sumSequential(array, from, to);
            }
            int middle = (from + to) >>> 1;
            JdkSum left = new JdkSum(array, from, middle, threshold);
            left.fork();
            long right = new JdkSum(array, middle, to, threshold).compute();
            return right + left.join();
        }
    }
}
