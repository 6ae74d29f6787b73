package dev.rota.contract;

import dev.rota.RotaPool;
import dev.rota.TaskGroup;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A named way to build a two-worker {@link ExecutorService} for the contract tests, together with
 * what that kind of pool does with never-started tasks on {@code shutdownNow()}.
 *
 * <p>Every factory builds a pool of exactly {@link #WORKERS} workers whose worker threads hand
 * uncaught exceptions to the handler given to {@link #create}. The {@code toString} is the display
 * name of the parameterised test cases.
 */
public record ExecutorFactory(String name, QueuedTaskFate queuedTaskFate,
                              Function<Thread.UncaughtExceptionHandler, ExecutorService> builder) {

    /** Worker count of every pool the contract builds; the tests rely on it (one blocker per worker). */
    public static final int WORKERS = 2;

    /** What {@code shutdownNow()} does with tasks that were accepted but never started. */
    public enum QueuedTaskFate {
        /** Returned in {@code shutdownNow()}'s list, not run, not cancelled (ExecutorService's contract; ThreadPoolExecutor). */
        RETURNED,
        /**
         * Cancelled in place; {@code shutdownNow()} returns an empty list (ForkJoinPool since JDK 19: its
         * Javadoc says "returns an empty list", and termination cancels every queued task).
         */
        CANCELLED
    }

    public ExecutorFactory {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(queuedTaskFate, "queuedTaskFate");
        Objects.requireNonNull(builder, "builder");
    }

    /** True for Rota's own pools; false for the JDK's, which run as controls. */
    public boolean underTest() {
        return name.contains("RotaPool");
    }

    /** The pools every contract test runs against: RotaPool first, then the two JDK references. */
    public static List<ExecutorFactory> all() {
        return List.of(rotaPool(), taskGroup(), forkJoinPool(), fixedThreadPool());
    }

    /**
     * A named group of a two-worker RotaPool, held to the same contract: a TaskGroup is an
     * ExecutorService whose life cycle is its own. Its pool is closed once the group terminates.
     * The suite queues up to 100,000 tasks at once, as an unbounded JDK pool allows; a named group
     * bounds its queue at 65,536 by default (its overload protection, tested in TaskGroupTest), so
     * this group is given room for the suite's bursts.
     */
    public static ExecutorFactory taskGroup() {
        return new ExecutorFactory("TaskGroup of RotaPool(2)", QueuedTaskFate.RETURNED, handler -> {
            RotaPool pool = RotaPool.builder().workers(WORKERS).uncaughtExceptionHandler(handler).build();
            TaskGroup group = pool.group("tier", 100);
            group.setQueueCapacity(1 << 20);
            Thread.ofPlatform().daemon().name("close-after-tier").start(() -> {
                try {
                    while (!group.awaitTermination(1, TimeUnit.HOURS)) {
                        // a test left its group running for an hour: keep waiting
                    }
                } catch (InterruptedException e) {
                    return;
                }
                pool.close();
            });
            return group;
        });
    }

    public static ExecutorFactory forkJoinPool() {
        return new ExecutorFactory("ForkJoinPool(2)", QueuedTaskFate.CANCELLED,
                handler -> new ForkJoinPool(WORKERS, ForkJoinPool.defaultForkJoinWorkerThreadFactory,
                        handler, false));
    }

    /**
     * Like {@code Executors.newFixedThreadPool(2)}, with daemon threads that carry the handler, and
     * its core threads started before it is handed out. Started lazily, by the first submissions,
     * the pool can strand accepted tasks when a {@code shutdown()} races them: a core thread is
     * counted before it is registered, submissions meanwhile see the pool full and queue their
     * tasks, and a thread made for a first task that finds the pool shut down by the time it
     * registers is dropped, with no replacement started for the tasks queued behind it; the pool
     * then never terminates (seen in {@code NothingLostStressTest}: 3,647 tasks queued, no thread
     * left). This pool is a control for the tests' own checks, not the subject, so it starts in the
     * state where that race cannot happen.
     */
    public static ExecutorFactory fixedThreadPool() {
        return new ExecutorFactory("ThreadPoolExecutor(2)", QueuedTaskFate.RETURNED, handler -> {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(WORKERS, WORKERS, 0L, TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(), daemonThreads("tpe-worker-", handler));
            pool.prestartAllCoreThreads();
            return pool;
        });
    }

    /** RotaPool, whose Javadoc promises that shutdownNow() returns every never-started task exactly once. */
    public static ExecutorFactory rotaPool() {
        return new ExecutorFactory("RotaPool(2)", QueuedTaskFate.RETURNED,
                handler -> RotaPool.builder().workers(WORKERS).uncaughtExceptionHandler(handler).build());
    }

    public ExecutorService create(Thread.UncaughtExceptionHandler handler) {
        return builder.apply(Objects.requireNonNull(handler, "handler"));
    }

    @Override
    public String toString() {
        return name;
    }

    private static ThreadFactory daemonThreads(String prefix, Thread.UncaughtExceptionHandler handler) {
        AtomicInteger next = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, prefix + next.incrementAndGet());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(handler);
            return t;
        };
    }
}
