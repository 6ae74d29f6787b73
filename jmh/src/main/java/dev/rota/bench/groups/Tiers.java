package dev.rota.bench.groups;

import dev.rota.GroupStats;
import dev.rota.RotaPool;
import dev.rota.SharePolicy;
import dev.rota.TaskGroup;
import dev.rota.bench.Pools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * Three service tiers, gold, silver and bronze, entitled to CPU time 3 : 2 : 1, over one pool of
 * {@code workers} threads, as each kind of pool can offer them:
 *
 * <ul>
 *   <li>{@code rota}: a {@link RotaPool} (pinned workers) with one {@link TaskGroup} per tier,
 *       {@code pool.group("gold", 300)}, {@code ("silver", 200)}, {@code ("bronze", 100)};</li>
 *   <li>{@code forkjoin}, {@code threadpool} (see {@link Pools#create}): the pool itself stands for
 *       every tier. These pools have no tiers: the three streams of tasks share one pool, which is
 *       the comparison the group benchmarks make.</li>
 * </ul>
 */
final class Tiers implements AutoCloseable {
    static final int GOLD = 0;
    static final int SILVER = 1;
    static final int BRONZE = 2;
    static final String[] NAMES = {"gold", "silver", "bronze"};
    /** Base tickets of each tier: 3 : 2 : 1. */
    static final long[] TICKETS = {300, 200, 100};

    final String kind;
    /** The pool: to shut down, and where a stream without a tier is submitted. */
    final ExecutorService pool;
    /** Rota's pool, or null for the JDK's pools. */
    final RotaPool rota;
    /** Where each tier's tasks are submitted, by tier index. */
    final ExecutorService[] executors;
    /** Rota's groups by tier index, or null. */
    private final TaskGroup[] groups;

    private Tiers(String kind, ExecutorService pool, RotaPool rota, ExecutorService[] executors, TaskGroup[] groups) {
        this.kind = kind;
        this.pool = pool;
        this.rota = rota;
        this.executors = executors;
        this.groups = groups;
    }

    /**
     * Tiers over a pool of {@code kind} ({@code rota}, or any kind {@link Pools#create} knows, which
     * gets no tiers). {@code policy} and {@code quantum} apply to Rota only; each tier group gets a
     * queue bound of {@code queueCapacity}.
     */
    static Tiers create(String kind, int workers, SharePolicy policy, Duration quantum, int queueCapacity) {
        if (!kind.equals(Pools.ROTA)) {
            ExecutorService pool = Pools.create(kind, workers);
            return new Tiers(kind, pool, null, new ExecutorService[] {pool, pool, pool}, null);
        }
        RotaPool rota = RotaPool.builder().workers(workers).policy(policy).quantum(quantum).build();
        TaskGroup[] groups = new TaskGroup[NAMES.length];
        for (int tier = 0; tier < NAMES.length; tier++) {
            groups[tier] = rota.group(NAMES[tier], TICKETS[tier]);
            groups[tier].setQueueCapacity(queueCapacity);
        }
        return new Tiers(kind, rota, rota, groups.clone(), groups);
    }

    /** Each tier's group figures, in tier order; empty for the JDK's pools. */
    List<GroupStats> stats() {
        List<GroupStats> stats = new ArrayList<>();
        if (groups != null) {
            for (TaskGroup group : groups) {
                stats.add(group.stats());
            }
        }
        return stats;
    }

    /** One line per group: CPU time, tasks, slices, tasks per slice, longest slice. */
    static String describe(List<GroupStats> stats) {
        StringBuilder out = new StringBuilder();
        for (GroupStats s : stats) {
            out.append(String.format("  group %-7s tickets %3d  cpu %8.1f ms  completed %9d  rejected %6d  slices %7d"
                            + "  tasks/slice %7.1f  longest slice %7.1f µs%n",
                    s.name(), s.tickets(), s.cpuTimeNanos() / 1e6, s.completedTasks(), s.rejectedTasks(),
                    s.slices(), s.slices() == 0 ? 0.0 : (double) s.completedTasks() / s.slices(),
                    s.longestSliceNanos() / 1e3));
        }
        return out.toString();
    }

    @Override
    public void close() throws InterruptedException {
        Pools.shutdown(pool);
    }
}
