package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import dev.rota.contract.StressRounds;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Tasks of several groups that wait for one another in every way a task may wait, on a pool whose
 * two workers are soon all blocked, so that spare threads run most of the waiting tasks: every task
 * must complete with the right result, and the pool must terminate.
 *
 * <p>Each round submits tasks round robin to three groups. A task, chosen at random by a seeded
 * generator, does one of: a fork/join computation in its own group ({@code join} helps); a
 * {@code get()} of a task it submits to another group (ticket transfer, a managed block); a managed
 * block on a latch that a task it submits to another group opens; or a plain computation. The tasks
 * it submits to other groups only compute or fork and join, so waits nest at most two deep and the
 * spares needed stay far below the bound. Policies alternate between rounds.
 */
class WaitingTasksStressTest {
    private static final int ROUNDS = 20;
    private static final int TASKS_PER_ROUND = 120;
    private static final int FIB = 15;

    @Test
    void tasksThatWaitForOtherGroupsAllCompleteAndThePoolTerminates() throws Exception {
        StressRounds.alternatingPolicies(ROUNDS, WaitingTasksStressTest::runRound);
    }

    private static void runRound(String round, SharePolicy policy, SplittableRandom random) throws Exception {
        RotaPool pool = RotaPool.builder().workers(2).pinning(false).policy(policy).build();
        try {
            TaskGroup[] groups = {pool.group("a", 300), pool.group("b", 200), pool.group("c", 100)};
            List<Future<Long>> results = new ArrayList<>();
            List<Long> expected = new ArrayList<>();
            for (int i = 0; i < TASKS_PER_ROUND; i++) {
                TaskGroup own = groups[i % groups.length];
                TaskGroup other = groups[(i + 1 + random.nextInt(groups.length - 1)) % groups.length];
                int kind = random.nextInt(4);
                long value = i;
                results.add(own.submit(() -> waitingTask(kind, other, value)));
                expected.add(expectedResult(kind, value));
            }
            for (int i = 0; i < results.size(); i++) {
                try {
                    assertEquals(expected.get(i), results.get(i).get(Liveness.SECONDS, TimeUnit.SECONDS),
                            round + ": task " + i);
                } catch (TimeoutException e) {
                    fail(round + ": task " + i + " did not complete (spares: " + pool.engine().spareThreads()
                            + "); threads:\n" + Liveness.threadDump());
                }
            }
        } finally {
            pool.shutdown();
        }
        Liveness.awaitTermination(pool);
        assertTrue(pool.isTerminated(), round);
    }

    /** What task {@code value} of the given kind does; its result is {@link #expectedResult}. */
    private static long waitingTask(int kind, TaskGroup other, long value) throws Exception {
        switch (kind) {
            case 0 -> {
                return new RotaTaskTest.Fib(FIB).invoke() + value;
            }
            case 1 -> {
                Future<Long> remote = other.submit(() -> new RotaTaskTest.Fib(FIB).invoke());
                return remote.get() + value;
            }
            case 2 -> {
                CountDownLatch opened = new CountDownLatch(1);
                other.execute(opened::countDown);
                RotaPool.managedBlock(new LatchBlocker(opened));
                return value;
            }
            default -> {
                return RotaTaskTest.Fib.slow(FIB) + value;
            }
        }
    }

    private static long expectedResult(int kind, long value) {
        return kind == 2 ? value : RotaTaskTest.Fib.slow(FIB) + value;
    }
}
