package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README: a join helps with at most 32 tasks nested in one another on one thread, "past that the
 * join is a managed block, so that tasks that all wait for one slow task cannot overflow the stack",
 * and "a task that a spare runs behaves the same". A spare whose worker's block has ended (a
 * released spare) still finishes its task, and its join still helps; past the bound its join
 * must block with a spare brought in for the worker it last stood for, even though it stands in for
 * nobody now: helping on without a bound, as deep as there are tasks to help with, would end in a
 * StackOverflowError that fails tasks or loses them between a take and a run.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReleasedSpareHelpDepthTest {
    /** Subtasks that wait for the slow task: nested as helpers, far more frames than a stack holds. */
    private static final int WAITERS = 6_000;

    @Test
    void subtasksOnAReleasedSpareThatAllJoinOneSlowTaskAllComplete() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        RotaPool slowPool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch parentStarted = new CountDownLatch(1);
        CountDownLatch goFork = new CountDownLatch(1);
        CountDownLatch releaseSlow = new CountDownLatch(1);
        boolean passed = false;
        BlockedOnlyWorker worker = BlockedOnlyWorker.block(pool);
        try {
            RotaTask<Integer> shared = slowPool.submit(HelpDepthTest.slowTask(releaseSlow));
            WaitersOfOneTask parent = new WaitersOfOneTask(shared, WAITERS, () -> {   // the spare runs it
                parentStarted.countDown();
                Liveness.awaitQuietly(goFork);           // a plain wait: the spare stays busy with this task
            });
            pool.submit(parent);
            Liveness.await(parentStarted, "the spare never started the parent task");
            worker.unblock();
            goFork.countDown();                          // the released spare forks and joins
            Liveness.awaitCondition(() -> parent.started.get() == WAITERS, "subtasks started");
            releaseSlow.countDown();
            parent.assertAllCompleted(7, parent.get(Liveness.SECONDS, TimeUnit.SECONDS));
            passed = true;
        } catch (Throwable primary) {
            System.out.println("PRIMARY: " + primary + "\n" + Liveness.threadDump());
            throw primary;
        } finally {
            worker.close();
            releaseSlow.countDown();
            goFork.countDown();
            if (passed) {
                Liveness.within("shutdownNow", pool::shutdownNow);
                slowPool.shutdownNow();                                // else the failure above is the one to report
                Liveness.awaitTermination(pool);
                Liveness.awaitTermination(slowPool);
            }
        }
    }

    /**
     * A plain divide-and-conquer tree (3 280 tasks, 7 levels), whose subtasks are joined oldest
     * first, and one leaf in 17 of which blocks for a moment in a managed block. Spares stand in for
     * those blocks, run tasks of the tree, and are released as the blocks end while their tasks
     * still join: with no bound on their helping, the tree fails with a StackOverflowError.
     */
    @Test
    void aForkJoinTreeWithShortManagedBlocksCompletes() throws Exception {
        for (int round = 0; round < 40; round++) {         // a fresh pool each time: no spare yet
            RotaPool pool = RotaPool.builder().workers(2).pinning(false).build();
            try {
                assertEquals(2187L, pool.submit(new Node(7, round)).get(Liveness.SECONDS, TimeUnit.SECONDS),
                        "round " + round);
            } finally {
                Liveness.within("shutdownNow", pool::shutdownNow);
                Liveness.awaitTermination(pool);
            }
        }
    }

    /** Counts its leaves: forks three children, joins them oldest first. */
    static final class Node extends RotaTask<Long> {
        final int depth;
        final long seed;

        Node(int depth, long seed) {
            this.depth = depth;
            this.seed = seed;
        }

        @Override
        protected Long compute() {
            if (depth == 0) {
                if (seed % 17 == 0) {
                    try {
                        RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                            boolean done;

                            @Override
                            public boolean block() {
                                Thread.yield();
                                done = true;
                                return true;
                            }

                            @Override
                            public boolean isReleasable() {
                                return done;
                            }
                        });
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return 1L;
            }
            Node[] children = new Node[3];
            for (int i = 0; i < 3; i++) {
                children[i] = new Node(depth - 1, seed * 31 + i);
                children[i].fork();
            }
            long sum = 0;
            for (Node child : children) {
                sum += child.join();
            }
            return sum;
        }
    }
}
