package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import dev.rota.contract.ProbeFork;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group's {@code shutdownNow()} returns its tasks that never started and cancels the RotaTasks
 * among them; a task of the group that ignores the interrupt and forks afterwards leaves forks that
 * no drain returns. As after the pool's {@code shutdownNow()}, such a fork that its task does not
 * join is cancelled rather than run, whoever takes it: the worker whose deque holds it, or a spare
 * standing in for that worker. A fork that its task joins still runs, taken back by the join, so
 * the join returns its result; and one that runs elsewhere already (its task invoked it) is not
 * cancelled under that run when its queued copy is taken: it completes with its result.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ForksAfterGroupShutdownNowTest {

    @Test
    void anUnjoinedForkLeftOnTheWorkerIsCancelled() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup g = pool.group("g", 100);
            ProbeFork fork = new ProbeFork();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            g.execute(() -> {
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(stopped);
                fork.fork();                             // on the worker's deque, after the drain
            });
            Liveness.await(started, "g's task never started");
            assertTrue(g.shutdownNow().isEmpty(), "set-up: nothing was queued");
            stopped.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "g did not terminate");
            assertFalse(fork.ran.get(), "a fork made after g's shutdownNow ran unjoined");
            assertTrue(fork.isCancelled(), "the fork left behind is cancelled, so a later join is answered: " + fork);
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    @Test
    void anUnjoinedForkTakenByASpareIsCancelled() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            TaskGroup g = pool.group("g", 100);
            ProbeFork fork = new ProbeFork();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            g.execute(() -> {
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(stopped);
                fork.fork();                             // on the worker's deque, after the drain
                try {
                    RotaPool.managedBlock(new LatchBlocker(release)); // a spare stands in, and takes the fork
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Liveness.await(started, "g's task never started");
            assertTrue(g.shutdownNow().isEmpty(), "set-up: nothing was queued");
            stopped.countDown();
            Liveness.awaitCondition(fork::isDone, "the fork left on the blocked worker's deque to be taken");
            assertFalse(fork.ran.get(), "a spare ran a fork made after g's shutdownNow, unjoined");
            assertTrue(fork.isCancelled(), fork.toString());
            release.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "g did not terminate");
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    @Test
    void aJoinedForkStillRuns() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup g = pool.group("g", 100);
            ProbeFork fork = new ProbeFork();
            AtomicInteger joined = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            g.execute(() -> {
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(stopped);
                joined.set(fork.fork().join());          // taken back from the deque by its join
            });
            Liveness.await(started, "g's task never started");
            g.shutdownNow();
            stopped.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "g did not terminate");
            assertEquals(1, joined.get(), "the join's result: " + fork);
            assertTrue(fork.ran.get());
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
    /**
     * The task forks a RotaTask after the drain and then invokes it: while that run waits in a
     * managed block, the spare standing in takes the fork's queued copy. The copy is skipped, not
     * cancelled: the run completes the task, and invoke returns its result.
     */
    @Test
    void aForkRunningElsewhereIsNotCancelledWhenItsCopyIsTaken() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            TaskGroup g = pool.group("g", 100);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            CountDownLatch computing = new CountDownLatch(1);
            AtomicReference<Object> outcome = new AtomicReference<>();
            RotaTask<Integer> invoked = new RotaTask<>() {
                @Override
                protected Integer compute() {
                    computing.countDown();
                    try {
                        RotaPool.managedBlock(new LatchBlocker(release)); // a spare stands in, and takes the copy
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return 42;
                }
            };
            g.execute(() -> {
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(stopped);
                Thread.interrupted();                    // g's shutdownNow's: handled
                invoked.fork();                          // on the worker's deque, after the drain
                try {
                    outcome.set(invoked.invoke());       // runs it here; its copy stays queued
                } catch (RuntimeException e) {
                    outcome.set(e);
                }
            });
            Liveness.await(started, "g's task never started");
            assertTrue(g.shutdownNow().isEmpty(), "set-up: nothing was queued");
            stopped.countDown();
            Liveness.await(computing, "the invoked fork's run");
            Liveness.awaitCondition(() -> g.stats().queuedTasks() == 0, "the fork's queued copy to be taken");
            assertFalse(invoked.isCancelled(), "the fork was cancelled under its run when its copy was taken");
            release.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "g did not terminate");
            assertEquals(42, outcome.get(), "invoke's outcome");
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
}
