package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static dev.rota.core.WorkerOneHeld.workerIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.RotaTask;
import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task whose group a mask change moves off its worker does not take back its own fork when it
 * joins it (W5): the fork waits for a worker the mask allows. Without the check, the join popped
 * the fork and ran it in place, so a group confined to some CPUs ran on another one.
 *
 * <p>Two workers ({@link WorkerOneHeld}): worker 1 is held by a long task of another group, so the
 * task under test runs on worker 0. It forks, moves its group to worker 1, and joins. The test
 * frees worker 1 only once the join has either finished (the fork ran in place: the failure) or
 * waits (its thread is parked), so that worker 1 cannot take the fork before the join has tried to
 * take it back. The fork must run on worker 1.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MaskChangeJoinTest {

    @Test
    void aJoinOnAWorkerTheMaskExcludesLeavesItsForkToTheAllowedWorkers() throws Exception {
        try (WorkerOneHeld held = WorkerOneHeld.start("mask-join")) {
            Group moved = held.newGroup("moved");

            AtomicReference<Thread> joiner = new AtomicReference<>();
            AtomicInteger joinerWorker = new AtomicInteger(-1);
            AtomicInteger forkWorker = new AtomicInteger(-1);
            CountDownLatch aboutToJoin = new CountDownLatch(1);
            CountDownLatch joined = new CountDownLatch(1);
            assertAccepted(moved.offer(() -> {
                joiner.set(Thread.currentThread());
                joinerWorker.set(workerIndex());
                RotaTask<Integer> fork = new RotaTask<>() {
                    @Override
                    protected Integer compute() {
                        return workerIndex();
                    }
                };
                fork.fork();                              // on worker 0's deque, while the mask allows it
                moved.restrictTo(WorkerMask.of(2, 1));
                aboutToJoin.countDown();
                forkWorker.set(fork.join());
                joined.countDown();
            }));
            Liveness.await(aboutToJoin, "the task that forks and moves its group");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (joined.getCount() > 0 && !parked(joiner.get()) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(joined.getCount() == 0 || parked(joiner.get()), "the join neither ended nor waited");
            held.release();                               // worker 1 is free to take the fork now
            Liveness.await(joined, "the join of the fork");

            assertEquals(0, joinerWorker.get(), "worker 1 is held, so worker 0 ran the joining task");
            assertEquals(1, forkWorker.get(), "the fork ran on a worker that its group's mask excludes");
        }
    }

    private static boolean parked(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }
}
