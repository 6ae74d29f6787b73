package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.RotaTask;
import dev.rota.affinity.NoAffinity;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A join on a spare thread helps with its group's tasks only while the group allows the worker the
 * spare stands in for. Worker 0 blocks; its spare runs a task of group {@code a} (allowed on worker 0
 * only) that forks 1000 leaves, which wait in the inboxes since nothing else may run them. Then
 * {@code a} is moved to worker 1, and only after that does the task join its leaves: every leaf must
 * run on worker 1, none on worker 0's spare.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpareHelpTest {
    private static final int LEAVES = 1000;

    /** Set once group {@code a} has been moved to worker 1; the leaves note where they ran. */
    private static volatile boolean moved;
    private static final AtomicInteger ranAfterMove = new AtomicInteger();
    private static final AtomicInteger ranOnSpareAfterMove = new AtomicInteger();

    static final class Leaf extends RotaTask<Integer> {
        @Override
        protected Integer compute() {
            if (moved) {
                ranAfterMove.incrementAndGet();
                if (Thread.currentThread() instanceof SpareThreads.SpareThread) {
                    ranOnSpareAfterMove.incrementAndGet();
                }
            }
            long start = System.nanoTime();
            while (System.nanoTime() - start < 100_000) { // some work, so that the join has time to help
                Thread.onSpinWait();
            }
            return 1;
        }
    }

    @Test
    void aJoinOnASpareRunsNoTaskOfAGroupThatNoLongerAllowsItsWorker() throws Exception {
        Engine engine = new Engine("spare-help", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"),
                false, null, true);
        engine.start();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group blocker = dispatcher.newGroup("blocker", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            Group a = dispatcher.newGroup("a", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            blocker.restrictTo(WorkerMask.of(2, 0));
            a.restrictTo(WorkerMask.of(2, 0));
            EngineSpares.blockAWorker(engine, blocker, releaseWorker);

            CountDownLatch forked = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            AtomicInteger sum = new AtomicInteger();
            assertAccepted(a.offer(() -> {
                List<Leaf> leaves = new ArrayList<>();
                for (int i = 0; i < LEAVES; i++) {
                    Leaf leaf = new Leaf();
                    leaf.fork();
                    leaves.add(leaf);
                }
                forked.countDown();
                while (!moved) {
                    Thread.onSpinWait();
                }
                for (Leaf leaf : leaves) {
                    sum.addAndGet(leaf.join());
                }
                done.countDown();
            }));
            assertTrue(forked.await(30, TimeUnit.SECONDS), "the forking task never ran");
            a.restrictTo(WorkerMask.of(2, 1));
            moved = true;
            assertTrue(done.await(30, TimeUnit.SECONDS), "the join never finished");
            assertEquals(LEAVES, sum.get());
            assertEquals(LEAVES, ranAfterMove.get(), "set-up: some leaf ran before the move");
            assertEquals(0, ranOnSpareAfterMove.get(), "leaves run on worker 0's spare after the group left worker 0");
        } finally {
            releaseWorker.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(30, TimeUnit.SECONDS));
        }
    }
}
