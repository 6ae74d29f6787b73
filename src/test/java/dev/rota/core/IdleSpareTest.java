package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A spare standing in for a worker blocked in a long wait, with nothing to run, must not keep its
 * CPU busy looking for work: its sleeps between looks grow, up to
 * {@link SpareThreads#MAX_IDLE_RECHECK_NANOS}, so it looks a thousand times a second at most
 * rather than twenty thousand. Counted in sleeps, not in time: a loaded machine only makes each
 * sleep longer, and so the count smaller.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleSpareTest {
    private static final long WINDOW_MILLIS = 500;

    @Test
    void aSpareWithNothingToRunBacksOffToAMillisecondBetweenLooks() throws Exception {
        Engine engine = new Engine("idle-spare", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true, 4, TimeUnit.SECONDS.toNanos(60), new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 42);
        engine.start();
        CountDownLatch release = new CountDownLatch(1);
        try {
            EngineSpares.blockAWorker(engine, engine.defaultGroup(), release);
            Thread.sleep(100);                           // past the first, short sleeps
            long before = engine.spares().idleSleeps();
            Thread.sleep(WINDOW_MILLIS);
            long sleeps = engine.spares().idleSleeps() - before;
            // At most one sleep per MAX_IDLE_RECHECK_NANOS, with room for the backoff's start: 500
            // in the window, where a fixed 50 µs sleep makes up to 10,000.
            long bound = 2 * TimeUnit.MILLISECONDS.toNanos(WINDOW_MILLIS) / SpareThreads.MAX_IDLE_RECHECK_NANOS;
            assertTrue(sleeps <= bound, sleeps + " sleeps of an idle spare in " + WINDOW_MILLIS + " ms, above " + bound);
            assertTrue(sleeps > 0, "the spare never slept: it does not stand in, or it spins");
        } finally {
            release.countDown();
        }
        engine.shutdown();
        assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
    }
}
