package dev.rota;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A shut-down group terminates once its last queued or running task is done, whichever thread ends
 * that task: the group's own worker, another worker, a spare, or a worker that cancels a fork left
 * behind after a shutdownNow. None of it waits for the pool to terminate, which another group's
 * task may put off for as long as it runs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupTerminationTest {

    /** A fork that says whether it ran. */
    private static final class Probe extends RotaTask<Integer> {
        final AtomicBoolean ran = new AtomicBoolean();

        @Override
        protected Integer compute() {
            ran.set(true);
            return 1;
        }
    }

    /** Waits for {@code latch} as a task deaf to interrupts does: shutdownNow does not end it. */
    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException ignored) {
                // deaf to the interrupt, and leaves no flag behind
            }
        }
    }

    /** Holds a worker of {@code pool} with a task of a group of its own, deaf to interrupts, until {@code release}. */
    private static void holdAWorker(RotaPool pool, CountDownLatch release) throws InterruptedException {
        TaskGroup stubborn = pool.group("stubborn", 1);
        CountDownLatch holding = new CountDownLatch(1);
        stubborn.execute(() -> {
            holding.countDown();
            awaitIgnoringInterrupts(release);
        });
        Liveness.await(holding, "the stubborn task never started");
    }

    /**
     * After the pool's shutdownNow, a task of g that ignores the interrupt forks and returns without
     * joining. Its fork is cancelled as its worker exits; that was g's last work, so g terminates
     * then, while another group's task, deaf to the interrupt too, keeps the pool from terminating.
     */
    @Test
    void aForkCancelledAsItsWorkerExitsEndsItsGroupWhileThePoolRuns() throws Exception {
        RotaPool pool = RotaPool.builder().workers(2).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            holdAWorker(pool, release);
            TaskGroup g = pool.group("g", 1);
            Probe fork = new Probe();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            g.execute(() -> {
                started.countDown();
                awaitIgnoringInterrupts(stopped);
                fork.fork();                             // on the other worker's deque, after the drain
            });
            Liveness.await(started, "g's task never started");
            pool.shutdownNow();
            stopped.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS),
                    "g holds nothing but waits for the pool: " + fork);
            assertTrue(fork.isCancelled(), "the fork left behind is cancelled: " + fork);
            assertFalse(fork.ran.get());
            assertFalse(pool.isTerminated(), "set-up: the stubborn task still holds its worker");
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
}
