package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import dev.rota.contract.Spares.Leaf;
import dev.rota.contract.Spares;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Interrupts and the waits of {@link RotaTask#get()} and {@link RotaTask#join()} on pool threads,
 * which run other tasks while they wait: an interrupt that arrives while a helped task runs still
 * ends a {@code get()} (a group's {@code shutdownNow()} here), a {@code get()} across groups ends at
 * the pool's {@code shutdownNow()} even when a helped task had the interrupt first, and a
 * {@code join()} returns with the caller's pending interrupt still set, on workers and spares; a
 * {@code cancel(true)} of a helped task, or of a future it wraps (an ExecutorCompletionService's),
 * stays with that task and does not end the waiter's {@code get()}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RotaTaskInterruptTest {

    /** Runs until interrupted (the group's or the pool's shutdownNow), as a cooperative task does. */
    static final class UntilInterrupted extends RotaTask<Void> {
        final CountDownLatch started = new CountDownLatch(1);
        volatile String thread;

        @Override
        protected Void compute() {
            thread = Thread.currentThread().getName();
            started.countDown();
            while (!Thread.currentThread().isInterrupted()) {
                Thread.onSpinWait();
            }
            return null;
        }
    }

    /**
     * cancel(true) of a submitted task while it waits in a join, running a helped task: the interrupt
     * is the waiter's, not the helped task's, which runs on uninterrupted; the waiter finds its
     * interrupt status set when its join returns, as a ThreadPoolExecutor's task finds it after its
     * cancel(true).
     */
    @Test
    void aCancelWithInterruptOfATaskThatHelpsInAJoinReachesThatTask() throws Exception {
        RotaPool pool = RotaPool.builder().workers(2).pinning(false).build();
        try {
            CountDownLatch stolenStarted = new CountDownLatch(1);
            CountDownLatch stolenRelease = new CountDownLatch(1);
            CountDownLatch helpedStarted = new CountDownLatch(1);
            CountDownLatch helpedRelease = new CountDownLatch(1);
            CountDownLatch waiterDone = new CountDownLatch(1);
            AtomicBoolean waiterSawInterrupt = new AtomicBoolean();
            AtomicBoolean helpedSawInterrupt = new AtomicBoolean();
            AtomicReference<String> stolenOn = new AtomicReference<>();
            AtomicReference<String> waiterOn = new AtomicReference<>();
            Future<?> waiter = pool.submit(() -> {
                waiterOn.set(Thread.currentThread().getName());
                RotaTask<Void> stolen = new RotaTask<>() {     // the other worker takes it: the join helps
                    @Override
                    protected Void compute() {
                        stolenOn.set(Thread.currentThread().getName());
                        stolenStarted.countDown();
                        spinUntil(stolenRelease);
                        return null;
                    }
                };
                stolen.fork();
                Liveness.await(stolenStarted, "the fork the other worker steals");
                RotaTask<Void> helped = new RotaTask<>() {     // newest on this worker: the join runs it
                    @Override
                    protected Void compute() {
                        helpedStarted.countDown();
                        spinUntil(helpedRelease);
                        helpedSawInterrupt.set(Thread.currentThread().isInterrupted());
                        return null;
                    }
                };
                helped.fork();
                stolen.join();
                waiterSawInterrupt.set(Thread.currentThread().isInterrupted());
                waiterDone.countDown();
                return null;
            });
            Liveness.await(helpedStarted, "the task the join helps with");
            assertTrue(waiter.cancel(true));
            helpedRelease.countDown();
            stolenRelease.countDown();
            Liveness.await(waiterDone, "the waiter's join");
            assertFalse(stolenOn.get().equals(waiterOn.get()), "the fork was not stolen: the join did not help");
            assertTrue(waiterSawInterrupt.get(), "cancel(true) of the waiting task did not reach it");
            assertFalse(helpedSawInterrupt.get(), "cancel(true) of the waiting task interrupted the helped task");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * As the test above, for the futures the pool makes besides submit's: a delayed task's, and the
     * one an ExecutorCompletionService over the pool makes through newTaskFor and runs inside its own
     * wrapper (as invokeAny does).
     */
    @ParameterizedTest
    @ValueSource(strings = {"submit", "schedule", "completionService"})
    void aCancelWithInterruptOfAPoolsFutureReachesItsTaskAfterAHelpedJoin(String how) throws Exception {
        boolean seen = interruptSeenAfterHelpedJoin(how, future -> assertTrue(future.cancel(true)));

        assertTrue(seen, how + ": the cancel(true) of the waiting task's future did not reach it");
    }

    /** A cancel(true) that fails, the future being cancelled already, interrupts nothing, as FutureTask's. */
    @ParameterizedTest
    @ValueSource(strings = {"submit", "schedule"})
    void aCancelWithInterruptThatFailsInterruptsNothingAfterAHelpedJoin(String how) throws Exception {
        boolean seen = interruptSeenAfterHelpedJoin(how, future -> {
            assertTrue(future.cancel(false));
            assertFalse(future.cancel(true));
        });

        assertFalse(seen, how + ": interrupted by a cancel(true) that returned false");
    }

    /**
     * Runs a waiter on a pool of one worker, submitted {@code how}, that joins a task queued behind
     * it, which its join runs; {@code cancel} acts on the waiter's future while that task runs.
     * Returns whether the waiter found its interrupt status set once its join returned.
     */
    private static boolean interruptSeenAfterHelpedJoin(String how, Consumer<Future<Void>> cancel) throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        try {
            CountDownLatch waiterStarted = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            CountDownLatch helpedStarted = new CountDownLatch(1);
            CountDownLatch helpedRelease = new CountDownLatch(1);
            CompletableFuture<Boolean> interruptSeen = new CompletableFuture<>();
            RotaTask<Void> helped = new RotaTask<>() {
                @Override
                protected Void compute() {
                    helpedStarted.countDown();
                    spinUntil(helpedRelease);
                    return null;
                }
            };
            Callable<Void> waiter = () -> {
                waiterStarted.countDown();
                Liveness.awaitUninterruptibly(go);
                helped.join();                           // queued behind this task: the join runs it
                interruptSeen.complete(Thread.currentThread().isInterrupted());
                return null;
            };
            Future<Void> future = switch (how) {
                case "submit" -> pool.submit(waiter);
                case "schedule" -> pool.schedule(waiter, 0, TimeUnit.MILLISECONDS);
                case "completionService" -> new ExecutorCompletionService<Void>(pool).submit(waiter);
                default -> throw new IllegalArgumentException("how: " + how);
            };
            Liveness.await(waiterStarted, "the waiter");
            pool.execute(helped);
            go.countDown();
            Liveness.await(helpedStarted, "the task the join runs");
            cancel.accept(future);
            helpedRelease.countDown();
            return interruptSeen.get(Liveness.SECONDS, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Spins (deaf to interrupts) until {@code latch} opens. */
    private static void spinUntil(CountDownLatch latch) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        while (latch.getCount() > 0 && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    /** get() on a worker: the group's shutdownNow() interrupts it while it runs a helped task. */
    @Test
    void getOnAWorkerEndsAtItsGroupsShutdownNowThatLandsWhileItHelps() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup g = pool.group("g", 100);
            checkGetSeesGroupShutdownNow(pool, g, "-spare-", false);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Same on a spare. */
    @Test
    void getOnASpareEndsAtItsGroupsShutdownNowThatLandsWhileItHelps() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            TaskGroup g = pool.group("g", 100);
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            checkGetSeesGroupShutdownNow(pool, g, "-spare-", true);
        } finally {
            releaseWorker.countDown();
            pool.shutdownNow();
        }
    }

    private static void checkGetSeesGroupShutdownNow(RotaPool pool, TaskGroup g, String spareMark, boolean onSpare)
            throws Exception {
        Leaf never = new Leaf();
        UntilInterrupted helped = new UntilInterrupted();
        AtomicReference<String> outcome = new AtomicReference<>("still waiting");
        AtomicReference<String> outerThread = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        g.execute(() -> {
            outerThread.set(Thread.currentThread().getName());
            try {
                helped.fork();                           // the get's help takes it: nothing else is queued
                Integer v = never.get();
                outcome.set("returned " + v);
            } catch (InterruptedException e) {
                outcome.set("interrupted");
            } catch (Exception e) {
                outcome.set(e.toString());
            } finally {
                done.countDown();
            }
        });
        Liveness.await(helped.started, "the helped task never started");
        assertEquals(outerThread.get(), helped.thread, "set-up: the task was not helped by the getter's thread");
        assertEquals(onSpare, outerThread.get().contains(spareMark), "set-up: on a spare? " + outerThread.get());
        g.shutdownNow();                                 // interrupts the thread running g's task: the getter
        if (!done.await(Liveness.SECONDS, TimeUnit.SECONDS)) {
            never.run();                                 // unblock the get so that the test ends
            Liveness.await(done, "the get never ended");
        }
        assertEquals("interrupted", outcome.get(),
                "get() on " + outerThread.get() + " did not answer its group's shutdownNow: the interrupt landed"
                        + " while it helped");
    }

    /**
     * A get() across groups on a spare after the pool's shutdownNow(), whose interrupt an earlier
     * join's help may have had first: the pool's stop ends the wait as an interrupt would, rather
     * than the wait lasting as long as the other group's task runs.
     */
    @Test
    void aCrossGroupGetOnASpareEndsAtShutdownNowEvenIfHelpConsumedTheInterrupt() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseRemote = new CountDownLatch(1);
        try {
            TaskGroup a = pool.group("a", 100);
            TaskGroup b = pool.group("b", 100);
            CountDownLatch remoteBlocked = new CountDownLatch(1);
            RotaTask<Integer> remote = b.submit(new RotaTask<Integer>() {
                @Override
                protected Integer compute() {            // ignores interrupts, as tasks may; runs on the worker
                    remoteBlocked.countDown();
                    while (true) {
                        try {
                            RotaPool.managedBlock(new LatchBlocker(releaseRemote));
                            return 5;
                        } catch (InterruptedException ignored) {
                            // keep running after shutdownNow
                        }
                    }
                }
            });
            Liveness.await(remoteBlocked, "the remote task never started");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (pool.engine().spareThreads() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            UntilInterrupted helped = new UntilInterrupted();
            AtomicReference<String> outcome = new AtomicReference<>("still waiting");
            AtomicReference<String> outerThread = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            a.execute(() -> {
                outerThread.set(Thread.currentThread().getName());
                try {
                    helped.fork();
                    helped.join();                       // helped inside the join, on this spare
                    outcome.set("after join, interrupted=" + Thread.currentThread().isInterrupted());
                    Integer v = remote.get();            // another group of the same pool: awaitLending
                    outcome.set("returned " + v);
                } catch (InterruptedException e) {
                    outcome.set("interrupted");
                } catch (Exception e) {
                    outcome.set(e.toString());
                } finally {
                    done.countDown();
                }
            });
            Liveness.await(helped.started, "the helped task never started");
            assertTrue(outerThread.get().contains("-spare-"), "set-up: not on a spare: " + outerThread.get());
            assertEquals(outerThread.get(), helped.thread, "set-up: not helped by the joiner's thread");
            pool.shutdownNow();
            if (!done.await(Liveness.SECONDS, TimeUnit.SECONDS)) {
                String stuck = outcome.get();
                releaseRemote.countDown();
                Liveness.await(done, "the get never ended");
                throw new AssertionError("get() across groups on a spare kept waiting after shutdownNow"
                        + " (state then: " + stuck + "; finally: " + outcome.get() + ")");
            }
            assertEquals("interrupted", outcome.get());
        } finally {
            releaseRemote.countDown();
            pool.shutdownNow();
        }
    }

    /** join() on a spare with the interrupt flag set: returns with it still set. */
    @Test
    void joinOnASpareKeepsAPendingInterrupt() throws Exception {
        checkJoinKeepsPendingInterrupt(true);
    }

    /** Same on a worker. */
    @Test
    void joinOnAWorkerKeepsAPendingInterrupt() throws Exception {
        checkJoinKeepsPendingInterrupt(false);
    }

    private static void checkJoinKeepsPendingInterrupt(boolean onSpare) throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            TaskGroup a = pool.group("a", 100);
            if (onSpare) {
                Spares.blockTheOnlyWorker(pool, releaseWorker);
            }
            AtomicBoolean helpedSawInterrupt = new AtomicBoolean();
            AtomicReference<String> outerThread = new AtomicReference<>();
            AtomicBoolean interruptedAfterJoin = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(1);
            a.execute(() -> {
                outerThread.set(Thread.currentThread().getName());
                try {
                    Leaf first = new Leaf();
                    RotaTask<Integer> helped = new RotaTask<>() {
                        @Override
                        protected Integer compute() {
                            helpedSawInterrupt.set(Thread.currentThread().isInterrupted());
                            return 2;
                        }
                    };
                    first.fork();
                    helped.fork();                       // newest: a worker's help pops it; a spare's takes first
                    Thread.currentThread().interrupt();
                    first.join();
                    interruptedAfterJoin.set(Thread.currentThread().isInterrupted());
                } finally {
                    Thread.interrupted();
                    done.countDown();
                }
            });
            Liveness.await(done, "the joining task never finished");
            assertEquals(onSpare, outerThread.get().contains("-spare-"), "set-up: " + outerThread.get());
            assertTrue(interruptedAfterJoin.get(), "join() on " + outerThread.get() + " lost the caller's interrupt");
            assertFalse(helpedSawInterrupt.get(), "a task the join helped with saw the joiner's interrupt");
        } finally {
            releaseWorker.countDown();
            pool.shutdownNow();
        }
    }

    /** A cancel(true) of a task that a waiting get() helps with does not reach the waiter. */
    @Test
    void cancelTrueOfAHelpedGroupFutureDoesNotReachTheWaiter() throws Exception {
        checkHelpedTaskCancelStaysThere((g, body) -> g.submit(body));
    }

    /** The same cancel(true), of a future that an ExecutorCompletionService wraps in the task it queues. */
    @Test
    void cancelTrueOfAHelpedCompletionServiceTaskDoesNotReachTheWaiter() throws Exception {
        checkHelpedTaskCancelStaysThere((g, body) -> new ExecutorCompletionService<Integer>(g).submit(body));
    }

    private static void checkHelpedTaskCancelStaysThere(BiFunction<TaskGroup, Callable<Integer>, Future<Integer>> submit) throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup g = pool.group("g", 100);
            Leaf never = new Leaf();                     // completed by the test, so the get() below ends
            CountDownLatch outerStarted = new CountDownLatch(1);
            CountDownLatch queued = new CountDownLatch(1);
            CountDownLatch helpedStarted = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            AtomicReference<String> outerThread = new AtomicReference<>();
            AtomicReference<String> helpedThread = new AtomicReference<>();
            AtomicReference<String> outcome = new AtomicReference<>("still waiting");
            g.execute(() -> {
                outerThread.set(Thread.currentThread().getName());
                outerStarted.countDown();
                try {
                    queued.await();
                    Integer v = never.get();             // helps: runs the queued task below
                    outcome.set("returned " + v);
                } catch (InterruptedException e) {
                    outcome.set("InterruptedException, though nobody interrupted the waiter");
                } catch (Exception e) {
                    outcome.set(e.toString());
                } finally {
                    done.countDown();
                }
            });
            Liveness.await(outerStarted, "outer task never started");
            Future<Integer> helped = submit.apply(g, () -> {
                helpedThread.set(Thread.currentThread().getName());
                helpedStarted.countDown();
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.onSpinWait();
                }
                return 0;
            });
            queued.countDown();
            Liveness.await(helpedStarted, "the helped task never started");
            assertEquals(outerThread.get(), helpedThread.get(), "set-up: the task was not helped by the getter");
            helped.cancel(true);                         // aimed at the helped task only
            Thread.sleep(300);                           // the helped task ends; the get() should go on waiting
            never.run();
            Liveness.await(done, "the get never ended");
            assertEquals("returned 1", outcome.get());
        } finally {
            pool.shutdownNow();
        }
    }
}
