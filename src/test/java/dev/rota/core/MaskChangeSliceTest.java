package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static dev.rota.core.WorkerOneHeld.workerIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker whose open slice belongs to a group that a mask change has just moved off it takes none
 * of that group's tasks afterwards: the slice ends at the next search, not when its quantum is used.
 * A slice is charged only for busy time, so one fed a task at a time may stay open far longer than a
 * quantum of wall time, and with a long quantum it would never end while the group has work.
 *
 * <p>Two workers, a quantum of an hour ({@link WorkerOneHeld}): worker 1 is held by a long task of
 * another group. Worker 0 runs a task of the group under test that moves the group to worker 1 and
 * queues more of its tasks there (the only lane allowed). None of those may run on worker 0; worker 1 runs them once free.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MaskChangeSliceTest {

    private static final int TASKS = 100;

    @Test
    void aSliceOfAGroupMovedOffItsWorkerEndsBeforeItTakesAnotherTask() throws Exception {
        try (WorkerOneHeld held = WorkerOneHeld.start("mask-slice")) {
            Engine engine = held.engine;
            Group moved = held.newGroup("moved");

            AtomicInteger ranOnWorker0 = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(TASKS);
            CountDownLatch moverDone = new CountDownLatch(1);
            AtomicInteger moverWorker = new AtomicInteger(-1);
            assertAccepted(moved.offer(() -> {
                moverWorker.set(workerIndex());
                moved.restrictTo(WorkerMask.of(2, 1));
                for (int i = 0; i < TASKS; i++) {
                    assertAccepted(moved.offer(() -> {
                        if (workerIndex() == 0) {
                            ranOnWorker0.incrementAndGet();
                        }
                        done.countDown();
                    }));
                }
                moverDone.countDown();
            }));
            Liveness.await(moverDone, "the task that moves its group");
            assertEquals(0, moverWorker.get(), "worker 1 is held, so worker 0 ran the moving task");

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (!engine.isParked(0) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(engine.isParked(0), "worker 0 never parked");
            held.release();
            Liveness.await(done, "the moved group's tasks");
            assertEquals(0, ranOnWorker0.get(),
                    "tasks queued after the group was moved to worker 1 ran on worker 0");
        }
    }
}
