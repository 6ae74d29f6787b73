package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * ShareScheduler.pick(IntPredicate): "a client that may run on few workers gets its share there, up to
 * all of them, and the others get the rest (max-min). A client never eligible anywhere does not change
 * how the others share." Workers pick in turn; every winner uses a full quantum (no compensation).
 * Fixed seeds: deterministic. Tolerance 0.02 is over 25 standard deviations of a share measured over
 * 300,000 picks (sqrt(p(1-p)/n) < 0.001).
 */
class LotteryCappedClientShareTest {
    private static final int PICKS = 300_000;
    private static final int[] EVERY = {};

    /** Shares of the picks; allowed[c] empty = every worker, null = no worker. */
    private static double[] shares(ShareScheduler s, int workers, double[] values, int[][] allowed) {
        for (int c = 0; c < values.length; c++) {
            s.setValue(c, values[c]);
        }
        SplittableRandom random = new SplittableRandom(42);
        long[] won = new long[values.length];
        for (int i = 0; i < PICKS; i++) {
            int worker = i % workers;
            IntPredicate eligible = c -> {
                if (allowed[c] == null) {
                    return false;
                }
                if (allowed[c].length == 0) {
                    return true;
                }
                for (int w : allowed[c]) {
                    if (w == worker) {
                        return true;
                    }
                }
                return false;
            };
            int picked = s.pick(eligible, random);
            if (picked >= 0) {
                won[picked]++;
                s.charge(picked, 1_000_000, 1_000_000);
            }
        }
        double[] shares = new double[values.length];
        for (int c = 0; c < values.length; c++) {
            shares[c] = won[c] / (double) PICKS;
        }
        return shares;
    }

    @Test
    void aClientNeverEligibleDoesNotChangeHowTheOthersShare() {
        // Without client 0: client 1 (value 1, worker 0 only) has 1/4 of the pool, half of worker 0,
        // client 2 (value 3, anywhere) the rest. Client 0 (value 10) may run nowhere.
        double[] s = shares(new LotteryScheduler(new SplittableRandom(1)), 2,
                new double[] {10, 1, 3}, new int[][] {null, {0}, EVERY});
        assertEquals(0.25, s[1], 0.02, "restricted client 1's share of the pool");
        assertEquals(0.75, s[2], 0.02, "free client 2's share of the pool");
    }

    @Test
    void aClientCappedByItsCpusLeavesTheRestToTheOthersInProportion() {
        // Three workers. Client 0 (value 10, worker 2 only) wants 10/13 of the pool and is capped at
        // worker 2 (1/3). The other 2/3 go to client 1 (value 1, worker 0 only) and client 2 (value
        // 2, anywhere) as 1 : 2: 2/9 and 4/9; client 1's 2/9 fits in worker 0. Stride gives exactly that.
        int[][] allowed = {{2}, {0}, EVERY};
        double[] values = {10, 1, 2};
        double[] stride = shares(new StrideScheduler(), 3, values, allowed);
        assertEquals(2 / 9.0, stride[1], 0.02, "stride: restricted client 1");
        double[] lottery = shares(new LotteryScheduler(new SplittableRandom(1)), 3, values, allowed);
        assertEquals(1 / 3.0, lottery[0], 0.02, "lottery: capped client 0");
        assertEquals(2 / 9.0, lottery[1], 0.02, "lottery: restricted client 1");
        assertEquals(4 / 9.0, lottery[2], 0.02, "lottery: free client 2");
    }
}
