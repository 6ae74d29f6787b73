package dev.rota;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code shutdown()} ends every periodic task, as ScheduledThreadPoolExecutor's default policy
 * ({@code continueExistingPeriodicTasksAfterShutdown == false}) does, wherever the task waits for
 * its next run: in the timer's heap, or come due and handed to a worker that is still busy. Its
 * future is cancelled by the time {@code shutdown()} returns, no run of it starts afterwards, and
 * delayed one-shot tasks, queued or still waiting for their deadline, run and let the pool terminate.
 * (A run that a worker had already taken when {@code shutdown()} was called still starts, and the
 * task is cancelled as it ends; the tests here hold the only worker, so no run is taken.)
 *
 * <p>One worker, held by a task until released, so that a due task stays in its queue for as long
 * as the test needs.
 */
class PeriodicTasksAtShutdownTest {

    @Test
    void aDuePeriodicTaskInAWorkersQueueIsCancelledByShutdownAndNeverRuns() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, HOURS);
            OnlyWorker.awaitQueued(pool, 1);
            ScheduledFuture<String> queuedOneShot = pool.schedule(() -> "queued one-shot ran", 0, MILLISECONDS);
            OnlyWorker.awaitQueued(pool, 2);
            ScheduledFuture<String> laterOneShot = pool.schedule(() -> "later one-shot ran", 50, MILLISECONDS);

            pool.shutdown();

            assertTrue(periodic.isCancelled(), "a due periodic task in the worker's queue survived shutdown()");
            assertThrows(CancellationException.class, () -> periodic.get(Liveness.SECONDS, TimeUnit.SECONDS));
            release.countDown();
            assertEquals("queued one-shot ran", queuedOneShot.get(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals("later one-shot ran", laterOneShot.get(Liveness.SECONDS, TimeUnit.SECONDS));
            Liveness.awaitTermination(pool);
            assertEquals(0, runs.get(), "the periodic task ran after shutdown()");
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /** As above for a periodic task that has run before: its next run, come due, is not started. */
    @Test
    void aPeriodicTaskThatRanBeforeAndWaitsInTheQueueRunsNoMoreAfterShutdown() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(runs::incrementAndGet, 0, 20, MILLISECONDS);
            Liveness.awaitCondition(() -> runs.get() >= 1, "the first run");
            OnlyWorker.occupy(pool, release);
            OnlyWorker.awaitQueued(pool, 1);                          // its next run came due behind the busy worker
            int runsAtShutdown = runs.get();

            pool.shutdown();

            assertTrue(periodic.isCancelled(), "a periodic task waiting in the worker's queue survived shutdown()");
            release.countDown();
            Liveness.awaitTermination(pool);
            assertEquals(runsAtShutdown, runs.get(), "the periodic task ran again after shutdown()");
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
}
