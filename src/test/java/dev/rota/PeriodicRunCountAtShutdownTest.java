package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * GroupStats.completedTasks for a periodic task at shutdown: once per time the timer handed it to
 * the pool, so once per run, and once for the run handed over that the shutdown cancelled before it
 * started, whether a worker skips that copy (shutdown) or the drain takes it (shutdownNow); the
 * pool's figure is the sum of its groups'.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PeriodicRunCountAtShutdownTest {

    /** A periodic task that has run, with its next run handed to the pool and queued behind a held worker. */
    private static ScheduledFuture<?> periodicWithQueuedRun(RotaPool pool, AtomicInteger runs, CountDownLatch release)
            throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(() -> {
            runs.incrementAndGet();
            ran.countDown();
        }, 0, 20, TimeUnit.MILLISECONDS);
        Liveness.await(ran, "the periodic task's first run");
        OnlyWorker.occupy(pool, release);                // counts as one completed task once it returns
        OnlyWorker.awaitQueued(pool, 1);                 // the periodic task's next run, due, behind it
        return periodic;
    }

    @Test
    void aPeriodicRunDrainedByShutdownNowCountsAsItsHandOff() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        ScheduledFuture<?> periodic = periodicWithQueuedRun(pool, runs, release);
        List<Runnable> returned = pool.shutdownNow();    // not returned: it has run before
        Liveness.awaitTermination(pool);
        assertTrue(periodic.isCancelled());
        assertEquals(List.of(), returned);
        GroupStats stats = pool.defaultGroup().stats();
        assertEquals(runs.get() + 2, stats.completedTasks(),
                "runs of the periodic task: " + runs.get() + ", its cancelled hand-off, the occupying task; " + stats);
        assertEquals(stats.completedTasks(), pool.completedTasks());
    }

    @Test
    void aPeriodicRunCancelledByShutdownCountsAsItsHandOff() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        ScheduledFuture<?> periodic = periodicWithQueuedRun(pool, runs, release);
        pool.shutdown();                                 // cancels the queued run; it never starts
        assertTrue(periodic.isCancelled());
        release.countDown();
        Liveness.awaitTermination(pool);
        GroupStats stats = pool.defaultGroup().stats();
        assertEquals(runs.get() + 2, stats.completedTasks(),
                "runs of the periodic task: " + runs.get() + ", its cancelled hand-off, the occupying task; " + stats);
        assertEquals(stats.completedTasks(), pool.completedTasks());
    }
}
