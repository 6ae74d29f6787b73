package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The ledger's rules of activity and value, on a stride scheduler, without threads or clocks. */
class ShareLedgerTest {
    private static final long QUANTUM = 1_000_000;

    private final CurrencyGraph graph = new CurrencyGraph();
    private final StrideScheduler stride = new StrideScheduler();
    private final ShareLedger ledger = new ShareLedger(graph, stride);
    private final SplittableRandom random = new SplittableRandom(1);

    @Test
    void onlyRunnableGroupsArePickedAndActivityFollowsQueuedOrRunningWork() {
        CurrencyNode x = ledger.newCurrency("X", graph.base(), 100);
        ClientNode a = ledger.newClient("a", x, 100);
        ClientNode b = ledger.newClient("b", x, 100);
        assertEquals(ShareScheduler.NONE, ledger.pick(id -> true, random));

        ledger.setRunnable(a, true);
        ledger.setRunnable(b, true);
        assertEquals(2, ledger.runnableCount());
        assertEquals(50, a.value(), 1e-9);

        // a's last queued task starts: a is no longer runnable but its running slice keeps it active
        ledger.sliceStarted(a);
        ledger.setRunnable(a, false);
        assertTrue(a.isActive());
        assertEquals(50, b.value(), 1e-9, "b still shares X with a's running work");
        assertEquals(0, ledger.scheduledValue(a));
        assertEquals(b.id(), ledger.pick(id -> true, random));

        // the slice ends: a has no queued or running work and goes inactive; b gets X whole
        ledger.sliceEnded(a, QUANTUM / 2, QUANTUM);
        assertFalse(a.isActive());
        assertEquals(100, b.value(), 1e-9);
        assertThrows(IllegalStateException.class, () -> ledger.sliceEnded(a, 1, QUANTUM));
    }

    /** A spare thread's turn that found no task: its slice ends without a charge. */
    @Test
    void anAbandonedSliceEndsWithoutACharge() {
        ClientNode a = ledger.newClient("a", graph.base(), 100);
        ClientNode b = ledger.newClient("b", graph.base(), 100);
        ledger.setRunnable(a, true);
        ledger.setRunnable(b, true);
        long pass = stride.pass(a.id());
        ledger.sliceStarted(a);
        ledger.sliceStarted(a);                          // a worker's slice and a spare's turn
        ledger.sliceAbandoned(a);
        assertEquals(pass, stride.pass(a.id()), "nothing charged");
        assertEquals(1, ledger.slices(a));

        ledger.setRunnable(a, false);
        assertTrue(a.isActive(), "the other slice still runs");
        ledger.pause(a);
        assertFalse(a.isActive());
        assertThrows(IllegalStateException.class, () -> ledger.sliceAbandoned(a), "its only slice is paused");
        ledger.resume(a);
        ledger.sliceAbandoned(a);
        assertFalse(a.isActive());
        assertEquals(0, ledger.slices(a));
        assertThrows(IllegalStateException.class, () -> ledger.sliceAbandoned(a));
    }

    @Test
    void aPausedSliceLendsItsGroupsTicketsAndNoLongerKeepsItActive() {
        ClientNode client = ledger.newClient("client", graph.base(), 300);
        ClientNode server = ledger.newClient("server", graph.base(), 10);
        ClientNode other = ledger.newClient("other", graph.base(), 100);
        ledger.setRunnable(server, true);
        ledger.setRunnable(other, true);
        ledger.sliceStarted(client);                     // the client's task runs, then waits on the server
        assertTrue(client.isActive());

        ledger.pause(client);
        Ticket loan = ledger.lend(client, server);
        assertFalse(client.isActive());
        assertEquals(310, server.value(), 1e-9);
        assertEquals(310, ledger.scheduledValue(server), 1e-9);

        ledger.repay(loan);
        ledger.resume(client);
        assertTrue(client.isActive());
        assertEquals(10, server.value(), 1e-9);
        assertThrows(IllegalStateException.class, () -> ledger.resume(client));
        ledger.sliceEnded(client, QUANTUM, QUANTUM);
        assertThrows(IllegalStateException.class, () -> ledger.pause(client));
    }

    /**
     * A group that lends while it still has work splits its value between its own use and its
     * loans: a loan creates no value, so groups that take no part keep their shares.
     */
    @Test
    void aLenderThatStaysActiveSplitsItsValueAndDilutesNobody() {
        ClientNode gold = ledger.newClient("gold", graph.base(), 300);
        ClientNode storage = ledger.newClient("storage", graph.base(), 100);
        ClientNode bronze = ledger.newClient("bronze", graph.base(), 100);
        for (ClientNode c : List.of(gold, storage, bronze)) {
            ledger.setRunnable(c, true);
        }
        ledger.sliceStarted(gold);
        ledger.sliceStarted(gold);
        for (int wait = 0; wait < 2; wait++) {           // two of gold's tasks wait on storage; gold has more work
            ledger.pause(gold);
            ledger.lend(gold, storage);
        }
        assertEquals(100, ledger.scheduledValue(gold), 1e-9, "a third of gold's 300 for its own use");
        assertEquals(300, ledger.scheduledValue(storage), 1e-9, "its own 100 and two thirds of gold's");
        assertEquals(100, ledger.scheduledValue(bronze), 1e-9);
    }

