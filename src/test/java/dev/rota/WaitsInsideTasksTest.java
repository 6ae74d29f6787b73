package dev.rota;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import dev.rota.contract.Spares.Leaf;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task that waits for the pool's own work in any of the ExecutorService ways (invokeAny, a delayed
 * task's future) must not hold its worker against that work: on a pool of one worker, the wait is
 * a managed block and a spare runs what it waits for, as ForkJoinPool's compensation does. And a
 * timed get with no time left only looks, however negative the timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WaitsInsideTasksTest {

    private static RotaPool onePool() {
        return RotaPool.builder().workers(1).pinning(false).build();
    }

    @Test
    void invokeAnyFromInsideATaskOfAOneWorkerPoolCompletes() throws Exception {
        try (RotaPool pool = onePool()) {
            List<Callable<Integer>> tasks = List.of(() -> 1, () -> 1);
            assertEquals(1, pool.submit(() -> pool.invokeAny(tasks)).get(Liveness.SECONDS, SECONDS));
            assertEquals(1, pool.submit(() -> pool.invokeAny(tasks, Liveness.SECONDS, SECONDS))
                    .get(Liveness.SECONDS, SECONDS));
            TaskGroup group = pool.group("g", 100);
            assertEquals(1, pool.submit(() -> group.invokeAny(tasks)).get(Liveness.SECONDS, SECONDS));
            assertEquals(1, group.submit(() -> group.invokeAny(tasks, Liveness.SECONDS, SECONDS))
                    .get(Liveness.SECONDS, SECONDS));
        }
    }

    @Test
    void invokeAnyStillReportsFailuresAndBadInput() throws Exception {
        try (RotaPool pool = onePool()) {
            List<Callable<Integer>> failing = List.of(() -> {
                throw new IllegalStateException("nope");
            });
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> pool.submit(() -> pool.invokeAny(failing)).get(Liveness.SECONDS, SECONDS));
            assertEquals(ExecutionException.class, e.getCause().getClass(), "invokeAny's own ExecutionException");
            assertThrows(IllegalArgumentException.class, () -> pool.invokeAny(List.<Callable<Integer>>of()));
            CountDownLatch never = new CountDownLatch(1);
            List<Callable<Integer>> stuck = List.of(() -> {
                never.await();
                return 1;
            });
            assertThrows(TimeoutException.class, () -> pool.invokeAny(stuck, 10, MILLISECONDS));
            never.countDown();
        }
    }

    @Test
    void aDelayedTasksFutureAwaitedInsideATaskOfAOneWorkerPoolCompletes() throws Exception {
        try (RotaPool pool = onePool()) {
            assertEquals(42, pool.submit(() -> pool.schedule(() -> 42, 10, MILLISECONDS).get())
                    .get(Liveness.SECONDS, SECONDS));
            assertEquals(42, pool.submit(() -> pool.schedule(() -> 42, 10, MILLISECONDS).get(Liveness.SECONDS, SECONDS))
                    .get(Liveness.SECONDS, SECONDS));
        }
    }

    /**
     * A group is an ExecutorService, so a task may make one and close it with try-with-resources, or
     * shut it down and await its termination: that wait is for the pool's own work too. On a pool of
     * one worker the group's tasks can only run while a spare stands in for the waiting worker.
     */
    @Test
    void aGroupClosedOrAwaitedInsideATaskOfAnotherGroupOfAOneWorkerPoolTerminates() throws Exception {
        RotaPool pool = onePool();
        try {
            TaskGroup control = pool.group("control", 100);
            LongAdder ran = new LongAdder();
            Future<Boolean> awaited = control.submit(() -> {
                TaskGroup batch = pool.group("awaited", 100);
                for (int i = 0; i < 3; i++) {
                    batch.execute(ran::increment);
                }
                batch.shutdown();
                return batch.awaitTermination(Liveness.SECONDS, SECONDS);
            });
            assertTrue(awaited.get(Liveness.SECONDS, SECONDS), "the awaited group terminated");
            Future<Boolean> closed = control.submit(() -> {
                TaskGroup batch = pool.group("closed", 100);
                try (batch) {
                    for (int i = 0; i < 3; i++) {
                        batch.execute(ran::increment);
                    }
                }
                return batch.isTerminated();
            });
            assertTrue(closed.get(Liveness.SECONDS, SECONDS), "close() returned once the group terminated");
            assertEquals(6, ran.sum());
        } finally {
            pool.shutdownNow();                          // a close() left waiting is interrupted, and ends
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * A RotaTask given to {@code submit(task, result)} runs inside the future that call returns, and
     * one given to {@code schedule} inside the delayed task's: it still belongs to the group that
     * runs it. A join of it from a task of another group is a managed block, as a join of a task
     * submitted as itself is; on a pool of one worker only a spare can run it meanwhile.
     */
    @Test
    void aJoinOfAWrappedRotaTaskFromAnotherGroupOfAOneWorkerPoolCompletes() throws Exception {
        RotaPool pool = onePool();
        try {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            for (ExecutorService target : List.of(pool, server, server.submitOnly())) {
                Future<Integer> joined = client.submit(() -> {
                    RotaTask<Integer> task = new Leaf();
                    target.submit(task, "its own result");
                    return task.join();
                });
                assertEquals(1, joinedWithin(joined, "a task submitted with a result to " + target));
            }
            Future<Integer> joined = client.submit(() -> {
                RotaTask<Integer> task = new Leaf();
                pool.schedule(task, 10, MILLISECONDS);
                return task.join();
            });
            assertEquals(1, joinedWithin(joined, "a task scheduled on " + pool));
        } finally {
            pool.shutdownNow();                          // a join left waiting holds the only worker for ever
        }
    }

    /** The outcome of a join that only a spare can let complete, or a failure that says where each thread is. */
    private static <T> T joinedWithin(Future<T> joined, String what) throws Exception {
        try {
            return joined.get(Liveness.SECONDS, SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the join of " + what + " holds the only worker, so the task never runs\n"
                    + Liveness.threadDump(), e);
        }
    }

    /**
     * A join of a RotaTask submitted with a result lends the joiner's tickets to the group that runs
     * it, as a join of a task submitted as itself does. No spare, and the joined task's group kept
     * off the joiner's CPU, with its own worker held: the joiner may not run the task itself, so it
     * stays queued and the join waits.
     */
    @Test
    void aJoinOfARotaTaskSubmittedWithAResultLendsTheJoinersTickets() throws Exception {
        int[] cpus = TwoCpus.ids();
        int joinerCpu = cpus[0];
        int otherCpu = cpus[1];
        RotaPool pool = RotaPool.builder().cpus(joinerCpu, otherCpu).pinning(false).maxSpareThreads(0).build();
        AtomicReference<RotaTask<Integer>> joined = new AtomicReference<>();
        CountDownLatch releaseOtherWorker = new CountDownLatch(1);
        try {
            TaskGroup g = pool.group("g", 100);
            TaskGroup other = pool.group("other", 100);
            g.restrictToCpus(joinerCpu);
            other.restrictToCpus(otherCpu);
            CountDownLatch otherWorkerHeld = new CountDownLatch(1);
            other.execute(() -> {
                otherWorkerHeld.countDown();
                Liveness.awaitUninterruptibly(releaseOtherWorker); // holds other's only worker, not a managed block
            });
            Liveness.await(otherWorkerHeld, "other's worker held");
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            g.submit(() -> {
                RotaTask<Integer> task = new Leaf();
                other.submit(task, "its own result");   // queued behind the held worker
                joined.set(task);
                waiterThread.set(Thread.currentThread());
                return task.join();
            });
            // Kept off by the mask, the wait looks at it again every millisecond: a timed wait.
            awaitState(waiterThread, Thread.State.TIMED_WAITING, "the task waits for the one it submitted");
            g.execute(() -> { });                        // g has other work: the loan splits its value
            assertEquals(50, g.value(), 1e-9, "g's value, lent in half to other");
            assertEquals(150, other.value(), 1e-9, "other's value, with g's loan");
        } finally {
            releaseOtherWorker.countDown();              // other's worker runs the joined task, and the join returns
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * A join of a RotaTask given to {@code schedule} waits for a delayed task, and lends nothing, as
     * a {@code get()} of the delayed task's future does: until it is due nothing runs for the joiner.
     * The join is a managed block all the same (WAITING here, with no spare to stand in).
     */
    @Test
    void aJoinOfAScheduledRotaTaskKeepsTheJoinersValue() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).maxSpareThreads(0).build();
        AtomicReference<RotaTask<Integer>> joined = new AtomicReference<>();
        try {
            TaskGroup g = pool.group("g", 100);
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            g.submit(() -> {
                RotaTask<Integer> task = new Leaf();
                pool.schedule(task, 1, TimeUnit.HOURS);
                joined.set(task);
                waiterThread.set(Thread.currentThread());
                return task.join();
            });
            awaitState(waiterThread, Thread.State.WAITING, "the task waits for the one it scheduled");
            g.execute(() -> { });                        // g has other work: a loan would now split its value
            pool.execute(() -> { });                     // and the default group has work: a loan would be active
            assertEquals(100, g.value(), 1e-9);
        } finally {
            if (joined.get() != null) {
                joined.get().cancel(false);              // the join returns, and frees the only worker
            }
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /** FutureTask.get(Long.MIN_VALUE, ns) throws TimeoutException at once; a deadline now + timeout would overflow. */
    @Test
    void aTimedGetWithAHugeNegativeTimeoutOnlyLooks() throws Exception {
        RotaPool pool = onePool();
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<?> blocked = pool.submit(() -> {
                release.await();
                return null;
            });
            Future<?> delayed = pool.schedule(() -> 1, 1, TimeUnit.HOURS);
            RotaTask<Integer> never = new RotaTask<>() {
                @Override
                protected Integer compute() {
                    return 0;
                }
            };
            for (Future<?> future : List.of(blocked, delayed, never)) {
                Future<Class<?>> outcome = caller.submit(() -> thrownBy(() -> future.get(Long.MIN_VALUE, TimeUnit.NANOSECONDS)));
                assertEquals(TimeoutException.class, outcome.get(Liveness.SECONDS, SECONDS), future.toString());
                Future<Class<?>> days = caller.submit(() -> thrownBy(() -> future.get(-200_000, TimeUnit.DAYS)));
                assertEquals(TimeoutException.class, days.get(Liveness.SECONDS, SECONDS), future.toString());
            }
        } finally {
            caller.shutdownNow();
            release.countDown();
            pool.shutdownNow();
        }
    }

    /** A timed get with no time left on an interrupted thread reports the interrupt, as FutureTask's does. */
    @Test
    void aTimedGetWithNoTimeLeftOnAnInterruptedThreadIsInterrupted() throws Exception {
        RotaPool pool = onePool();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Future<?> blocked = pool.submit(() -> {
                release.await();
                return null;
            });
            RotaTask<Integer> never = new RotaTask<>() {
                @Override
                protected Integer compute() {
                    return 0;
                }
            };
            for (Future<?> future : List.of(blocked, pool.schedule(() -> 1, 1, TimeUnit.HOURS), never)) {
                Thread.currentThread().interrupt();
                try {
                    assertEquals(InterruptedException.class, thrownBy(() -> future.get(0, TimeUnit.NANOSECONDS)),
                            future.toString());
                } finally {
                    Thread.interrupted();
                }
            }
        } finally {
            release.countDown();
            pool.shutdownNow();                          // the delayed task is an hour away
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * A wait for a delayed task lends nothing: until the task is due nothing runs for the waiter,
     * and a loan would give half its group's value to the default group's other work meanwhile.
     */
    @Test
    void aWaitForADelayedTaskKeepsTheWaitersValue() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).maxSpareThreads(0).build();
        try {
            TaskGroup g = pool.group("g", 100);
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            g.submit(() -> {
                waiterThread.set(Thread.currentThread());
                return pool.schedule(() -> 1, 1, TimeUnit.HOURS).get();
            });
            awaitState(waiterThread, Thread.State.WAITING, "the task waits for its delayed task");
            g.execute(() -> { });                        // g has other work: a loan would now split its value
            pool.execute(() -> { });                     // and the default group has work: a loan would be active
            assertEquals(100, g.value(), 1e-9);
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * A wait for the termination of a group nobody has shut down lends nothing: that group ends only
     * when someone shuts it down, and a loan would give half the waiter's value to its work for as
     * long as the wait lasts (a day, in {@code close()}'s case). Once the group is shut down, its
     * queued tasks are all the wait is for, and the waiter lends.
     */
    @Test
    void aWaitForTheTerminationOfAGroupNotShutDownKeepsTheWaitersValue() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).maxSpareThreads(0).build();
        try {
            TaskGroup g = pool.group("g", 100);
            TaskGroup other = pool.group("other", 100);
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            g.submit(() -> {
                waiterThread.set(Thread.currentThread());
                return other.awaitTermination(1, TimeUnit.HOURS);
            });
            awaitState(waiterThread, Thread.State.TIMED_WAITING, "the task awaits the group");
            g.execute(() -> { });                        // g has other work: a loan would now split its value
            other.execute(() -> { });                    // and other has work (queued behind the waiter): active
            assertEquals(100, g.value(), 1e-9);
            assertEquals(100, other.value(), 1e-9);
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /** The other half: a wait for a group that is shut down is a wait for its tasks, and lends. */
    @Test
    void aWaitForTheTerminationOfAGroupShutDownLendsTheWaitersTickets() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).maxSpareThreads(0).build();
        try {
            TaskGroup g = pool.group("g", 100);
            TaskGroup other = pool.group("other", 100);
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            CountDownLatch shutDown = new CountDownLatch(1);
            g.submit(() -> {
                waiterThread.set(Thread.currentThread());
                shutDown.await();                        // holds the only worker: other's task stays queued
                return other.awaitTermination(1, TimeUnit.HOURS);
            });
            awaitState(waiterThread, Thread.State.WAITING, "the task holds the only worker");
            other.execute(() -> { });
            other.shutdown();
            shutDown.countDown();
            awaitState(waiterThread, Thread.State.TIMED_WAITING, "the task awaits the group");
            g.execute(() -> { });                        // g has other work: the loan splits its value
            assertEquals(50, g.value(), 1e-9);
            assertEquals(150, other.value(), 1e-9);
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /** Waits, within the liveness bound, until the thread set in {@code thread} is in {@code state}. */
    private static void awaitState(AtomicReference<Thread> thread, Thread.State state, String what) {
        long deadline = System.nanoTime() + SECONDS.toNanos(Liveness.SECONDS);
        Thread.State seen = null;
        while ((thread.get() == null || (seen = thread.get().getState()) != state) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(thread.get() != null, what + ": the task never started");
        assertEquals(state, seen, what);                // the state seen: a timed wait is RUNNABLE for a moment as it looks again
    }

    /** isTerminated() true must mean awaitTermination(0) true: both read one fact. */
    @Test
    void isTerminatedImpliesAwaitTerminationTrue() throws Exception {
        int failures = 0;
        int trials = 300;
        for (int i = 0; i < trials; i++) {
            RotaPool pool = onePool();
            TaskGroup group = pool.group("g", 1);
            pool.shutdown();
            while (!group.isTerminated()) {
                Thread.onSpinWait();
            }
            boolean groupAwaited = group.awaitTermination(0, SECONDS);
            while (!pool.isTerminated()) {
                Thread.onSpinWait();
            }
            if (!pool.awaitTermination(0, SECONDS) || !groupAwaited) {
                failures++;
            }
        }
        assertEquals(0, failures, "isTerminated() was true but awaitTermination(0) false in " + failures + "/" + trials);
    }

    interface Call {
        Object call() throws Exception;
    }

    private static Class<?> thrownBy(Call call) {
        try {
            call.call();
            return null;
        } catch (Exception e) {
            return e.getClass();
        }
    }
}
