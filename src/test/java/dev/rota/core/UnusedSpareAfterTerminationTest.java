package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * S4 at termination: a spare that serves waiting requests takes an idle spare off the list, and puts
 * it back if the request ended meanwhile. The pool may have terminated in between, its walk of the
 * idle list (which wakes the idle spares to exit) missing the spare taken off it; put back after
 * that walk, the spare must still leave, not sleep out its keep-alive (ten minutes here) beside a
 * terminated pool, where a non-daemon thread keeps the JVM from exiting. The test takes the spare
 * off the list and puts it back around the termination, as that race does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnusedSpareAfterTerminationTest {

    @Test
    void aSparePutBackOnTheIdleListAfterTerminationExits() throws Exception {
        Engine engine = new Engine("unused-spare", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true, 1, TimeUnit.MINUTES.toNanos(10), new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 42);
        engine.start();
        CountDownLatch release = new CountDownLatch(1);
        EngineSpares.blockAWorker(engine, engine.defaultGroup(), release);
        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        while (engine.spares().idleSpares() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        SpareThreads.Spare spare = engine.spares().takeIdle();
        assertNotNull(spare, "the spare never came back to the idle list after its worker unblocked");

        engine.shutdown();
        assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "the engine never terminated");
        engine.spares().returnUnused(spare);             // the request it was taken for ended meanwhile

        spare.thread.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
        assertFalse(spare.thread.isAlive(), "the spare put back after termination sleeps out its keep-alive");
        assertEquals(0, engine.spareThreads(), "a spare is still counted after the pool terminated");
    }
}
