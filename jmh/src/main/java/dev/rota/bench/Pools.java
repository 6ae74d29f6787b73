package dev.rota.bench;

import dev.rota.RotaPool;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The pools the benchmarks compare, built the way a user would build each with {@code workers}
 * threads, named by the values of a benchmark's {@code pool} parameter.
 */
public final class Pools {
    /** The {@code pool} parameter's values, for {@code @Param} and {@code -p pool=...}. */
    public static final String ROTA = "rota";
    /** Rota with pinning off: a diagnostic, to tell pinning's effect from the rest of the pool's. */
    public static final String ROTA_UNPINNED = "rota-unpinned";
    public static final String FORK_JOIN = "forkjoin";
    public static final String THREAD_POOL = "threadpool";
    /** {@code ScheduledThreadPoolExecutor} as constructed: a cancelled task stays queued until its delay ends. */
    public static final String SCHEDULED = "stpe";
    /** {@code ScheduledThreadPoolExecutor} with {@code setRemoveOnCancelPolicy(true)}: cancel removes at once. */
    public static final String SCHEDULED_REMOVE_ON_CANCEL = "stpe-remove";

    private static final long SHUTDOWN_TIMEOUT_SECONDS = 30;

    private Pools() {}

    /**
     * {@code rota}: {@code RotaPool.builder().workers(n)} (pinned workers); {@code rota-unpinned}:
     * the same with {@code pinning(false)}; {@code forkjoin}: {@code new ForkJoinPool(n)} (default,
     * LIFO-local mode); {@code threadpool}: {@code Executors.newFixedThreadPool(n)}; {@code stpe}:
     * {@code new ScheduledThreadPoolExecutor(n)}; {@code stpe-remove}: the same with
     * {@code setRemoveOnCancelPolicy(true)}.
     */
    public static ExecutorService create(String kind, int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1: " + workers);
        }
        return switch (kind) {
            case ROTA -> RotaPool.builder().workers(workers).build();
            case ROTA_UNPINNED -> RotaPool.builder().workers(workers).pinning(false).build();
            case FORK_JOIN -> new ForkJoinPool(workers);
            case THREAD_POOL -> Executors.newFixedThreadPool(workers);
            case SCHEDULED -> new ScheduledThreadPoolExecutor(workers);
            case SCHEDULED_REMOVE_ON_CANCEL -> {
                ScheduledThreadPoolExecutor removing = new ScheduledThreadPoolExecutor(workers);
                removing.setRemoveOnCancelPolicy(true);
                yield removing;
            }
            default -> throw new IllegalArgumentException(
                    "unknown pool: " + kind + " (expected " + ROTA + ", " + ROTA_UNPINNED + ", " + FORK_JOIN + ", "
                            + THREAD_POOL + ", " + SCHEDULED + " or " + SCHEDULED_REMOVE_ON_CANCEL + ")");
        };
    }

    /**
     * {@link #create} for the kinds that are also a {@link ScheduledExecutorService}: every kind but
     * {@code threadpool} (JDK 25's {@code ForkJoinPool} is one).
     */
    public static ScheduledExecutorService createScheduled(String kind, int workers) {
        ExecutorService pool = create(kind, workers);
        if (pool instanceof ScheduledExecutorService scheduled) {
            return scheduled;
        }
        pool.shutdownNow();
        throw new IllegalArgumentException("pool " + kind + " does not schedule delayed tasks: " + pool);
    }

    /** Shuts {@code pool} down and waits for it, so that no worker outlives the trial that made it. */
    public static void shutdown(ExecutorService pool) throws InterruptedException {
        pool.shutdown();
        if (!pool.awaitTermination(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                    "pool did not terminate within " + SHUTDOWN_TIMEOUT_SECONDS + " s: " + pool);
        }
    }
}
