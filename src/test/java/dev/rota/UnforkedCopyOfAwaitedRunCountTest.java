package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fork that a waiter runs in place (no spare) is not counted where it runs: its copy in the queue
 * counts once a taker skips it. Taken back with {@code tryUnfork()} instead (still the newest on its
 * deque), the copy is counted as it is taken back, so that the task that ran counts once, in its
 * group and in the pool's figure, as it would had nobody taken the copy back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class UnforkedCopyOfAwaitedRunCountTest {

    @Test
    void aForkRunInPlaceByItsWaiterAndThenUnforkedCountsOnce() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).pinning(false).build()) {
            TaskGroup a = pool.group("a", 100);
            TaskGroup b = pool.group("b", 100);
            AtomicInteger fRuns = new AtomicInteger();
            Future<Boolean> x = a.submit(() -> {
                RotaTask<Integer> f = RotaTask.adapt(() -> {
                    fRuns.incrementAndGet();
                    return 5;
                });
                f.fork();                                        // on the worker's deque of a
                Future<Integer> y = b.submit(() -> f.join());    // b's task waits for f across groups
                assertEquals(5, y.get());                        // runs y in place, which runs f in place
                return f.tryUnfork();                            // f's copy is still the newest on the deque
            });
            assertTrue(x.get(Liveness.SECONDS, TimeUnit.SECONDS), "f's copy taken back");
            assertEquals(1, fRuns.get());
            // x and f ran as tasks of a, f once: a counts 2, as it would had nobody unforked f's copy;
            // y's copy in b's queue counts once the worker skips it.
            Liveness.awaitCondition(() -> a.stats().completedTasks() == 2 && b.stats().completedTasks() == 1
                    && pool.completedTasks() == 3, "a counting 2 completed tasks, b 1 and the pool 3 (a counted "
                    + a.stats().completedTasks() + ", b " + b.stats().completedTasks() + ", the pool "
                    + pool.completedTasks() + ")");
            assertEquals(0, a.stats().queuedTasks() + b.stats().queuedTasks());
        }
    }
}
