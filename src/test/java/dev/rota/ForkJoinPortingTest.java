package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Rows of README's table for porting from ForkJoinPool: the common pool is as large as a pool of
 * {@code RotaPool.create()}, a fork outside any pool runs in the common pool, and a thread a task
 * starts belongs to no pool.
 */
class ForkJoinPortingTest {

    @Test
    void theCommonPoolHasAsManyWorkersAsAPoolOfCreate() {
        RotaPool common = RotaPool.commonPool();
        try (RotaPool created = RotaPool.create()) {
            assertEquals(created.workers(), common.workers(),
                    "the common pool's workers, against RotaPool.create()'s");
        }
    }

    @Test
    void aForkOutsideAnyPoolRunsInTheCommonPool() throws Exception {
        RotaTask<RotaPool> whereItRan = new RotaTask<>() {
            @Override
            protected RotaPool compute() {
                return RotaTask.getPool();
            }
        };
        assertNull(RotaTask.getPool(), "the test's own thread is in a pool");
        whereItRan.fork();
        assertSame(RotaPool.commonPool(), whereItRan.get(Liveness.SECONDS, TimeUnit.SECONDS),
                "the pool that ran a task forked outside any pool");
    }

    @Test
    void aThreadStartedByATaskIsInNoPool() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            AtomicReference<Boolean> startedThreadInPool = new AtomicReference<>();
            boolean taskInPool = pool.submit(() -> {
                Thread started = Thread.ofPlatform().start(() -> startedThreadInPool.set(RotaTask.inPool()));
                started.join();
                return RotaTask.inPool();
            }).get(Liveness.SECONDS, TimeUnit.SECONDS);
            assertTrue(taskInPool, "inPool() on the worker that runs the task");
            assertFalse(startedThreadInPool.get(), "inPool() on a thread the task started");
        }
    }
}
