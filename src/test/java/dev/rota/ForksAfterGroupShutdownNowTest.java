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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group's {@code shutdownNow()} returns its tasks that never started and cancels the RotaTasks
 * among them; a task of the group that ignores the interrupt and forks afterwards leaves forks that
 * no drain returns. As after the pool's {@code shutdownNow()}, such a fork that its task does not
 * join is cancelled rather than run, whoever takes it: the worker whose deque holds it, or a spare
 * standing in for that worker. A fork that its task joins still runs, taken back by the join, so
 * the join returns its result.
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
}