    /** Tickets lent along a chain of waits (a waits on b, which waits on c) reach the group doing the work. */
    @Test
    void ticketsLentAlongAChainOfWaitsReachTheGroupDoingTheWork() {
        ClientNode a = ledger.newClient("a", graph.base(), 1_000);
        ClientNode b = ledger.newClient("b", graph.base(), 1);
        ClientNode c = ledger.newClient("c", graph.base(), 1);
        ledger.setRunnable(c, true);
        ledger.sliceStarted(a);
        ledger.pause(a);
        ledger.lend(a, b);
        ledger.sliceStarted(b);
        ledger.pause(b);
        ledger.lend(b, c);
        assertFalse(a.isActive());
        assertFalse(b.isActive());
        assertEquals(1_002, ledger.scheduledValue(c), 1e-9);
    }

    @Test
    void aLoanFollowsTheLendersTicketChanges() {
        ClientNode gold = ledger.newClient("gold", graph.base(), 500);
        ClientNode storage = ledger.newClient("storage", graph.base(), 1);
        ledger.setRunnable(storage, true);
        ledger.sliceStarted(gold);
        ledger.pause(gold);
        ledger.lend(gold, storage);
        assertEquals(501, storage.value(), 1e-9);
        ledger.setTickets(gold, 1);
        assertEquals(2, storage.value(), 1e-9, "storage holds gold's tickets, and gold now has 1");
    }

