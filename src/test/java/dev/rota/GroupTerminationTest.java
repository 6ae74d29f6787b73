package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import dev.rota.contract.ProbeFork;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
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

    /** Holds a worker of {@code pool} with a task of a group of its own, deaf to interrupts, until {@code release}. */
    private static void holdAWorker(RotaPool pool, CountDownLatch release) throws InterruptedException {
        TaskGroup stubborn = pool.group("stubborn", 1);
        CountDownLatch holding = new CountDownLatch(1);
        stubborn.execute(() -> {
            holding.countDown();
            ProbeFork.awaitIgnoringInterrupts(release);
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
            ProbeFork fork = new ProbeFork();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            g.execute(() -> {
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(stopped);
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

    /**
     * A queued task of a shut-down group that its submitter cancels stays in the queue, as in
     * ThreadPoolExecutor, until a worker reaches it and skips it; the group then terminates, the
     * task never having run. The same for the future of a submitted Callable, a RotaTask
     * submitted as itself, and the future of {@code submit(task, result)} with a RotaTask in it.
     */
    @Test
    void cancelledQueuedTasksOfAShutDownGroupEndItOnceAWorkerReachesThem() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            TaskGroup g = pool.group("g", 1);
            AtomicBoolean ran = new AtomicBoolean();
            Future<Boolean> callable = g.submit(() -> ran.getAndSet(true));
            ProbeFork submitted = new ProbeFork();
            g.submit(submitted);
            ProbeFork inFuture = new ProbeFork();
            Future<String> withResult = g.submit(inFuture, "result");
            g.shutdown();
            assertTrue(callable.cancel(false));
            assertTrue(submitted.cancel(false));
            assertTrue(withResult.cancel(false));
            release.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "g kept its cancelled tasks");
            assertFalse(ran.get(), "a cancelled task ran");
            assertFalse(submitted.ran.get(), "a cancelled RotaTask ran");
            assertFalse(inFuture.ran.get(), "the RotaTask of a cancelled future ran");
            assertThrows(CancellationException.class, inFuture::join);
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * The last task of a shut-down group runs on a spare, while the pool's only worker waits in a
     * managed block: the spare's charge of that task terminates the group, without waiting for the
     * worker.
     */
    @Test
    void aSpareThatRunsTheLastTaskEndsTheGroup() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch unblock = new CountDownLatch(1);
        try {
            CountDownLatch blocking = new CountDownLatch(1);
            pool.execute(() -> {
                blocking.countDown();
                try {
                    RotaPool.managedBlock(new LatchBlocker(unblock));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Liveness.await(blocking, "the only worker in a managed block");
            TaskGroup g = pool.group("g", 1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            g.execute(() -> {
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(finish);
            });
            Liveness.await(started, "g's task on a spare");
            g.shutdown();
            assertFalse(g.isTerminated(), "g's task still runs");
            finish.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "g waits for the blocked worker");
        } finally {
            unblock.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * After the pool's shutdown() the default group stays open for the delayed one-shot tasks still
     * to come due. Cancelling the last of them lets the default group, and so the pool, terminate at
     * once, rather than at its deadline an hour away.
     */
    @Test
    void cancellingTheLastDelayedTaskAfterShutdownEndsTheDefaultGroupAndThePool() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            ScheduledFuture<?> later = pool.schedule(() -> {}, 1, TimeUnit.HOURS);
            pool.shutdown();
            assertFalse(pool.defaultGroup().isTerminated(), "set-up: a delayed task is still to come due");
            assertTrue(later.cancel(false));
            assertTrue(pool.defaultGroup().awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS),
                    "the default group waits for a cancelled delayed task");
            Liveness.awaitTermination(pool);
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * close() interrupted, as ExecutorService.close() specifies: the group is shut down now (its
     * running task is interrupted), close() still returns only once the group has terminated, and
     * the interrupt status is set again when it returns.
     */
    @Test
    void anInterruptedCloseShutsTheGroupDownNowAndStillWaitsForIt() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup g = pool.group("g", 1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch never = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            AtomicBoolean taskEnded = new AtomicBoolean();
            g.execute(() -> {
                started.countDown();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                taskEnded.set(true);
            });
            Liveness.await(started, "g's task never started");
            AtomicBoolean flagAfterClose = new AtomicBoolean();
            AtomicBoolean terminatedAfterClose = new AtomicBoolean();
            Liveness.within("an interrupted close()", () -> {
                Thread.currentThread().interrupt();
                g.close();
                flagAfterClose.set(Thread.interrupted());
                terminatedAfterClose.set(g.isTerminated() && taskEnded.get());
                return null;
            });
            assertTrue(interrupted.get(), "the interrupted close() did not shut the group down now");
            assertTrue(terminatedAfterClose.get(), "close() returned before the group terminated");
            assertTrue(flagAfterClose.get(), "close() swallowed the interrupt");
            assertFalse(pool.isShutdown(), "closing a group leaves its pool open");
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * Once a group has terminated its figures are final: every task counted, none queued, and no
     * tickets or value since it left its currency. A later submission is refused, and counted.
     */
    @Test
    void theStatsOfATerminatedGroupAreFinal() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).pinning(false).build()) {
            TaskGroup g = pool.group("g", 5);
            for (int i = 0; i < 100; i++) {
                g.execute(() -> {});
            }
            g.shutdown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
            GroupStats stats = g.stats();
            assertEquals(100, stats.completedTasks(), stats.toString());
            assertEquals(0, stats.queuedTasks(), stats.toString());
            assertEquals(0, stats.tickets(), stats.toString());
            assertEquals(0.0, stats.value(), stats.toString());
            assertEquals(0, stats.rejectedTasks(), stats.toString());
            assertThrows(RejectedExecutionException.class, () -> g.execute(() -> {}));
            GroupStats later = g.stats();
            assertEquals(1, later.rejectedTasks(), later.toString());
            assertEquals(stats.completedTasks(), later.completedTasks());
            assertEquals(stats.cpuTimeNanos(), later.cpuTimeNanos());
            assertEquals(stats.slices(), later.slices());
        }
    }
}
