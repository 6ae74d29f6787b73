package dev.rota.core;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.TimeUnit;

/**
 * Engines for the tests that drive a worker one search at a time ({@link Worker#runOneTask()}) on
 * the test's thread: never started, so no worker thread takes a task behind the test's back.
 */
final class UnstartedEngine {
    private UnstartedEngine() {}

    /** Two workers, each the other's only victim, unpinned, stride scheduling with a 1 ms quantum. */
    static Engine ofTwoWorkers(String name) {
        return new Engine(name, new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"), false,
                null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS, new StrideScheduler(),
                TimeUnit.MILLISECONDS.toNanos(1), 5);
    }
}
