package dev.rota.demo;

import dev.rota.RotaPool;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Starts a pool, shows the CPU topology and which worker is pinned to which CPU, then runs bursts
 * of tiny tasks through RotaPool and ForkJoinPool in the same run and prints both throughputs.
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
            System.out.println(rota);
        }
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
