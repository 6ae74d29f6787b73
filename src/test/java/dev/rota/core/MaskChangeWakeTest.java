package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A change of a group's CPU mask while its tasks wait must reach the workers that may now run them,
 * even when they are parked: a worker parks once no group it may serve has work, and only an offer
 * wakes one. Two workers; worker 1 is held by a long task of another group, worker 0 has parked, and
 * a task of the group under test waits in worker 1's inbox. After the change worker 0 may run it,
 * and nobody else can before the long task ends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MaskChangeWakeTest {

    @Test
    void aWidenedMaskWakesAParkedWorkerForTheQueuedTask() throws Exception {
        assertQueuedTaskRunsAfter(WorkerMask.all(2));
    }

    /** The narrowed mask leaves the task to worker 0 alone; worker 1, once free, may not run it. */
    @Test
    void aMaskMovedToAParkedWorkerWakesItForTheQueuedTask() throws Exception {
        assertQueuedTaskRunsAfter(WorkerMask.of(2, 0));
    }

    private static void assertQueuedTaskRunsAfter(WorkerMask change) throws Exception {
        Engine engine = new Engine("mask-wake", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"),
                false, null, true);
        engine.start();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group busy = dispatcher.newGroup("busy", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            Group placed = dispatcher.newGroup("placed", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            busy.restrictTo(WorkerMask.of(2, 1));
            placed.restrictTo(WorkerMask.of(2, 1));

            CountDownLatch busyStarted = new CountDownLatch(1);
            assertAccepted(busy.offer(() -> {
                busyStarted.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);  // bounded, so that a failing run still ends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            assertTrue(busyStarted.await(30, TimeUnit.SECONDS), "the long task never started");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!engine.isParked(0) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(engine.isParked(0), "worker 0 never parked");

            CountDownLatch ran = new CountDownLatch(1);
            assertAccepted(placed.offer(ran::countDown)); // into worker 1's inbox: the only lane allowed
            placed.restrictTo(change);

            assertTrue(ran.await(10, TimeUnit.SECONDS),
                    "the queued task did not run after the mask change to workers "
                            + java.util.Arrays.toString(change.workers())
                            + " (worker 0 parked: " + engine.isParked(0) + ")");
        } finally {
            release.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(30, TimeUnit.SECONDS));
        }
    }
}
