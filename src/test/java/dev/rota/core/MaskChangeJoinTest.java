package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static dev.rota.core.WorkerOneHeld.workerIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.RotaTask;
import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Forks of a task that keeps running on a worker its group's mask no longer allows (W5). A fork it
 * joins is part of that task and runs where the task runs, as any join takes its newest fork back:
 * left to the allowed workers, the join would wait on them, for ever if they were blocked on this
 * very task. After the pool's shutdown the allowed workers may have exited, so masks lapse and the
 * task's worker finishes even a fork nobody joins.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MaskChangeJoinTest {

    /**
     * Two workers ({@link WorkerOneHeld}): worker 1, the only one the mask will allow, is held by a
     * long task until the join has ended, so the join must not wait for it.
     */
    @Test
    void aJoinOnAWorkerTheMaskExcludesRunsItsOwnForkWithoutWaitingForTheAllowedWorkers() throws Exception {
        try (WorkerOneHeld held = WorkerOneHeld.start("mask-join")) {
            Group moved = held.newGroup("moved");
            AtomicInteger joinerWorker = new AtomicInteger(-1);
            AtomicInteger forkWorker = new AtomicInteger(-1);
            CountDownLatch joined = new CountDownLatch(1);
            assertAccepted(moved.offer(() -> {
                joinerWorker.set(workerIndex());
                RotaTask<Integer> fork = new RotaTask<>() {
                    @Override
                    protected Integer compute() {
                        return workerIndex();
                    }
                };
                fork.fork();                              // on worker 0's deque, while the mask allows it
                moved.restrictTo(WorkerMask.of(2, 1));
                forkWorker.set(fork.join());
                joined.countDown();
            }));
            Liveness.await(joined, "the join, while the only allowed worker is held");

            assertEquals(0, joinerWorker.get(), "worker 1 is held, so worker 0 ran the joining task");
            assertEquals(0, forkWorker.get(), "the joined fork runs where its task runs");
        }
    }

    /**
     * After shutdown() a worker that finds no task left exits (E2), though a task of a group whose
     * mask allows only that worker still runs elsewhere. That task then forks and returns without
     * joining: its worker must run the fork, or the fork waits for ever and the pool never
     * terminates. Two workers; the task moves its group to the other one and waits until the pool is
     * shut down and that worker has exited.
     */
    @Test
    void aForkLeftAfterTheAllowedWorkersExitedRunsAndThePoolTerminates() throws Exception {
        Engine engine = new Engine("mask-fork-exit", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"),
                false, null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS,
                new StrideScheduler(), TimeUnit.HOURS.toNanos(1), 42);
        engine.start();
        try {
            Group moved = engine.dispatcher().newGroup("moved", engine.dispatcher().baseCurrency(), 100,
                    Group.UNBOUNDED, 16);
            CountDownLatch groupMoved = new CountDownLatch(1);
            CountDownLatch shutDown = new CountDownLatch(1);
            CountDownLatch forkRan = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            assertAccepted(moved.offer(() -> {
                try {
                    int other = 1 - workerIndex();
                    moved.restrictTo(WorkerMask.of(2, other));
                    groupMoved.countDown();
                    Liveness.await(shutDown, "the pool's shutdown");
                    Thread allowed = engine.worker(other).thread;
                    allowed.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
                    assertFalse(allowed.isAlive(), "the only allowed worker did not exit after shutdown");
                    new RotaTask<Void>() {
                        @Override
                        protected Void compute() {
                            forkRan.countDown();
                            return null;
                        }
                    }.fork();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }));
            Liveness.await(groupMoved, "the task that moves its group");
            engine.shutdown();
            shutDown.countDown();
            Liveness.await(forkRan, "the fork that no allowed worker is left to take");
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "the pool did not terminate");
            if (failure.get() != null) {
                throw new AssertionError("the forking task failed", failure.get());
            }
        } finally {
            engine.shutdownNow();
        }
    }
}