    /** Groups wait on each other's tasks both ways: the loan that would close the cycle is refused, by name. */
    @Test
    void aLoanThatWouldCloseACycleIsRefused() {
        ClientNode a = ledger.newClient("a", graph.base(), 10);
        ClientNode b = ledger.newClient("b", graph.base(), 10);
        ClientNode c = ledger.newClient("c", graph.base(), 10);
        ledger.lend(a, b);
        ledger.lend(b, c);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ledger.lend(c, a));
        assertEquals("a loan from c to a would make a cycle of loans: a -> b -> c -> a", e.getMessage());
        Ticket second = ledger.lend(a, c);               // another loan along the same direction is fine
        ledger.repay(second);
        ledger.repay(second);                            // a second repayment changes nothing
        assertEquals(1, b.loans().size());
        ledger.remove(b);
        assertEquals(List.of(), b.loans(), "a removed group holds no loans");
    }

    /** A runnable group whose tickets are worth nothing still runs, but only when nobody funded has work. */
    @Test
    void anUnfundedRunnableGroupCompetesWithTheFloorValue() {
        CurrencyNode poor = ledger.newCurrency("poor", graph.base(), 5);
        Ticket backing = poor.backing().getFirst();
        ClientNode starving = ledger.newClient("starving", poor, 1);
        ClientNode rich = ledger.newClient("rich", graph.base(), 1);
        ledger.unfund(backing);
        ledger.setRunnable(starving, true);
        assertEquals(ShareLedger.FLOOR_VALUE, ledger.scheduledValue(starving));
        assertEquals(starving.id(), ledger.pick(id -> true, random));

        ledger.setRunnable(rich, true);
        for (int i = 0; i < 1_000; i++) {
            int picked = ledger.pick(id -> true, random);
            assertEquals(rich.id(), picked, "pick " + i);
            ledger.sliceStarted(rich);
            ledger.sliceEnded(rich, QUANTUM, QUANTUM);
        }
    }

    /**
     * The floor value is 1e-9 of a base ticket: a group worth one base ticket runs 2000 quanta (and
     * far more: see StrideScheduler's class comment) before an unfunded group gets one, whichever
     * became runnable first.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aFundedGroupRunsBeforeAnUnfundedOneForAsLongAsItHasWork(boolean unfundedFirst) {
        CurrencyNode poor = ledger.newCurrency("poor", graph.base(), 5);
        ClientNode starving = ledger.newClient("starving", poor, 1);
        ClientNode rich = ledger.newClient("rich", graph.base(), 1);
        ledger.unfund(poor.backing().getFirst());
        ledger.setRunnable(unfundedFirst ? starving : rich, true);
        ledger.setRunnable(unfundedFirst ? rich : starving, true);
        assertEquals(ShareLedger.FLOOR_VALUE, ledger.scheduledValue(starving));
        for (int i = 0; i < 2_000; i++) {
            int picked = ledger.pick(id -> true, random);
            assertEquals(rich.id(), picked, "pick " + i);
            ledger.sliceStarted(rich);
            ledger.sliceEnded(rich, QUANTUM, QUANTUM);
        }
    }

    @Test
    void chargesShareCpuTimeByValueAcrossCurrencies() {
        CurrencyNode a = ledger.newCurrency("A", graph.base(), 100);
        CurrencyNode b = ledger.newCurrency("B", graph.base(), 100);
        ClientNode a1 = ledger.newClient("a1", a, 1);
        ClientNode b1 = ledger.newClient("b1", b, 1);
        ClientNode b2 = ledger.newClient("b2", b, 3);
        for (ClientNode c : new ClientNode[] {a1, b1, b2}) {
            ledger.setRunnable(c, true);
        }
        long[] used = new long[3];
        for (int step = 0; step < 80_000; step++) {
            int id = ledger.pick(x -> true, random);
            ClientNode picked = id == a1.id() ? a1 : id == b1.id() ? b1 : b2;
            long slice = 1 + random.nextLong(QUANTUM);
            ledger.sliceStarted(picked);
            ledger.sliceEnded(picked, slice, QUANTUM);
            used[id] += slice;
        }
        double total = used[0] + used[1] + used[2];
        assertEquals(0.5, used[a1.id()] / total, 3.0 * QUANTUM / total);
        assertEquals(0.125, used[b1.id()] / total, 3.0 * QUANTUM / total);
        assertEquals(0.375, used[b2.id()] / total, 3.0 * QUANTUM / total);
    }

    /**
     * A slice charged in parts ends with what followed the last part, and the whole slice's time for
     * its fraction of a quantum: under lottery, a slice that used its quantum and a tenth more is
     * deflated as any overrun, not compensated tenfold for its last tenth. Stride, which keeps no
     * compensation, charges the last part as it charges any time.
     */
    @Test
    void aSliceChargedInPartsEndsWithTheWholeSlicesFraction() {
        CurrencyGraph lotteryGraph = new CurrencyGraph();
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(2));
        ShareLedger lotteryLedger = new ShareLedger(lotteryGraph, lottery);
        ClientNode client = lotteryLedger.newClient("client", lotteryGraph.base(), 100);
        lotteryLedger.setRunnable(client, true);
        lotteryLedger.sliceStarted(client);
        lotteryLedger.charge(client, QUANTUM, QUANTUM);   // a join yields the slice
        lotteryLedger.sliceEnded(client, QUANTUM / 10, QUANTUM + QUANTUM / 10, QUANTUM);
        assertEquals(1 / 1.1, lottery.compensation(client.id()), 1e-12);
        assertEquals(0, lotteryLedger.slices(client));

        ClientNode a = ledger.newClient("a", graph.base(), 100);
        ClientNode b = ledger.newClient("b", graph.base(), 100);
        ledger.setRunnable(a, true);
        ledger.setRunnable(b, true);
        ledger.sliceStarted(a);
        ledger.sliceStarted(b);
        ledger.sliceEnded(a, QUANTUM / 10, QUANTUM + QUANTUM / 10, QUANTUM);
        ledger.sliceEnded(b, QUANTUM / 10, QUANTUM);
        assertEquals(stride.remain(b.id()), stride.remain(a.id()), "stride charges the last part alone, as charge does");
    }

    @Test
    void removingAGroupFreesItsIdAndForgetsItsLoans() {
        ClientNode lender = ledger.newClient("lender", graph.base(), 7);
        ClientNode borrower = ledger.newClient("borrower", graph.base(), 1);
        ledger.setRunnable(borrower, true);
        Ticket loan = ledger.lend(lender, borrower);
        assertEquals(8, borrower.value(), 1e-9);
        ledger.remove(borrower);
        ledger.repay(loan);                              // the borrower's removal detached it already
        assertEquals(0, graph.base().activeAmount());
        ClientNode next = ledger.newClient("next", graph.base(), 2);
        assertEquals(borrower.id(), next.id());
        assertEquals(0, ledger.slices(next));
        assertFalse(ledger.isRunnable(next));
        assertThrows(IllegalArgumentException.class, () -> ledger.setRunnable(borrower, true));
    }

    @Test
    void aRefusedRemoveLeavesTheLedgerAsItWas() {
        ClientNode gone = ledger.newClient("gone", graph.base(), 10);
        ledger.remove(gone);
        ClientNode next = ledger.newClient("next", graph.base(), 10);
        assertEquals(gone.id(), next.id(), "the id is reused");
        ledger.setRunnable(next, true);
        assertThrows(IllegalArgumentException.class, () -> ledger.remove(gone));
        CurrencyGraph otherGraph = new CurrencyGraph();
        ClientNode foreign = new ShareLedger(otherGraph, new StrideScheduler()).newClient("foreign", otherGraph.base(), 10);
        assertEquals(next.id(), foreign.id());
        assertThrows(IllegalArgumentException.class, () -> ledger.remove(foreign));
        assertEquals(1, ledger.runnableCount());
        assertTrue(ledger.isRunnable(next), "next still has queued work");
    }
}
