package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task that a spare thread runs keeps its group active, as a task on a worker does, and stops
 * keeping it active while it waits in {@code managedBlock}, as a task on a worker does: the
 * lottery paper's active tickets, whichever thread runs the group's work.
 *
 * <p>Each test holds the pool's only worker in a managed block, so that a spare stands in for it,
 * and gives the spare a task of group {@code a1}. Group {@code a2}, funded by the same currency,
 * shows where the currency's value goes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpareTurnActivityTest {
    private final CountDownLatch releaseWorker = new CountDownLatch(1);
    private final CountDownLatch releaseSpare = new CountDownLatch(1);
    private final LatchBlocker workerBlocker = new LatchBlocker(releaseWorker);
    private final AtomicReference<Thread> worker = new AtomicReference<>();

    /** Runs {@code a1}'s first task on the worker, blocked in managedBlock until {@link #releaseWorker}. */
    private void blockTheWorker(TaskGroup a1) throws InterruptedException {
        a1.execute(() -> {
            worker.set(Thread.currentThread());
            try {
                RotaPool.managedBlock(workerBlocker);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Liveness.awaitCondition(() -> workerBlocker.blockCalls() > 0, "the worker's task blocked");
    }

    /**
     * With every task of a1 waiting in managedBlock, on the worker and on the spare: a task of a2,
     * queued since nobody is free to run it, makes a2 hold all of the currency's value, a1 none.
     */
    private static void assertQueuedA2HoldsTheCurrency(Currency tenant, TaskGroup a1, TaskGroup a2,
            CountDownLatch a2Ran) {
        a2.execute(a2Ran::countDown);                    // stays queued: the worker and the spare wait
        assertEquals(0, a1.value(), 1e-9, "a1 has nothing but tasks waiting in managedBlock");
        assertEquals(tenant.value(), a2.value(), 1e-9, "a2 must hold all of its currency's value");
        assertTrue(a2.value() > 0);
    }

    /**
     * The worker's slice of a1 ends (its task done, nothing of a1 queued) while a1's other task
     * still runs on a spare: a1 is no longer runnable, but it is still active, so it holds its
     * currency's value and a2, with no work, holds none.
     */
    @Test
    void aGroupWhoseOnlyRunningTaskIsOnASpareStaysActive() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(1).build()) {
            Currency tenant = pool.baseCurrency().newCurrency("tenant", 100);
            TaskGroup a1 = tenant.newGroup("a1", 100);
            TaskGroup a2 = tenant.newGroup("a2", 100);
            try {
                blockTheWorker(a1);
                CountDownLatch spareStarted = new CountDownLatch(1);
                AtomicReference<Thread> spareThread = new AtomicReference<>();
                a1.execute(() -> {
                    spareThread.set(Thread.currentThread());
                    spareStarted.countDown();
                    Liveness.awaitUninterruptibly(releaseSpare);   // a plain wait: the spare stays busy
                });
                Liveness.await(spareStarted, "a spare ran a1's second task");
                assertFalse(spareThread.get() == worker.get(), "a1's second task ran on the worker");

                releaseWorker.countDown();
                Liveness.awaitCondition(() -> a1.stats().slices() >= 1, "the worker's slice of a1 ended");

                assertEquals(0, a1.stats().queuedTasks());
                assertEquals(100, a1.value(), 1e-9, "a1's task on the spare keeps it active");
                assertEquals(0, a2.value(), 1e-9, "a2 has no work");
            } finally {
                releaseWorker.countDown();
                releaseSpare.countDown();
            }
            Liveness.awaitCondition(() -> a1.value() == 0, "a1 inactive once the spare's task is done");
        }
    }

    /**
     * Both of a1's tasks wait in managedBlock, one on the worker and one on a spare: a1 competes for
     * nothing, and a2, whose task is queued, holds all of the currency's value.
     */
    @Test
    void aGroupWhoseTaskOnASpareWaitsInManagedBlockIsInactive() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(1).build()) {
            Currency tenant = pool.baseCurrency().newCurrency("tenant", 100);
            TaskGroup a1 = tenant.newGroup("a1", 100);
            TaskGroup a2 = tenant.newGroup("a2", 100);
            LatchBlocker spareBlocker = new LatchBlocker(releaseSpare);
            CountDownLatch a2Ran = new CountDownLatch(1);
            try {
                blockTheWorker(a1);
                a1.execute(() -> {
                    try {
                        RotaPool.managedBlock(spareBlocker);   // no second spare: it blocks all the same
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                Liveness.awaitCondition(() -> spareBlocker.blockCalls() > 0, "a1's second task blocked on a spare");
                assertQueuedA2HoldsTheCurrency(tenant, a1, a2, a2Ran);
            } finally {
                releaseWorker.countDown();
                releaseSpare.countDown();
            }
            Liveness.await(a2Ran, "a2's task ran");
        }
    }

    /**
     * a1's task on the spare waits for a task of group s; with no other spare to stand in, it runs
     * that task itself, which blocks in managedBlock. The spare's turn is a1's, so the block pauses
     * a1's turn, not a slice of s (which has none here): a1 competes for nothing, and a2, whose task
     * is queued, holds all of the currency's value.
     */
    @Test
    void aBlockInATaskRunForItsWaiterOnASparePausesTheWaitersTurn() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(1).build()) {
            Currency tenant = pool.baseCurrency().newCurrency("tenant", 100);
            TaskGroup a1 = tenant.newGroup("a1", 100);
            TaskGroup a2 = tenant.newGroup("a2", 100);
            TaskGroup s = pool.group("s", 100);
            LatchBlocker awaitedBlocker = new LatchBlocker(releaseSpare);
            AtomicReference<Thread> awaitedRanOn = new AtomicReference<>();
            AtomicReference<Thread> waiterRanOn = new AtomicReference<>();
            CountDownLatch a2Ran = new CountDownLatch(1);
            try {
                blockTheWorker(a1);
                a1.execute(() -> {
                    waiterRanOn.set(Thread.currentThread());
                    try {
                        s.submit(() -> {
                            awaitedRanOn.set(Thread.currentThread());
                            RotaPool.managedBlock(awaitedBlocker);   // no second spare: it blocks all the same
                            return null;
                        }).get();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (java.util.concurrent.ExecutionException e) {
                        throw new AssertionError(e);
                    }
                });
                Liveness.awaitCondition(() -> awaitedBlocker.blockCalls() > 0, "s's task blocked on the spare");
                assertTrue(awaitedRanOn.get() == waiterRanOn.get(), "s's task ran on its waiter's thread");
                assertQueuedA2HoldsTheCurrency(tenant, a1, a2, a2Ran);
            } finally {
                releaseWorker.countDown();
                releaseSpare.countDown();
            }
            Liveness.await(a2Ran, "a2's task ran");
        }
    }
}
