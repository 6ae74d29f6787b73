package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rota.contract.Liveness;
import dev.rota.contract.RunCounter;
import dev.rota.contract.StressRounds;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * No accepted task is lost when a group's {@code shutdownNow()} and the pool's {@code shutdownNow()}
 * race with submitters of several groups and with each other.
 *
 * <p>Each round: one submitter per group {@code execute}s numbered tasks until refused; one stopper
 * calls {@code shutdownNow()} (or {@code shutdown()}) on the first group after a random delay,
 * another calls it on the pool after another. Once the pool terminated, every accepted task must
 * have run in the pool or been returned by exactly one of the two calls, exactly once, and no
 * refused task may have run. Policies alternate between rounds.
 */
class GroupsNothingLostStressTest {
    private static final int ROUNDS = 30;
    private static final int GROUPS = 3;
    private static final int TASKS_PER_GROUP = 1 << 16;
    private static final int MAX_DELAY_MICROS = 20_000;

    @Test
    void groupAndPoolShutdownNowRacingSubmittersLoseNothing() throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (StressRounds rounds = StressRounds.of(ROUNDS); rounds.another(); ) {
            int round = rounds.current();
            runRound("seed " + seed + ", round " + round, round % 2 == 0 ? SharePolicy.STRIDE : SharePolicy.LOTTERY,
                    random.nextInt(MAX_DELAY_MICROS), random.nextInt(MAX_DELAY_MICROS), random.nextInt(4) == 0);
        }
    }

    private void runRound(String round, SharePolicy policy, int groupDelay, int poolDelay, boolean gently)
            throws Exception {
        RotaPool pool = RotaPool.builder().workers(2).policy(policy).build();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        RunCounter counter = new RunCounter(GROUPS * TASKS_PER_GROUP);
        TaskGroup[] groups = new TaskGroup[GROUPS];
        for (int g = 0; g < GROUPS; g++) {
            groups[g] = pool.baseCurrency().newGroup("g" + g, 1 + g);
            groups[g].setQueueCapacity(TASKS_PER_GROUP);
        }
        int[] accepted = new int[GROUPS];
        AtomicReference<List<Runnable>> fromGroup = new AtomicReference<>(List.of());
        AtomicReference<List<Runnable>> fromPool = new AtomicReference<>(List.of());
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int g = 0; g < GROUPS; g++) {
                int group = g;
                threads.add(Thread.ofPlatform().name("submitter-" + g).start(() -> {
                    Liveness.awaitQuietly(start);
                    int first = group * TASKS_PER_GROUP;
                    int n = 0;
                    try {
                        for (; n < TASKS_PER_GROUP; n++) {
                            groups[group].execute(counter.task(first + n));
                        }
                    } catch (RejectedExecutionException expected) {
                        // refused: this task must never run
                    } catch (RuntimeException unexpected) {
                        failures.add(unexpected);
                    }
                    accepted[group] = n;                 // published by join()
                }));
            }
            threads.add(Thread.ofPlatform().name("group-stopper").start(() -> {
                Liveness.awaitQuietly(start);
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(groupDelay));
                if (gently) {
                    groups[0].shutdown();
                } else {
                    fromGroup.set(groups[0].shutdownNow());
                }
            }));
            threads.add(Thread.ofPlatform().name("pool-stopper").start(() -> {
                Liveness.awaitQuietly(start);
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(poolDelay));
                if (gently) {
                    pool.shutdown();
                } else {
                    fromPool.set(pool.shutdownNow());
                }
            }));
            start.countDown();
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
                assertFalse(thread.isAlive(), round + ": " + thread.getName() + " did not finish");
            }
            if (!pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS)) {
                fail(round + ": no termination of " + pool + "; threads:\n" + Liveness.threadDump());
            }
            for (TaskGroup group : groups) {
                assertTrue(group.isTerminated(), round + ": " + group + " not terminated with its pool");
            }
        } finally {
            start.countDown();
            if (!pool.isTerminated()) {
                pool.shutdownNow();
            }
        }

        long ranInPool = counter.total();
        Map<Runnable, Boolean> returned = new IdentityHashMap<>();
        for (List<Runnable> list : List.of(fromGroup.get(), fromPool.get())) {
            for (Runnable task : list) {
                assertTrue(returned.put(task, true) == null, round + ": returned twice: " + task);
            }
        }
        long acceptedCount = 0;
        for (int n : accepted) {
            acceptedCount += n;
        }
        String counts = round + " (" + policy + (gently ? ", shutdown" : ", shutdownNow") + ", group after "
                + groupDelay + " µs, pool after " + poolDelay + " µs): accepted " + acceptedCount + ", ran " + ranInPool
                + ", returned " + fromGroup.get().size() + " + " + fromPool.get().size();
        assertTrue(failures.isEmpty(), "execute threw other than RejectedExecutionException: " + failures + "; " + counts);
        assertEquals(acceptedCount, ranInPool + returned.size(), counts);
        for (Runnable task : returned.keySet()) {
            task.run();
        }
        for (int g = 0; g < GROUPS; g++) {
            int first = g * TASKS_PER_GROUP;
            for (int id = first; id < first + TASKS_PER_GROUP; id++) {
                int expected = id < first + accepted[g] ? 1 : 0;
                assertEquals(expected, counter.runs(id), "task #" + id + " of group " + g + "; " + counts);
            }
        }
    }
}
