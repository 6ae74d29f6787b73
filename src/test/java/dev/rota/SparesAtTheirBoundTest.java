package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spare threads at their bound ({@code maxSpareThreads}): a block that found every spare busy gets
 * the next spare that comes free, and a spare whose worker's block has ended still runs the forks its
 * own join waits for. Without either, once the threads left were all blocked, queued tasks would
 * wait for as long as the blocks last, for ever where the blocks wait for those tasks.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SparesAtTheirBoundTest {

    private static Runnable blockingOn(LatchBlocker blocker) {
        return () -> {
            try {
                RotaPool.managedBlock(blocker);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    private static void awaitBlocked(LatchBlocker blocker, String what) throws InterruptedException {
        Liveness.awaitCondition(() -> blocker.blockCalls() > 0, what);
    }

    private static RotaPool oneWorkerOneSpare() {
        return RotaPool.builder().workers(1).maxSpareThreads(1).spareKeepAlive(Duration.ofSeconds(30)).build();
    }

    /**
     * Ends the worker's first block (which releases its spare, still busy with a task of its own),
     * waits until the worker runs tasks again, and blocks it in {@code second}, with no spare free.
     */
    private static void unblockThenBlockAgain(RotaPool pool, CountDownLatch releaseFirst, LatchBlocker second)
            throws InterruptedException {
        CountDownLatch free = new CountDownLatch(1);
        releaseFirst.countDown();
        pool.execute(free::countDown);                  // runs on the worker once its block has ended
        Liveness.await(free, "the worker free again");
        pool.execute(blockingOn(second));
        awaitBlocked(second, "the worker blocked again, with the only spare busy");
    }

    /**
     * One worker, one spare. The worker blocks (A) and the spare stands in, then blocks in its own
     * task (B) with no spare left. The worker's block ends, and its next task (D) blocks too, with
     * the only spare still busy in B. Once B's block ends the spare is free: it must stand in for
     * the worker, whose block D still lasts, and run the queued task E.
     */
    @Test
    void aSpareThatComesFreeStandsInForABlockThatFoundNone() throws Exception {
        CountDownLatch releaseA = new CountDownLatch(1);
        CountDownLatch releaseB = new CountDownLatch(1);
        CountDownLatch releaseD = new CountDownLatch(1);
        LatchBlocker a = new LatchBlocker(releaseA);
        LatchBlocker b = new LatchBlocker(releaseB);
        LatchBlocker d = new LatchBlocker(releaseD);
        try (RotaPool pool = oneWorkerOneSpare()) {
            try {
                pool.execute(blockingOn(a));
                awaitBlocked(a, "the worker blocked in A");
                pool.execute(blockingOn(b));
                awaitBlocked(b, "the spare blocked in B");
                assertEquals(1, pool.spareThreads());

                unblockThenBlockAgain(pool, releaseA, d);

                CountDownLatch eRan = new CountDownLatch(1);
                pool.execute(eRan::countDown);
                releaseB.countDown();
                assertTrue(eRan.await(Liveness.SECONDS, TimeUnit.SECONDS),
                        "E waited while the spare, free after B, idled beside it");
                assertEquals(1, pool.spareThreads(), "no spare above the bound");
            } finally {
                releaseA.countDown();
                releaseB.countDown();
                releaseD.countDown();
            }
        }
    }

    /**
     * One worker, one spare. The worker blocks (A) and the spare stands in and starts task T. The
     * worker's block ends, which releases the spare, and the worker's next task (D) blocks with no
     * spare free. Only then does T fork and join: its fork waits in the group's queue, with the
     * worker blocked and the spare running T, so the spare's join has to run it itself.
     */
    @Test
    void aReleasedSpareRunsTheForkItsJoinWaitsFor() throws Exception {
        CountDownLatch releaseA = new CountDownLatch(1);
        CountDownLatch releaseD = new CountDownLatch(1);
        CountDownLatch goFork = new CountDownLatch(1);
        LatchBlocker a = new LatchBlocker(releaseA);
        LatchBlocker d = new LatchBlocker(releaseD);
        try (RotaPool pool = oneWorkerOneSpare()) {
            try {
                pool.execute(blockingOn(a));
                awaitBlocked(a, "the worker blocked in A");
                CountDownLatch tStarted = new CountDownLatch(1);
                RotaTask<Integer> t = new RotaTask<>() {
                    @Override
                    protected Integer compute() {
                        tStarted.countDown();
                        Liveness.awaitUninterruptibly(goFork);   // a plain wait: the spare stays busy
                        RotaTask<Integer> fork = RotaTask.adapt(() -> 41);
                        fork.fork();
                        return fork.join() + 1;
                    }
                };
                pool.submit(t);
                Liveness.await(tStarted, "the spare started T");

                unblockThenBlockAgain(pool, releaseA, d);

                goFork.countDown();
                assertEquals(42, t.get(Liveness.SECONDS, TimeUnit.SECONDS));
            } finally {
                releaseA.countDown();
                releaseD.countDown();
                goFork.countDown();
            }
        }
    }
}
