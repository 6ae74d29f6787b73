package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker's thread that cannot be started (the JVM's "unable to create native thread" under a
 * limit on threads) makes {@link Engine#start()}, and so {@code RotaPool.Builder.build()}, throw that
 * failure. The pool is never handed to anyone, so nobody can shut it down: the workers already
 * started must not idle for ever (with {@code daemon(false)} they would keep the JVM alive), as
 * ThreadPoolExecutor and ForkJoinPool undo a worker whose thread failed to start.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class WorkerStartFailureTest {

    @Test
    void aFailedStartStopsTheWorkersItStartedAndTerminates() throws Exception {
        Engine engine = new Engine("start-failure", new int[] {0, 1, 2}, new int[][] {{1, 2}, {0, 2}, {0, 1}},
                new NoAffinity("test"), false, null, true);
        OutOfMemoryError noThread = new OutOfMemoryError("unable to create native thread: simulated");
        Thread second = engine.worker(1).thread;
        engine.startWorkersWith(thread -> {
            if (thread == second) {
                throw noThread;
            }
            thread.start();
        });
        Thread first = engine.worker(0).thread;
        try {
            assertSame(noThread, assertThrows(OutOfMemoryError.class, engine::start));
            first.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
            assertFalse(first.isAlive(), "worker 0, started by the failed start(), still runs: " + first.getState()
                    + "; nobody holds the pool to shut it down");
            assertFalse(engine.worker(2).thread.isAlive(), "worker 2 was started after the failure");
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "the abandoned engine never terminated");
        } finally {
            engine.shutdownNow();                        // should the start have left anything running
        }
    }
}
