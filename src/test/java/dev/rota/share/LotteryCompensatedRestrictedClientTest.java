package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * A restricted client that uses a tenth of each quantum it wins should still get its share of the
 * pool's CPU time (README: "it still gets its share of the whole pool, all of it on those CPUs, as far
 * as they have room"; LotteryScheduler: a client charged f of its quantum competes with value × 1/f
 * until its next win, so its CPU time stays proportional to its value). Virtual time, two workers:
 * the worker that is free first picks, and the winner runs for what it uses. Client 0 (value 1,
 * worker 0 only, uses 0.1 quantum per win), client 1 (value 1, anywhere, full quanta), client 2
 * (value 2, anywhere, full quanta). Shares of CPU time: 1/4, 1/4, 1/2; client 0's quarter is half of
 * worker 0, so it has room. Fixed seeds: deterministic.
 */
class LotteryCompensatedRestrictedClientTest {
    private static final long QUANTUM = 1_000_000;

    private static double[] cpuShares(ShareScheduler s) {
        double[] values = {1, 1, 2};
        double[] fraction = {0.1, 1, 1};
        for (int c = 0; c < values.length; c++) {
            s.setValue(c, values[c]);
        }
        SplittableRandom random = new SplittableRandom(42);
        long[] free = new long[2];
        double[] cpu = new double[values.length];
        double total = 0;
        for (int i = 0; i < 400_000; i++) {
            int worker = free[1] < free[0] ? 1 : 0;
            IntPredicate eligible = c -> c != 0 || worker == 0;
            int picked = s.pick(eligible, random);
            long used = (long) (fraction[picked] * QUANTUM);
            s.charge(picked, used, QUANTUM);
            cpu[picked] += used;
            total += used;
            free[worker] += used;
        }
        for (int c = 0; c < cpu.length; c++) {
            cpu[c] /= total;
        }
        return cpu;
    }

    @Test
    void strideGivesTheRestrictedShortClientItsShare() {
        assertEquals(0.25, cpuShares(new StrideScheduler())[0], 0.02);
    }

    @Test
    void lotteryGivesTheRestrictedShortClientItsShare() {
        double[] shares = cpuShares(new LotteryScheduler(new SplittableRandom(1)));
        assertEquals(0.25, shares[0], 0.02, "restricted client 0's share of CPU time");
        assertEquals(0.25, shares[1], 0.02, "client 1's share of CPU time");
    }
}
