package dev.rota.demo;

import dev.rota.GroupStats;
import dev.rota.PoolSnapshot;
import dev.rota.RotaPool;
import dev.rota.TaskGroup;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Starts a pool, shows the CPU topology and which worker is pinned to which CPU, then runs bursts
 * of tiny tasks through RotaPool and ForkJoinPool in the same run and prints both throughputs.
 * Last, three service tiers with tickets 3:2:1 keep the pool busy for a second, and the CPU time
 * each was charged is printed beside its entitlement.
 *
 * <p>A demonstration, not a benchmark: the JMH benchmarks in {@code jmh/} are the measured claims.
 * Arguments: {@code [tasksPerBurst] [bursts]} (default 2,000,000 and 5).
 */
public final class Demo {
    private static final LongAdder COMPLETED = new LongAdder();
    private static final Runnable TINY_TASK = COMPLETED::increment;

    private Demo() {}

    public static void main(String[] args) throws InterruptedException {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int bursts = args.length > 1 ? Integer.parseInt(args[1]) : 5;

        try (RotaPool rota = RotaPool.create()) {
            System.out.println(rota.topology());          // the CPUs, then which worker is pinned where
            System.out.println();

            ForkJoinPool forkJoin = new ForkJoinPool(rota.workers());
            try {
                System.out.printf("%d bursts of %,d tiny tasks submitted from one outside thread, %d workers each%n",
                        bursts, tasks, rota.workers());
                System.out.printf("%-8s %18s %18s %8s%n", "burst", "RotaPool tasks/s", "ForkJoinPool tasks/s", "ratio");
                burst(rota, tasks);                      // warm-up, not shown
                burst(forkJoin, tasks);
                for (int b = 1; b <= bursts; b++) {
                    double rotaRate = burst(rota, tasks);
                    double forkJoinRate = burst(forkJoin, tasks);
                    System.out.printf("%-8d %,18.0f %,18.0f %7.2fx%n", b, rotaRate, forkJoinRate, rotaRate / forkJoinRate);
                }
            } finally {
                forkJoin.shutdown();
                forkJoin.awaitTermination(10, TimeUnit.SECONDS);
            }
            System.out.println();
            tiers(rota);
            System.out.println();
            System.out.println(rota);
        }
    }

    /**
     * Gold, silver and bronze (300, 200, 100 tickets) each keep tasks of about 50 µs queued for a
     * second; prints each tier's share of the CPU time charged over that second.
     */
    private static void tiers(RotaPool pool) throws InterruptedException {
        String[] names = {"gold", "silver", "bronze"};
        long[] tickets = {300, 200, 100};
        TaskGroup[] groups = new TaskGroup[names.length];
        AtomicBoolean running = new AtomicBoolean(true);
        for (int g = 0; g < groups.length; g++) {
            groups[g] = pool.group(names[g], tickets[g]);
            for (int i = 0; i < 4 * pool.workers(); i++) {
                resubmitting(groups[g], running);
            }
        }
        Thread.sleep(200);                                   // let every tier start
        PoolSnapshot before = pool.snapshot();
        Thread.sleep(1000);
        PoolSnapshot after = pool.snapshot();
        running.set(false);

        long[] used = new long[names.length];
        long total = 0;
        for (int g = 0; g < names.length; g++) {
            used[g] = cpuTime(after, names[g]) - cpuTime(before, names[g]);
            total += used[g];
        }
        System.out.printf("three tiers kept busy for one second (%s policy, %s quantum)%n", pool.policy(), pool.quantum());
        System.out.printf("%-8s %8s %12s %12s%n", "tier", "tickets", "entitled", "CPU share");
        for (int g = 0; g < names.length; g++) {
            System.out.printf("%-8s %8d %11.1f%% %11.1f%%%n", names[g], tickets[g], 100.0 * tickets[g] / 600,
                    100.0 * used[g] / Math.max(1, total));
        }
        for (TaskGroup group : groups) {
            group.shutdown();
            group.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** A task of about 50 µs that submits itself again to {@code group} while {@code running}. */
    private static void resubmitting(TaskGroup group, AtomicBoolean running) {
        group.execute(() -> {
            long end = System.nanoTime() + 50_000;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            if (running.get()) {
                resubmitting(group, running);
            }
        });
    }

    private static long cpuTime(PoolSnapshot snapshot, String group) {
        return snapshot.group(group).map(GroupStats::cpuTimeNanos).orElse(0L);
    }

    /** Submits {@code tasks} tiny tasks, waits until all have run; returns tasks completed per second. */
    private static double burst(ExecutorService pool, int tasks) {
        long target = COMPLETED.sum() + tasks;
        long start = System.nanoTime();
        for (int i = 0; i < tasks; i++) {
            pool.execute(TINY_TASK);
        }
        while (COMPLETED.sum() < target) {
            Thread.onSpinWait();
        }
        return tasks * 1e9 / (System.nanoTime() - start);
    }
}
