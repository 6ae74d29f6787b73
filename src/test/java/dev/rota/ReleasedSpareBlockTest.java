package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README: "managedBlock(blocker) keeps the core busy while a worker blocks: a spare thread pinned to
 * the same CPU takes tasks from every queue until the worker unblocks". A spare whose worker's block
 * has ended (a released spare) stands in for nobody: a plain managed block of its task (I/O, a lock,
 * a latch) must not bring in another spare for that worker, which runs, or the CPU runs two threads
 * of the pool, each taking tasks, for as long as that block lasts. Only a join past the bound on
 * nested helps, which would otherwise help on itself, may block with a spare for that CPU (README).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReleasedSpareBlockTest {

    @Test
    void aManagedBlockOfAReleasedSpareBringsInNoSpareBesideItsRunningWorker() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch spareTaskStarted = new CountDownLatch(1);
        CountDownLatch goBlock = new CountDownLatch(1);
        CountDownLatch inBlock = new CountDownLatch(1);
        CountDownLatch releaseBlock = new CountDownLatch(1);
        BlockedOnlyWorker worker = BlockedOnlyWorker.block(pool);
        try {
            pool.execute(() -> {                         // the spare runs it
                spareTaskStarted.countDown();
                Liveness.awaitQuietly(goBlock);          // a plain wait: the spare stays busy with this task
                try {
                    RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                        @Override
                        public boolean block() throws InterruptedException {
                            inBlock.countDown();
                            releaseBlock.await();        // a long wait: I/O, say
                            return true;
                        }

                        @Override
                        public boolean isReleasable() {
                            return releaseBlock.getCount() == 0;
                        }
                    });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Liveness.await(spareTaskStarted, "the spare never started its task");
            worker.unblock();
            goBlock.countDown();                         // the released spare's task blocks
            Liveness.await(inBlock, "the released spare's task never blocked");

            // The worker runs; the only blocked thread stands in for nobody.
            assertEquals(1, pool.spareThreads(),
                    "a second spare was brought in for a worker that is not blocked\n" + Liveness.threadDump());

            // A task submitted now is the running worker's to take, not a spare's beside it.
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            CountDownLatch ran = new CountDownLatch(1);
            pool.execute(() -> {
                ranOn.set(Thread.currentThread());
                ran.countDown();
            });
            worker.finishTask();
            Liveness.await(ran, "the task never ran");
            assertSame(worker.thread.get(), ranOn.get(), "the task ran on " + ranOn.get().getName()
                    + " beside the running worker");
            assertFalse(ranOn.get().getName().contains("spare"));
        } finally {
            worker.close();
            goBlock.countDown();
            releaseBlock.countDown();
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }
}
