package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A group fed in bursts leaves the ledger each time it runs dry and comes back with its next task,
 * under the dispatcher's lock, as often as its bursts come. Those steps (the currency graph's
 * activity and values, the policy's join and leave) and the decisions between them allocate nothing
 * once the ledger's arrays have grown to the groups it holds: an allocation there would be garbage
 * made per burst, under the lock that every worker's slice end takes.
 */
class ActivationAllocationTest {
    private static final long QUANTUM = 1_000_000;
    private static final int WARM_UP_CYCLES = 5_000;
    private static final int MEASURED_CYCLES = 50_000;

    @ParameterizedTest
    @ValueSource(strings = {"stride", "lottery"})
    void groupsGoingIdleAndComingBackAllocateNothing(String policy) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "this JVM does not count a thread's allocations");
        threads.setThreadAllocatedMemoryEnabled(true);

        ShareScheduler scheduler = policy.equals("stride") ? new StrideScheduler() : new LotteryScheduler(new SplittableRandom(3));
        CurrencyGraph graph = new CurrencyGraph();
        ShareLedger ledger = new ShareLedger(graph, scheduler);
        // Two groups in a currency of their own and one on the base: when the currency's last active
        // group leaves, the currency's backing ticket goes inactive too, and the base group's share
        // of the pool changes with it.
        CurrencyNode tiers = ledger.newCurrency("tiers", graph.base(), 500);
        ClientNode[] clients = {
            ledger.newClient("gold", tiers, 300),
            ledger.newClient("silver", tiers, 200),
            ledger.newClient("bronze", graph.base(), 100),
        };
        for (ClientNode client : clients) {
            ledger.setRunnable(client, true);
        }
        SplittableRandom random = new SplittableRandom(5);
        Cycles cycles = new Cycles(ledger, clients, random);

        cycles.run(WARM_UP_CYCLES);
        long before = threads.getCurrentThreadAllocatedBytes();
        cycles.run(MEASURED_CYCLES);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertEquals(clients.length, ledger.runnableCount(), "every group is back in the ledger");
        assertTrue(allocated < MEASURED_CYCLES,
                () -> policy + ": " + allocated + " bytes allocated over " + MEASURED_CYCLES
                        + " cycles of a group leaving and coming back with a decision between");
    }

    /** Each cycle: one group runs dry and leaves, a slice of another is picked and charged, the first comes back. */
    private record Cycles(ShareLedger ledger, ClientNode[] clients, SplittableRandom random) {
        void run(int n) {
            for (int i = 0; i < n; i++) {
                ClientNode leaving = clients[i % clients.length];
                ledger.setRunnable(leaving, false);
                int id = ledger.pick(c -> true, random);
                ClientNode picked = clientWithId(id);
                ledger.sliceStarted(picked);
                ledger.sliceEnded(picked, QUANTUM / 2 + random.nextLong(QUANTUM), QUANTUM);
                ledger.setRunnable(leaving, true);
            }
        }

        private ClientNode clientWithId(int id) {
            for (ClientNode client : clients) {
                if (client.id() == id) {
                    return client;
                }
            }
            throw new AssertionError("picked an unknown client: " + id);
        }
    }
}
