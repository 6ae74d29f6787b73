package dev.rota;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.PinResult;
import dev.rota.core.Engine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
 * threads, as in {@code ForkJoinPool}.
 *
 * <p>Pinning needs native access: run with {@code --enable-native-access=dev.rota} (or
 * {@code ALL-UNNAMED} on the class path, or {@code Enable-Native-Access: ALL-UNNAMED} in an executable
 * jar's manifest). Without it, or where the kernel refuses, the pool runs unpinned, says so once
 * through {@link System.Logger}, and {@link #topology()} reports it.
 */
public final class RotaPool extends AbstractExecutorService implements AutoCloseable {
    private static final AtomicInteger POOL_NUMBER = new AtomicInteger();

    private final String name;
    private final Engine engine;
    private final CpuTopology topology;

    private RotaPool(Builder builder) {
        Affinity affinity = builder.affinity;
        CpuTopology machine = builder.topology != null ? builder.topology : CpuTopology.current();
        int[] cpus = builder.cpus != null ? builder.cpus.clone() : machine.spread(builder.workers(machine));
        for (int cpu : cpus) {
            machine.cpu(cpu);                            // IllegalArgumentException naming a CPU we may not use
        }
        int[][] stealOrder = new int[cpus.length][];
        for (int i = 0; i < cpus.length; i++) {
            stealOrder[i] = machine.stealOrder(i, cpus);
        }
        this.name = builder.name != null ? builder.name : "rota-" + POOL_NUMBER.incrementAndGet();
        this.engine = new Engine(name, cpus, stealOrder, affinity, builder.pinning, builder.handler, builder.daemon);
        List<PinResult> pins = engine.start();
        List<CpuTopology.WorkerPlacement> placements = new ArrayList<>(pins.size());
        for (int i = 0; i < pins.size(); i++) {
            PinResult pin = pins.get(i);
            placements.add(new CpuTopology.WorkerPlacement(i, cpus[i], pin.pinned(), pin.failure()));
        }
        this.topology = machine.withWorkers(placements);
        if (builder.pinning) {
            PinningLog.reportFailures(name, placements);
        }
    }

    /** A pool with one pinned worker per CPU this process may use. */
    public static RotaPool create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    // ---- ExecutorService ------------------------------------------------------------------------

    /**
     * Runs {@code task} on a worker: the caller's own when the caller is a worker of this pool, else
     * one chosen at random.
     *
     * @throws java.util.concurrent.RejectedExecutionException after shutdown
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public void execute(Runnable task) {
        engine.execute(Objects.requireNonNull(task, "task"));
    }

    @Override
    public void shutdown() {
        engine.shutdown();
    }

    /** Interrupts running tasks and returns, exactly once each, the tasks that never started. */
    @Override
    public List<Runnable> shutdownNow() {
        return engine.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return engine.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return engine.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return engine.awaitTermination(timeout, unit);
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

    /** Tasks run to completion (or to an exception) by all workers so far. */
    public long completedTasks() {
        long sum = 0;
        for (int i = 0; i < engine.workerCount(); i++) {
            sum += engine.tasksRun(i);
        }
        return sum;
    }

    /** Tasks taken by a worker from another worker's queues so far. */
    public long stolenTasks() {
        long sum = 0;
        for (int i = 0; i < engine.workerCount(); i++) {
            sum += engine.steals(i);
        }
        return sum;
    }

    /** An estimate of the tasks accepted and not yet started. */
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
        return super.toString() + "[" + engine.stateName() + ", name = " + name + ", workers = " + workers()
                + ", pinned = " + topology.pinned() + ", queued = " + queuedTasks()
                + ", completed = " + completedTasks() + ", stolen = " + stolenTasks() + "]";
    }

    /** Builds a {@link RotaPool}; the only way to configure one. */
    public static final class Builder {
        private Integer workers;
        private int[] cpus;
        private boolean pinning = true;
        private boolean daemon = true;
        private String name;
        private Thread.UncaughtExceptionHandler handler;
        private Affinity affinity = Affinity.system();
        private CpuTopology topology;

        private Builder() {}

        /**
         * Uses {@code n} workers on CPUs spread over distinct physical cores first (then their SMT
         * siblings). More workers than allowed CPUs share CPUs, in the same order.
         */
        public Builder workers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("workers must be >= 1: " + n);
            }
            this.workers = n;
            this.cpus = null;
            return this;
        }

        /** Uses exactly these CPUs, one worker each, in this order. */
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

        /** Whether workers pin themselves to their CPUs (default true). */
        public Builder pinning(boolean pinning) {
            this.pinning = pinning;
            return this;
        }

        /** Whether worker threads are daemon threads (default true, as in ForkJoinPool). */
        public Builder daemon(boolean daemon) {
            this.daemon = daemon;
            return this;
        }

        /** Prefix of the worker threads' names (default {@code rota-N}). */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Receives exceptions escaping tasks given to {@code execute} (default: the thread's own). */
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

        private int workers(CpuTopology machine) {
            return workers != null ? workers : machine.cpus().size();
        }

        public RotaPool build() {
            return new RotaPool(this);
        }
    }
}
