package dev.rota;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A delayed task that has come due waits in the pool's queue while every worker is busy; a
 * {@code shutdownNow()} then returns it once and cancels it, as it does the delayed tasks still
 * waiting for their deadline, so that a thread waiting on its future is answered.
 */
class DueTasksAtShutdownNowTest {

    @Test
    void aDueOneShotTaskInTheQueueIsReturnedOnceAndCancelled() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            occupyTheOnlyWorker(pool, release);
            AtomicInteger ran = new AtomicInteger();
            ScheduledFuture<String> due = pool.schedule(() -> {
                ran.incrementAndGet();
                return "ran";
            }, 0, MILLISECONDS);
            awaitQueued(pool);

            List<Runnable> returned = pool.shutdownNow();

            assertEquals(1, returned.stream().filter(r -> r == due).count(), "returned once: " + returned);
            assertEquals(0, ran.get());
            assertTrue(due.isCancelled(), "returned but not cancelled: " + due);
            assertThrows(CancellationException.class, () -> due.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    @Test
    void aDuePeriodicTaskInTheQueueIsCancelled() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            occupyTheOnlyWorker(pool, release);
            ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(() -> { }, 0, 1, TimeUnit.HOURS);
            awaitQueued(pool);

            pool.shutdownNow();

            assertTrue(periodic.isCancelled(), "the periodic task survived shutdownNow");
            assertThrows(CancellationException.class, () -> periodic.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    private static void occupyTheOnlyWorker(RotaPool pool, CountDownLatch release) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();     // shutdownNow's interrupt ends it
            }
        });
        Liveness.await(started, "the occupying task never started");
    }

    /** Waits until the timer has handed the due task to the pool, whose only worker is busy. */
    private static void awaitQueued(RotaPool pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        while (pool.queuedTasks() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(pool.queuedTasks() >= 1, "the due task never reached the pool's queue");
    }
}
