package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import dev.rota.contract.Spares;
import dev.rota.contract.Spares.Leaf;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task run by a spare thread (standing in for a worker blocked in a managed block) may wait for
 * other tasks of the pool as a task on a worker may. Here the only worker waits for the spare's
 * task, so nothing else runs tasks on that CPU: a fork/join computation on the spare must help with
 * its own forks (a spare has no deque, so they wait in the group's inboxes), and a task on the spare
 * that waits for another group's task must bring in another spare, as a worker's wait does. And as
 * on a worker: a {@code cancel(true)} of a task run while helping does not reach the joining task,
 * and a {@code get()} on a spare ends with an interrupt at {@code shutdownNow()}.
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
                        + Liveness.threadDump(), e);
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
                        + ")\n" + Liveness.threadDump(), e);
            }
        } finally {
            pool.shutdownNow();                          // the deadlocked threads are daemons
        }
    }

    @Test
    void aCancelOfAHelpedTaskDoesNotInterruptTheJoiningTaskOnASpare() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            TaskGroup a = pool.group("a", 100);
            Spares.blockTheOnlyWorker(pool, releaseWorker);

            AtomicReference<Future<?>> helped = new AtomicReference<>();
            CountDownLatch helpedStarted = new CountDownLatch(1);
            AtomicBoolean helpedOnSpare = new AtomicBoolean();
            AtomicBoolean interruptedAfterJoin = new AtomicBoolean();
            CountDownLatch outerDone = new CountDownLatch(1);
            a.execute(() -> {
                try {
                    // queued before the fork, so the join's help takes it first
                    helped.set(a.submit(() -> {
                        helpedOnSpare.set(Thread.currentThread().getName().contains("-spare-"));
                        helpedStarted.countDown();
                        while (!Thread.currentThread().isInterrupted()) {
                            Thread.onSpinWait();      // until cancel(true) interrupts it
                        }
                    }));
                    Leaf leaf = new Leaf();
                    leaf.fork();
                    leaf.join();
                    interruptedAfterJoin.set(Thread.currentThread().isInterrupted());
                } finally {
                    outerDone.countDown();
                }
            });
            Liveness.await(helpedStarted, "the helped task never started");
            helped.get().cancel(true);
            Liveness.await(outerDone, "the joining task never finished");
            assertTrue(helpedOnSpare.get(), "set-up: the helped task did not run on the spare");
            assertFalse(interruptedAfterJoin.get(),
                    "the cancel(true) aimed at the helped task left the joining task interrupted");
        } finally {
            releaseWorker.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aGetOnASpareEndsAtShutdownNow() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        RotaPool other = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        CountDownLatch releaseOther = new CountDownLatch(1);
        try {
            other.execute(() -> {                         // other's only worker is busy for a while
                try {
                    releaseOther.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            RotaTask<Integer> remote = other.submit(new RotaTask<Integer>() {
                @Override
                protected Integer compute() {
                    return 7;
                }
            });
            TaskGroup a = pool.group("a", 100);
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            CountDownLatch waiting = new CountDownLatch(1);
            AtomicReference<String> outcome = new AtomicReference<>("still waiting");
            a.execute(() -> {
                outcome.set("on " + Thread.currentThread().getName());
                waiting.countDown();
                try {
                    remote.get();
                    outcome.set("returned");
                } catch (InterruptedException e) {
                    outcome.set("interrupted");
                } catch (Exception e) {
                    outcome.set(e.toString());
                }
            });
            Liveness.await(waiting, "the task never started");
            Thread.sleep(100);                           // most likely in get() by now; either way it must end
            pool.shutdownNow();
            boolean terminated = pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS);
            assertTrue(terminated, "shutdownNow did not end a get() waiting on a spare (" + outcome.get() + ")");
        } finally {
            releaseOther.countDown();
            releaseWorker.countDown();
            pool.shutdownNow();
            other.shutdownNow();
        }
    }
}
