package dev.rota;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The only worker of a pool, blocked in a managed block so that a spare stands in for it; once
 * {@link #unblock()}ed, its spare is released (it finishes its task but stands in for nobody) while
 * the worker stays busy with a long computation until {@link #finishTask()}. For the tests of what a
 * released spare may do.
 */
final class BlockedOnlyWorker implements AutoCloseable {
    private final CountDownLatch unblock = new CountDownLatch(1);
    private final CountDownLatch unblocked = new CountDownLatch(1);
    private final CountDownLatch finishTask = new CountDownLatch(1);
    /** The worker's thread. */
    final AtomicReference<Thread> thread = new AtomicReference<>();

    private BlockedOnlyWorker() {
    }

    /** Blocks the only worker of {@code pool} and returns once a spare stands in for it. */
    static BlockedOnlyWorker block(RotaPool pool) throws InterruptedException {
        BlockedOnlyWorker worker = new BlockedOnlyWorker();
        pool.execute(() -> {
            worker.thread.set(Thread.currentThread());
            try {
                RotaPool.managedBlock(new LatchBlocker(worker.unblock));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            worker.unblocked.countDown();                // the block has ended: its spare is released
            Liveness.awaitQuietly(worker.finishTask);    // then a long computation holds the worker
        });
        Liveness.awaitCondition(() -> pool.spareThreads() > 0, "no spare stood in for the blocked worker");
        return worker;
    }

    /** Ends the worker's block, which releases its spare, and returns once the worker runs again. */
    void unblock() throws InterruptedException {
        unblock.countDown();
        Liveness.await(unblocked, "the worker's block never ended");
    }

    /** Ends the worker's long computation: it takes tasks again. */
    void finishTask() {
        finishTask.countDown();
    }

    @Override
    public void close() {
        unblock.countDown();
        finishTask.countDown();
    }
}
