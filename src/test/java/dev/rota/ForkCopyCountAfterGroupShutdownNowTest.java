package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import dev.rota.contract.ProbeFork;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fork run in place leaves its queued copy behind, which counts for that run once a worker takes
 * it (GroupStats.completedTasks). After the group's shutdownNow the copy is taken as a leftover of
 * the drain (W2), and must count all the same: the task ran.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ForkCopyCountAfterGroupShutdownNowTest {

    private static RotaTask<Integer> counted(AtomicInteger ran) {
        return RotaTask.adapt(() -> {
            ran.incrementAndGet();
            return 1;
        });
    }

    /** Control: without a shutdownNow, the outer task and the fork it invoked count as two. */
    @Test
    void withoutShutdownNowTheInvokedForkCounts() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup g = pool.group("g", 100);
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(1);
            g.execute(() -> {
                RotaTask<Integer> fork = counted(ran);
                fork.fork();
                fork.invoke();                           // runs here; its copy stays queued
                ran.incrementAndGet();
                done.countDown();
            });
            Liveness.await(done, "the outer task");
            g.shutdown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(2, ran.get());
            assertEquals(2, g.stats().completedTasks(), g.stats().toString());
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    @Test
    void afterShutdownNowTheInvokedForkStillCounts() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup g = pool.group("g", 100);
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            g.execute(() -> {
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(stopped); // deaf to g's shutdownNow
                Thread.interrupted();
                RotaTask<Integer> fork = counted(ran);
                fork.fork();                             // after the drain
                fork.invoke();                           // runs here; its copy stays queued
                ran.incrementAndGet();
            });
            Liveness.await(started, "g's task never started");
            assertTrue(g.shutdownNow().isEmpty(), "set-up: nothing was queued");
            stopped.countDown();
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "g did not terminate");
            assertEquals(2, ran.get(), "the outer task and its fork both ran");
            assertEquals(2, g.stats().completedTasks(), g.stats().toString());
            pool.shutdown();
            Liveness.awaitTermination(pool);
            assertEquals(2, pool.completedTasks(), "the pool's count is the sum of its groups'");
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
}
