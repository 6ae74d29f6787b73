package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * A client that cannot get its share where picks happen (its CPU mask) leaves the others served
 * faster than the global stride, taken from every competing worth, stands for. The global pass must
 * keep up with the clients served, or their passes run ahead of it without bound: a client that
 * joins afterwards would start at globalPass + stride, far behind them, and take every pick it could
 * until it had caught up (a burst as long as the restriction had lasted, not one quantum), and the
 * served clients' lags would reach MAX_LAG, where their charges saturate.
 */
class StrideGlobalPassFollowsServedClientsTest {
    private static final long QUANTUM = 1_000_000;

    /**
     * Two workers. Client 0 (worth 3) may run on worker 0 only, so it gets that whole worker and no
     * more; client 1 (worth 1) gets worker 1. Then client 2 (worth 1, like client 1) joins: max-min,
     * client 0 keeps worker 0, and clients 1 and 2 should split worker 1 evenly from the start.
     */
    @Test
    void aClientJoiningAfterARestrictedPeriodShouldShareEvenlyWithItsEqual() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 3);
        stride.join(1, 1);
        IntPredicate worker0 = client -> true;
        IntPredicate worker1 = client -> client != 0;
        for (int round = 0; round < 10_000; round++) {       // 10 s of two workers at 1 ms
            stride.charge(stride.pick(worker0), QUANTUM, QUANTUM);
            stride.charge(stride.pick(worker1), QUANTUM, QUANTUM);
        }
        stride.join(2, 1);
        long[] won = new long[3];
        for (int round = 0; round < 200; round++) {
            int a = stride.pick(worker0);
            won[a]++;
            stride.charge(a, QUANTUM, QUANTUM);
            int b = stride.pick(worker1);
            won[b]++;
            stride.charge(b, QUANTUM, QUANTUM);
        }
        assertTrue(Math.abs(won[1] - won[2]) <= 2,
                "clients 1 and 2 (equal values) should split worker 1 within the stride bound; client 1 won "
                        + won[1] + ", client 2 won " + won[2] + " of 200 (client 1's lag "
                        + stride.remain(1) / stride.stride(1) + " quanta ahead of the global pass)");
    }

    /**
     * One worker; client 1 is never eligible (the contract: it "does not change how the others
     * share"). Client 0 runs alone; then client 2, worth the same, joins and should share 1:1.
     */
    @Test
    void aNeverEligibleClientShouldNotGiveALaterJoinerABurst() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 100);
        stride.join(1, 100);
        IntPredicate worker = client -> client != 1;
        for (int q = 0; q < 10_000; q++) {
            stride.charge(stride.pick(worker), QUANTUM, QUANTUM);
        }
        stride.join(2, 100);
        long[] won = new long[3];
        for (int q = 0; q < 200; q++) {
            int c = stride.pick(worker);
            won[c]++;
            stride.charge(c, QUANTUM, QUANTUM);
        }
        assertTrue(Math.abs(won[0] - won[2]) <= 2,
                "clients 0 and 2 (equal values) should share within the stride bound; client 0 won "
                        + won[0] + ", client 2 won " + won[2] + " of 200");
    }

    /**
     * The same drift, left to run, takes the served clients' lags to MAX_LAG, where every charge is
     * saturated: from then on their passes no longer follow their strides, and clients worth 1 and 2
     * alternate 1:1. Slices of 1,024 quanta get there within 2^15 charges.
     */
    @Test
    void servedClientsShouldKeepTheirRatioWhileARestrictedClientWaits() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);                                   // never eligible here
        stride.join(2, 2);
        IntPredicate worker = client -> client != 1;
        for (int i = 0; i < 40_000; i++) {                   // 41 M quanta: 11 h of one worker at 1 ms
            stride.charge(stride.pick(worker), 1024 * QUANTUM, QUANTUM);
        }
        long[] won = new long[3];
        for (int i = 0; i < 3_000; i++) {                    // slices of 1,024 quanta, as before
            int c = stride.pick(worker);
            won[c]++;
            stride.charge(c, 1024 * QUANTUM, QUANTUM);
        }
        assertTrue(Math.abs(won[2] - 2 * won[0]) <= 3,
                "client 2 (worth 2) should win twice as often as client 0 (worth 1), counting slices; won " + won[0] + " and " + won[2]
                        + ", lags " + stride.remain(0) + " and " + stride.remain(2) + " (MAX_LAG " + StrideScheduler.MAX_LAG + ")");
    }
}
