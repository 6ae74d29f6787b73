package dev.rota.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.RotaPool;
import dev.rota.RotaTask;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Set-ups for tests of spare threads: a pool whose only worker blocks, and a trivial fork/join task. */
public final class Spares {
    private Spares() {}

    /**
     * Blocks the only worker of {@code pool} in a managed block until {@code release} opens, and
     * returns once a spare thread stands in for it.
     */
    public static void blockTheOnlyWorker(RotaPool pool, CountDownLatch release) throws InterruptedException {
        pool.execute(() -> {
            try {
                RotaPool.managedBlock(new LatchBlocker(release));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        while (pool.spareThreads() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(pool.spareThreads() > 0, "no spare stood in for the blocked worker");
    }

    /** A fork/join task with nothing to do: it returns 1. */
    public static final class Leaf extends RotaTask<Integer> {
        @Override
        protected Integer compute() {
            return 1;
        }
    }
}
