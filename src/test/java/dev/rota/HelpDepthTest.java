package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import dev.rota.contract.Spares;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A join that waits helps by running other tasks inside the waiting one, and those tasks may wait
 * in turn. Nothing in the program bounds how deep that nests: a task that forks many subtasks, each
 * of which joins one slow task (a shared, lazily computed value), has each subtask run the next one
 * inside its wait, as deep on the stack as there are subtasks, until a StackOverflowError fails
 * one of them, or strikes the worker between taking a task and running it, and the task is lost.
 * ForkJoinPool helps only with the joined task's own subtasks and otherwise blocks with
 * compensation (a spare thread); the helping depth must be bounded in the same way here.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HelpDepthTest {
    /** Subtasks that wait for the slow task: nested as helpers, far more frames than a stack holds. */
    private static final int WAITERS = 6_000;

    /** The slow task runs on the only worker of {@code pool}: another pool, or this one's other worker. */
    @Test
    void subtasksOnAWorkerThatAllJoinOneSlowTaskAllComplete() throws Exception {
        RotaPool pool = RotaPool.builder().workers(2).pinning(false).build();
        try {
            waitersOfOneSlowTaskAllComplete(pool, pool);
        } finally {
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }

    /** The same on a spare thread, whose join helps with its group's tasks, while the only worker blocks. */
    @Test
    void subtasksOnASpareThatAllJoinOneSlowTaskAllComplete() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        RotaPool slowPool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            waitersOfOneSlowTaskAllComplete(pool, slowPool);
        } finally {
            releaseWorker.countDown();
            Liveness.within("shutdownNow", pool::shutdownNow);
            slowPool.shutdownNow();
            Liveness.awaitTermination(pool);
            Liveness.awaitTermination(slowPool);
        }
    }

    /**
     * Past the bound a join blocks only if a spare stands in: with none to be had, it helps on, since
     * the task it waits for may be one that only its own thread will run (here, the first fork on
     * the only worker's deque, under the forks that wait for it); and once too deep to help on, it
     * runs that task itself.
     */
    @Test
    void pastTheBoundAJoinWithNoSpareToBeHadHelpsOn() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).pinning(false).build();
        int waiters = 1_000;                             // more than the stack would hold helping on
        try {
            RotaTask<Integer> parent = pool.submit(new RotaTask<Integer>() {
                @Override
                protected Integer compute() {
                    RotaTask<Integer> shared = new RotaTask<Integer>() {
                        @Override
                        protected Integer compute() {
                            return 7;
                        }
                    }.fork();
                    RotaTask<?>[] forks = new RotaTask<?>[waiters];
                    for (int i = 0; i < waiters; i++) {
                        forks[i] = new RotaTask<Integer>() {
                            @Override
                            protected Integer compute() {
                                return shared.join();
                            }
                        }.fork();
                    }
                    int sum = 0;
                    for (int i = waiters - 1; i >= 0; i--) {
                        sum += (Integer) forks[i].join();
                    }
                    return sum;
                }
            });
            assertEquals(7 * waiters, parent.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * Helping on past the bound with no spare to be had is bounded too: once the worker runs 64
     * helped tasks nested in one another, its join waits (and asks for a spare again each time it
     * looks), where helping on would nest the waiters of the slow task as deep as there are of them
     * and end in a StackOverflowError that fails some and loses others. Here the waiters the worker
     * has started all wait for the slow task, which is released once the worker waits too.
     */
    @Test
    void withNoSpareToBeHadAJoinHelpsPastTheBoundButNotWithoutLimit() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).pinning(false).build();
        RotaPool slowPool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseSlow = new CountDownLatch(1);
        try {
            RotaTask<Integer> shared = slowPool.submit(slowTask(releaseSlow));
            WaitersOfOneTask parent = new WaitersOfOneTask(shared, WAITERS, () -> { });
            pool.submit(parent);
            Liveness.awaitCondition(() -> waitsInAJoin(parent.thread.get()), "the worker never stopped helping");
            int nested = parent.started.get();
            assertTrue(nested > 32 && nested < WAITERS,
                    "waiters started when the worker began to wait: " + nested + " of " + WAITERS);
            releaseSlow.countDown();
            parent.assertAllCompleted(7, parent.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            releaseSlow.countDown();
            Liveness.within("shutdownNow", pool::shutdownNow);
            slowPool.shutdownNow();
            Liveness.awaitTermination(pool);
            Liveness.awaitTermination(slowPool);
        }
    }

    /** True when {@code thread} sleeps in a join's wait, having found nothing it may help with. */
    private static boolean waitsInAJoin(Thread thread) {
        if (thread == null || thread.getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(RotaTask.class.getName()) && frame.getMethodName().equals("waitForSignal")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A task of {@code pool} forks {@link #WAITERS} subtasks that each join one slow task of
     * {@code slowPool}, then joins them all; the slow task ends once every subtask has started.
     */
    private static void waitersOfOneSlowTaskAllComplete(RotaPool pool, RotaPool slowPool) throws Exception {
        CountDownLatch releaseSlow = new CountDownLatch(1);
        try {
            RotaTask<Integer> shared = slowPool.submit(slowTask(releaseSlow));
            WaitersOfOneTask parent = new WaitersOfOneTask(shared, WAITERS, () -> { });
            pool.submit(parent);
            // Every subtask starts before the slow task ends, so that each one really waits.
            Liveness.awaitCondition(() -> parent.started.get() == WAITERS, "subtasks started");
            releaseSlow.countDown();
            parent.assertAllCompleted(7, parent.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            releaseSlow.countDown();
        }
    }

    /** A task that returns 7 once {@code release} opens: a long computation, in the test's hands. */
    static RotaTask<Integer> slowTask(CountDownLatch release) {
        return new RotaTask<Integer>() {
            @Override
            protected Integer compute() {
                Liveness.awaitQuietly(release);
                return 7;
            }
        };
    }
}
