package dev.rota;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.rota.contract.Liveness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A delayed or periodic task was accepted when it was scheduled; coming due while the default
 * group's bounded queue is full must not cancel it. It is queued past the bound (the heap held it
 * already, so no more memory is taken), and it counts against the bound until a worker takes it.
 */
class DueTasksPastFullQueueTest {
    private final RotaPool pool = RotaPool.builder().workers(1).build();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() throws InterruptedException {
        release.countDown();
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
    }

    @Test
    void dueTasksAreQueuedPastAFullDefaultGroupAndRun() throws Exception {
        TaskGroup defaultGroup = pool.defaultGroup();
        defaultGroup.setQueueCapacity(1);
        CountDownLatch blocking = new CountDownLatch(1);
        pool.execute(() -> {
            blocking.countDown();
            awaitRelease();
        });
        Liveness.await(blocking, "the only worker occupied");
        AtomicInteger queuedRuns = new AtomicInteger();
        pool.execute(queuedRuns::incrementAndGet);
        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}), "the queue is full");

        ScheduledFuture<String> oneShot = pool.schedule(() -> "ran", 0, TimeUnit.NANOSECONDS);
        AtomicInteger periodicRuns = new AtomicInteger();
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(periodicRuns::incrementAndGet, 0, 1, TimeUnit.MILLISECONDS);
        Liveness.awaitCondition(() -> oneShot.isDone() || defaultGroup.stats().queuedTasks() == 3,
                "both due tasks handed to the pool");
        assertFalse(oneShot.isCancelled(), "a one-shot task that came due while the queue was full was cancelled");
        assertFalse(periodic.isDone(), "a periodic task that came due while the queue was full ended");
        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}),
                "due tasks queued past the bound count against it");

        release.countDown();
        assertEquals("ran", oneShot.get(Liveness.SECONDS, TimeUnit.SECONDS));
        Liveness.awaitCondition(() -> periodicRuns.get() >= 3, "the periodic task to run three times");
        assertFalse(periodic.isDone());
        assertEquals(1, queuedRuns.get());
        assertEquals(2, defaultGroup.stats().rejectedTasks(), "only the two plain submissions were rejected");
        periodic.cancel(false);
    }

    private void awaitRelease() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
