package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.lang.ref.WeakReference;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A terminated group leaves the pool: a pool that lives long and makes and ends groups (one per
 * tenant session, say) must not keep every group it ever made, with a lane per worker each.
 */
class TerminatedGroupsReleasedTest {

    @Test
    void aTerminatedGroupIsNotKeptByItsPool() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            WeakReference<TaskGroup> ended = endedGroup(pool);
            WeakReference<Object> endedCore = new WeakReference<>(ended.get().core);
            pool.group("next", 1);                      // the pool goes on making groups
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while ((ended.get() != null || endedCore.get() != null) && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(10);
            }
            assertNull(ended.get(), "a terminated group is still reachable from its pool");
            assertNull(endedCore.get(), "a terminated group's lanes are still reachable from its pool");
        }
    }

    /**
     * A group that terminates with its pool leaves the currencies that funded it, as one ended by its
     * own shutdown does: once the pool has terminated, no group is funded any more. The group here
     * ends as its pool stops: a fork of its task, made after shutdownNow's drain, is on the worker's
     * deque when the task returns, and the worker cancels it as it ends the task's slice (W2), just
     * before it exits and the pool terminates.
     */
    @Test
    void aGroupEndedByItsPoolsTerminationLeavesItsCurrency() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        Currency base = pool.baseCurrency();
        Currency tenants = base.newCurrency("tenants", 100);
        TaskGroup alone = tenants.newGroup("alone", 10);
        TaskGroup withPool = tenants.newGroup("with-pool", 30);
        alone.shutdown();
        assertTrue(alone.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(30, tenants.issuedTickets(), "a group ended by its own shutdown leaves its currency");

        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        RotaTask<Void> leftover = new RotaTask<>() {
            @Override
            protected Void compute() {
                return null;
            }
        };
        withPool.execute(() -> {
            running.countDown();
            Liveness.awaitUninterruptibly(stopped);
            leftover.fork();                             // after the drain: cancelled as the slice ends
        });
        Liveness.await(running, "the group's task started");
        pool.shutdownNow();
        stopped.countDown();
        Liveness.awaitTermination(pool);

        assertTrue(withPool.isTerminated());
        assertTrue(leftover.isCancelled(), "the fork left after the drain ran or was never taken");
        assertEquals(0, tenants.issuedTickets(), "a group ended by the pool's termination still holds tickets");
        assertEquals(100, base.issuedTickets(), "only the tenants' funding is left: no group, the default one neither");
        assertEquals(0, tenants.activeTickets());
        assertEquals(0, base.activeTickets());
        assertEquals(0, tenants.value());
    }

    /**
     * A loan from {@code lendTo} that is dropped without being closed must not keep its borrower once
     * the borrower has terminated: a long-lived lender that lends to short-lived groups (one per
     * session, say) would otherwise hold every borrower's ledger entry it ever lent to.
     */
    @Test
    void aLoanNeverClosedDoesNotKeepItsTerminatedBorrower() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            TaskGroup lender = pool.group("lender", 100);
            WeakReference<Object> borrowerEntry = borrowerOfAnUnclosedLoan(pool, lender);
            pool.groups();                               // drops the terminated borrower from the pool's list
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (borrowerEntry.get() != null && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(10);
            }
            assertNull(borrowerEntry.get(), "the lender still holds the loan to its terminated borrower");
            assertEquals(100, lender.tickets());
        }
    }

    /** Lends to a new group, drops the loan unclosed, ends the group; returns the group's ledger entry. */
    private static WeakReference<Object> borrowerOfAnUnclosedLoan(RotaPool pool, TaskGroup lender)
            throws InterruptedException {
        TaskGroup borrower = pool.group("borrower", 1);
        Loan loan = lender.lendTo(borrower);
        assertEquals(lender, loan.lender());
        borrower.shutdown();
        assertTrue(borrower.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        return new WeakReference<>(borrower.core.client());
    }

    private static WeakReference<TaskGroup> endedGroup(RotaPool pool) throws InterruptedException {
        TaskGroup session = pool.group("session", 1);
        session.submit(() -> 1);
        session.shutdown();
        assertTrue(session.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        return new WeakReference<>(session);
    }
}
