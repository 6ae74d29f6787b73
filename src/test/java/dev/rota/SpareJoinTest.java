package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task run by a spare thread (standing in for a worker blocked in a managed block) may wait for
 * other tasks of the pool as a task on a worker may. Here the only worker waits for the spare's
 * task, so nothing else runs tasks on that CPU: a fork/join computation on the spare must help with
 * its own forks (a spare has no deque, so they wait in the group's inboxes), and a task on the spare
 * that waits for another group's task must bring in another spare, as a worker's wait does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpareJoinTest {

    @Test
    void aTaskOnASpareThatWaitsForAnotherGroupCompletes() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup front = pool.group("front", 100);
            TaskGroup back = pool.group("back", 100);
            Future<Integer> outer = pool.submit(() -> front.submit(() -> back.submit(() -> 42).get()).get());
            try {
                assertEquals(42, outer.get(15, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("deadlock: the spare waits for another group's task while the only worker"
                        + " waits for the spare (spares: " + pool.engine().spareThreads() + ")\n"
                        + dev.rota.contract.Liveness.threadDump(), e);
            }
        } finally {
            pool.shutdownNow();                          // the deadlocked threads are daemons
        }
    }

    @Test
    void aForkJoinTaskRunOnASpareCompletes() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup compute = pool.group("compute", 100);
            Future<Long> outer = pool.submit(() -> {
                // A task of the default group waits for a fork/join computation of another group.
                RotaTask<Long> fib = compute.submit(new RotaTaskTest.Fib(16));
                return fib.join();
            });
            try {
                assertEquals(RotaTaskTest.Fib.slow(16), outer.get(15, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("deadlock: the spare running the fork/join task waits for its own fork"
                        + " while the only worker waits for the spare (spares: " + pool.engine().spareThreads()
                        + ")\n" + dev.rota.contract.Liveness.threadDump(), e);
            }
        } finally {
            pool.shutdownNow();                          // the deadlocked threads are daemons
        }
    }
}
