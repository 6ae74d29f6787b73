package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What both policies promise behind {@link ShareScheduler}, driven from a {@link CurrencyGraph} the
 * way the pool and the simulator drive them: graph change, drain, pick, charge.
 */
class ShareSchedulerContractTest {
    private static final long QUANTUM = 1_000_000;

    /** How far a client's quanta may stray from n·p in one run, for each policy. */
    private interface Bound {
        double quanta(long n, double p, int clients);
    }

    static Stream<Arguments> schedulers() {
        Supplier<ShareScheduler> stride = StrideScheduler::new;
        Supplier<ShareScheduler> lottery = () -> new LotteryScheduler(new SplittableRandom(8));
        // Stride: within a quantum per client (absolute error O(clients)), plus the lag a client
        // carries into a new phase. Lottery: binomial, 4 standard deviations.
        Bound strideBound = (n, p, clients) -> 2.0 * clients;
        Bound lotteryBound = (n, p, clients) -> 4 * Math.sqrt(n * p * (1 - p)) + 1;
        return Stream.of(Arguments.of("stride", stride, strideBound), Arguments.of("lottery", lottery, lotteryBound));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("schedulers")
    void shouldPickOnlyCompetingClients(String name, Supplier<ShareScheduler> factory, Bound bound) {
        ShareScheduler scheduler = factory.get();
        assertEquals(ShareScheduler.NONE, scheduler.pick());
        scheduler.join(3, 1);
        scheduler.join(6, 1);
        scheduler.leave(3);
        for (int i = 0; i < 100; i++) {
            int picked = scheduler.pick();
            assertEquals(6, picked);
            scheduler.charge(picked, QUANTUM, QUANTUM);
        }
        scheduler.charge(3, QUANTUM, QUANTUM); // a batch that ended after the client left
        scheduler.remove(6);
        scheduler.remove(6);
        assertEquals(ShareScheduler.NONE, scheduler.pick());
        scheduler.join(3, 2);
        assertEquals(3, scheduler.pick());
    }

    /**
     * Load insulation in CPU time: A and B are funded equally by the base; when B issues a third
     * ticket, A's clients keep their CPU time and B's three share B's half.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedulers")
    void shouldDivideCpuTimeByCurrencyValues(String name, Supplier<ShareScheduler> factory, Bound bound) {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode a = graph.newCurrency("A", graph.base(), 100);
        CurrencyNode b = graph.newCurrency("B", graph.base(), 100);
        ClientNode[] clients = {
            graph.newClient("100.A", a, 100), graph.newClient("200.A", a, 200),
            graph.newClient("100.B", b, 100), graph.newClient("200.B", b, 200),
        };
        for (ClientNode client : clients) {
            graph.activate(client);
        }
        ShareScheduler scheduler = factory.get();
        graph.drainChanged(scheduler);
        checkShares(scheduler, clients, new double[] {1 / 6.0, 2 / 6.0, 1 / 6.0, 2 / 6.0}, 60_000, bound);

        ClientNode b3 = graph.newClient("300.B", b, 300);
        graph.activate(b3);
        graph.drainChanged(scheduler);
        ClientNode[] withB3 = {clients[0], clients[1], clients[2], clients[3], b3};
        checkShares(scheduler, withB3, new double[] {1 / 6.0, 2 / 6.0, 1 / 12.0, 2 / 12.0, 3 / 12.0}, 60_000, bound);

        graph.remove(b3);
        graph.deactivate(clients[2]);
        graph.drainChanged(scheduler);
        for (int i = 0; i < 1_000; i++) {
            int picked = scheduler.pick();
            assertNotEquals(b3.id(), picked);
            assertNotEquals(clients[2].id(), picked);
            scheduler.charge(picked, QUANTUM, QUANTUM);
        }
    }

    private static void checkShares(ShareScheduler scheduler, ClientNode[] clients, double[] shares, int n,
                                    Bound bound) {
        long[] quanta = new long[16];
        for (int i = 0; i < n; i++) {
            int picked = scheduler.pick();
            quanta[picked]++;
            scheduler.charge(picked, QUANTUM, QUANTUM);
        }
        for (int i = 0; i < clients.length; i++) {
            double ideal = n * shares[i];
            double limit = bound.quanta(n, shares[i], clients.length);
            long got = quanta[clients[i].id()];
            assertTrue(Math.abs(got - ideal) <= limit,
                    clients[i].name() + " ran " + got + " quanta, ideal " + ideal + " ± " + limit);
        }
    }
}
