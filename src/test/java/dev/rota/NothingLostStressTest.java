package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rota.contract.CancellableCountedTask;
import dev.rota.contract.ContractTest;
import dev.rota.contract.ExecutorFactory;
import dev.rota.contract.ExecutorFactory.QueuedTaskFate;
import dev.rota.contract.LateCancellations;
import dev.rota.contract.Liveness;
import dev.rota.contract.RunCounter;
import dev.rota.contract.StressRounds;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * No accepted task is lost when {@code shutdownNow()} (or {@code shutdown()}) races with submissions.
 *
 * <p>Each round: {@value #SUBMITTERS} threads {@code execute} tiny numbered tasks as fast as they
 * can, each until its first RejectedExecutionException (or {@value #TASKS_PER_SUBMITTER} tasks);
 * another thread calls {@code shutdownNow()} after a random delay of up to
 * {@value #MAX_DELAY_MICROS} µs. Once the pool terminated, every accepted task must be accounted
 * for exactly once:
 * <pre>
 *   accepted == ran in the pool + returned by shutdownNow + cancelled in place
 * </pre>
 * where only ForkJoinPool cancels in place (it returns an empty list; see
 * {@link QueuedTaskFate}, and {@link LateCancellations} for the cancellations it may still owe
 * when it reports termination), a rejected task never runs, and nothing runs in the pool after
 * {@code awaitTermination} said it terminated: the test then runs the returned tasks itself and
 * every accepted, uncancelled task must have run exactly once, in the pool or by the test. A task
 * the pool ran and also returned would show up as run twice.
 *
 * <p>A second test runs the same race with {@code shutdown()}, which returns nothing and may cancel
 * nothing: there every accepted task must run.
 *
 * <p>RotaPool is the pool under test; ThreadPoolExecutor and ForkJoinPool run as controls, which
 * shows the test itself is sound. Rounds are bounded so the whole class stays well under a minute
 * on two cores while still pushing a few million tasks through each pool; a soak
 * ({@link StressRounds}) runs Rota's cases for longer and keeps the controls at their fixed rounds.
 */
class NothingLostStressTest {

    private static final int ROUNDS = 50;
    private static final int SUBMITTERS = 3;
    /** Caps one round's memory (an int per task) if shutdownNow comes late; most rounds stop earlier. */
    private static final int TASKS_PER_SUBMITTER = 1 << 17;
    private static final int MAX_DELAY_MICROS = 20_000;

    /** How the stopper thread ends the pool, returning the never-started tasks it hands back. */
    private enum Stop {
        SHUTDOWN_NOW {
            @Override
            List<Runnable> stop(ExecutorService pool) {
                return pool.shutdownNow();
            }
        },
        SHUTDOWN {
            @Override
            List<Runnable> stop(ExecutorService pool) {
                pool.shutdown();
                return List.of();
            }
        };

        abstract List<Runnable> stop(ExecutorService pool);
    }

    @ContractTest
    void shutdownNowRacingSubmittersLosesNothing(ExecutorFactory factory) throws Exception {
        runRounds(factory, Stop.SHUTDOWN_NOW, ROUNDS);
    }

    /** The same race with shutdown(): here every accepted task must run, none may be cancelled. */
    @ContractTest
    void shutdownRacingSubmittersRunsEveryAcceptedTask(ExecutorFactory factory) throws Exception {
        runRounds(factory, Stop.SHUTDOWN, ROUNDS / 2);
    }

    private void runRounds(ExecutorFactory factory, Stop stop, int rounds) throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (StressRounds soak = StressRounds.of(rounds, factory.underTest()); soak.another(); ) {
            runRound(factory, stop, "seed " + seed + ", round " + soak.current(), random.nextInt(MAX_DELAY_MICROS + 1));
        }
    }

    private void runRound(ExecutorFactory factory, Stop stop, String round, int delayMicros) throws Exception {
        Queue<Throwable> uncaught = new ConcurrentLinkedQueue<>();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ExecutorService pool = factory.create((thread, error) -> uncaught.add(error));
        RunCounter counter = new RunCounter(SUBMITTERS * TASKS_PER_SUBMITTER);
        AtomicIntegerArray cancelled = new AtomicIntegerArray(counter.tasks());
        boolean forkJoinTasks = factory.queuedTaskFate() == QueuedTaskFate.CANCELLED;
        int[] accepted = new int[SUBMITTERS];
        AtomicReference<List<Runnable>> returned = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int s = 0; s < SUBMITTERS; s++) {
                int submitter = s;
                threads.add(Thread.ofPlatform().name("submitter-" + s).start(() -> {
                    Liveness.awaitQuietly(start);
                    int first = submitter * TASKS_PER_SUBMITTER;
                    int n = 0;
                    try {
                        for (; n < TASKS_PER_SUBMITTER; n++) {
                            int id = first + n;
                            pool.execute(forkJoinTasks
                                    ? new CancellableCountedTask(counter, id, cancelled)
                                    : counter.task(id));
                        }
                    } catch (RejectedExecutionException expected) {
                        // Not accepted: the task with this id must never run.
                    } catch (RuntimeException unexpected) {
                        failures.add(unexpected);
                    }
                    accepted[submitter] = n; // published to the test thread by join()
                }));
            }
            threads.add(Thread.ofPlatform().name("stopper").start(() -> {
                Liveness.awaitQuietly(start);
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(delayMicros));
                returned.set(stop.stop(pool));
            }));
            start.countDown();
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
                assertFalse(thread.isAlive(), round + ": " + thread.getName() + " did not finish");
            }
            if (!pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS)) {
                fail(round + ": no termination after " + stop + " of " + pool + "; threads:\n" + Liveness.threadDump());
            }
        } finally {
            start.countDown();
            if (!pool.isTerminated()) { // a repeated shutdownNow() has its own contract test
                Liveness.within("shutdownNow() in cleanup, " + round, pool::shutdownNow);
            }
        }

        long ranInPool = counter.total();
        List<Runnable> returnedTasks = returned.get();
        long acceptedCount = 0;
        for (int n : accepted) {
            acceptedCount += n;
        }
        if (forkJoinTasks) {
            long acceptedTasks = acceptedCount;
            LateCancellations.settle(pool, () -> acceptedTasks - ranInPool - count(cancelled));
            assertEquals(ranInPool, counter.total(), round + ": tasks ran after termination");
        }
        int cancelledCount = count(cancelled);
        String counts = round + " (" + factory + ", " + stop + " after " + delayMicros + " µs): accepted "
                + acceptedCount + ", ran " + ranInPool + ", returned " + returnedTasks.size()
                + ", cancelled " + cancelledCount
                + ", unaccounted " + (acceptedCount - ranInPool - returnedTasks.size() - cancelledCount);

        assertTrue(failures.isEmpty(), "execute threw other than RejectedExecutionException: " + failures
                + "; " + counts);
        assertEquals(acceptedCount, ranInPool + returnedTasks.size() + cancelledCount, counts);
        if (stop == Stop.SHUTDOWN) {
            assertEquals(acceptedCount, ranInPool, "shutdown() must run every accepted task; " + counts);
        }
        for (Runnable task : returnedTasks) {
            task.run();
        }
        assertEquals(ranInPool + returnedTasks.size(), counter.total(),
                "tasks ran in the pool after it terminated, or a returned task did not run its task; " + counts);
        assertEachAcceptedTaskRanOnce(counter, cancelled, accepted, counts);
        assertTrue(uncaught.isEmpty(), "uncaught exceptions " + uncaught + "; " + counts);
    }

    /**
     * Accepted ids are the first {@code accepted[s]} of each submitter's range: each ran exactly once
     * unless cancelled (then never). Ids past them were rejected or never offered: never ran.
     */
    private static void assertEachAcceptedTaskRanOnce(RunCounter counter, AtomicIntegerArray cancelled,
                                                      int[] accepted, String counts) {
        for (int s = 0; s < SUBMITTERS; s++) {
            int first = s * TASKS_PER_SUBMITTER;
            for (int id = first; id < first + TASKS_PER_SUBMITTER; id++) {
                boolean wasAccepted = id < first + accepted[s];
                int expected = wasAccepted && cancelled.get(id) == 0 ? 1 : 0;
                if (counter.runs(id) != expected) {
                    fail("task #" + id + " (submitter " + s + ", " + (wasAccepted ? "accepted" : "rejected")
                            + (cancelled.get(id) != 0 ? ", cancelled" : "") + ") ran " + counter.runs(id)
                            + " times; " + counts);
                }
            }
        }
    }

    private static int count(AtomicIntegerArray flags) {
        int n = 0;
        for (int i = 0; i < flags.length(); i++) {
            n += flags.get(i);
        }
        return n;
    }
}
