package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Corners of the groups' contract: the default group's life cycle, loans whose lender terminates or
 * whose tickets would overflow a total, the bound on a group's queue, forks of a shut-down group on
 * a spare thread, the pool's name, and a group's shutdownNow after the pool's shutdown.
 */
class TaskGroupCornersTest {
    private final RotaPool pool = RotaPool.builder().workers(2).build();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() throws InterruptedException {
        release.countDown();
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
    }

    private void awaitRelease() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Occupies both workers with tasks of a group of their own that wait for {@link #release}. */
    private void occupyEveryWorker() throws InterruptedException {
        TaskGroup blockers = pool.group("blockers", 1);
        CountDownLatch started = new CountDownLatch(pool.workers());
        for (int i = 0; i < pool.workers(); i++) {
            blockers.execute(() -> {
                started.countDown();
                awaitRelease();
            });
        }
        Liveness.await(started, "both workers occupied");
    }

    /**
     * The default group ends with its pool: shutting it down alone would leave a pool that refuses
     * every submission and cancels its due delayed tasks while it says it is not shut down.
     */
    @Test
    void theDefaultGroupCannotBeShutDownAlone() throws Exception {
        TaskGroup defaultGroup = pool.defaultGroup();
        assertThrows(UnsupportedOperationException.class, defaultGroup::shutdown);
        assertThrows(UnsupportedOperationException.class, defaultGroup::shutdownNow);
        assertThrows(UnsupportedOperationException.class, defaultGroup::close);
        assertThrows(UnsupportedOperationException.class, () -> RotaPool.commonPool().defaultGroup().shutdownNow());
        assertFalse(defaultGroup.isShutdown());
        assertEquals(2, pool.submit(() -> 2).get(Liveness.SECONDS, TimeUnit.SECONDS));
    }

    /** "A loan from or to a group that has terminated lends nothing": the lender's termination ends its loans. */
    @Test
    void aLoanFromATerminatedGroupLendsNothing() throws Exception {
        occupyEveryWorker();
        TaskGroup lender = pool.group("lender", 300);
        TaskGroup borrower = pool.group("borrower", 10);
        borrower.execute(() -> {});                      // queued, so active
        try (Loan loan = lender.lendTo(borrower)) {
            assertEquals(310, borrower.value(), 1e-9);
            lender.shutdown();
            assertTrue(lender.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(10, borrower.value(), 1e-9,
                    "the terminated lender's 300 tickets still compete for the borrower, until close()");
        }
    }

    /**
     * Ticket transfer is a side effect of Future.get(): it never makes get() throw. A group holding
     * half of all longs (a valid amount) waits on another group's future without a loan, since the
     * loan would take the base currency's total past Long.MAX_VALUE.
     */
    @Test
    void aCrossGroupGetNeverFailsForTicketArithmetic() throws Exception {
        TaskGroup big = pool.group("big", Long.MAX_VALUE / 2);
        TaskGroup other = pool.group("other", 1);
        Future<Object> outcome = big.submit(() -> {
            Future<Integer> slow = other.submit(() -> {
                Thread.sleep(200);
                return 42;
            });
            try {
                return slow.get();
            } catch (Throwable t) {
                return t;
            }
        });
        assertEquals(42, outcome.get(Liveness.SECONDS, TimeUnit.SECONDS));
    }

    /**
     * A group's queue holds at most its capacity in tasks waiting for a worker, and each worker's
     * batch of at most 64 taken into its own queue (TaskGroup.queueCapacity()).
     */
    @Test
    void aGroupQueuesAtMostItsCapacityAndABatchPerWorker() throws Exception {
        TaskGroup bounded = pool.group("bounded", 1);
        bounded.setQueueCapacity(10);
        occupyEveryWorker();
        CountDownLatch started = new CountDownLatch(2);
        for (int i = 0; i < 10; i++) {
            bounded.execute(() -> {
                started.countDown();
                awaitRelease();
            });
        }
        // Free both workers (interrupting the blockers): they take bounded's tasks and block in two of them.
        TaskGroup blockers = pool.groups().stream().filter(g -> g.name().equals("blockers")).findFirst().orElseThrow();
        blockers.shutdownNow();
        Liveness.await(started, "both workers in bounded's tasks");
        int accepted = 0;
        for (int i = 0; i < 1_000; i++) {
            try {
                bounded.execute(() -> {});
                accepted++;
            } catch (RejectedExecutionException full) {
                break;
            }
        }
        long queued = bounded.stats().queuedTasks();
        assertTrue(queued <= 10 + 64L * pool.workers(), "capacity 10, but " + queued + " tasks queued (8 before + "
                + accepted + " accepted while both workers ran bounded's tasks)");
    }

    /**
     * shutdown() lets accepted tasks run to completion, forks included, as ForkJoinPool does: a
     * fork on a worker goes to its deque whatever the group's state, and one on a spare thread (its
     * worker in a managed block), which the shut-down group refuses, runs in place.
     */
    @Test
    void aTaskOfAShutDownGroupMayForkEvenOnASpare() throws Exception {
        try (RotaPool one = RotaPool.builder().workers(1).build()) {
            CountDownLatch unblock = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(1);
            one.execute(() -> {
                blocking.countDown();
                try {
                    RotaPool.managedBlock(new java.util.concurrent.ForkJoinPool.ManagedBlocker() {
                        @Override
                        public boolean block() throws InterruptedException {
                            unblock.await();
                            return true;
                        }

                        @Override
                        public boolean isReleasable() {
                            return unblock.getCount() == 0;
                        }
                    });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Liveness.await(blocking, "the only worker in a managed block");
            TaskGroup g = one.group("g", 1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch shutDown = new CountDownLatch(1);
            Future<Object> outcome = g.submit(() -> {
                started.countDown();
                shutDown.await();
                RotaTask<Integer> child = new RotaTask<>() {
                    @Override
                    protected Integer compute() {
                        return 5;
                    }
                };
                try {
                    return child.fork().join() + " on " + Thread.currentThread().getName();
                } catch (Throwable t) {
                    return t + " on " + Thread.currentThread().getName();
                }
            });
            Liveness.await(started, "g's task started on a spare");
            g.shutdown();
            shutDown.countDown();
            Object result = outcome.get(Liveness.SECONDS, TimeUnit.SECONDS);
            unblock.countDown();
            assertTrue(String.valueOf(result).startsWith("5 on "), String.valueOf(result));
        }
    }

    /** Builder.name, like group and currency names, refuses a blank name. */
    @Test
    void aBlankPoolNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> RotaPool.builder().name(" "));
    }

    /** shutdownNow of one group after the pool's shutdown returns each of its queued tasks once. */
    @Test
    void groupShutdownNowAfterPoolShutdownReturnsItsQueuedTasks() throws Exception {
        occupyEveryWorker();
        TaskGroup g = pool.group("g", 5);
        List<Runnable> mine = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Runnable r = () -> {};
            mine.add(r);
            g.execute(r);
        }
        pool.shutdown();
        List<Runnable> back = g.shutdownNow();
        assertEquals(5, back.size());
        assertTrue(back.containsAll(mine));
        assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(0, g.stats().queuedTasks());
    }
}
