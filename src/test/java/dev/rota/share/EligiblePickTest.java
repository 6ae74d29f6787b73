package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * Picks restricted to eligible clients (a worker outside some clients' CPU masks): each policy must
 * choose among the eligible clients exactly as it would if the others did not compete.
 */
class EligiblePickTest {
    private static final long QUANTUM = 1_000_000;

    /** Stride: the eligible client of least pass, found however deep in the heap it sits. */
    @Test
    void strideShouldPickTheEligibleClientOfLeastPass() {
        StrideScheduler stride = new StrideScheduler();
        SplittableRandom random = new SplittableRandom(5);
        for (int client = 0; client < 40; client++) {
            stride.join(client, 1 + random.nextInt(20));
        }
        for (int step = 0; step < 5_000; step++) {
            int modulus = 2 + random.nextInt(7);
            int residue = random.nextInt(modulus);
            IntPredicate eligible = client -> client % modulus == residue;
            int expected = -1;
            for (int client = 0; client < 40; client++) {
                if (eligible.test(client) && (expected < 0 || before(stride, client, expected))) {
                    expected = client;
                }
            }
            int picked = stride.pick(eligible);
            assertEquals(expected, picked, "step " + step);
            stride.charge(picked, 1 + random.nextLong(QUANTUM), QUANTUM);
        }
        assertEquals(ShareScheduler.NONE, stride.pick(client -> false));
        assertEquals(stride.pick(), stride.pick(client -> true));
    }

    private static boolean before(StrideScheduler stride, int a, int b) {
        long difference = stride.pass(a) - stride.pass(b);
        return difference < 0 || (difference == 0 && a < b);
    }

    /**
     * Lottery: wins among the eligible clients are binomial with p = value / (sum of the eligible
     * values), within 5 standard deviations, including where the eligible clients hold so little of
     * the total that every redraw misses and the exact draw decides.
     */
    @Test
    void lotteryShouldDrawAmongEligibleClientsInProportionToValue() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(77));
        lottery.join(0, 1);
        lottery.join(1, 3);
        lottery.join(2, 10_000);                         // ineligible, and nearly all of the total
        IntPredicate eligible = client -> client != 2;
        int n = 100_000;
        long[] wins = new long[3];
        for (int draw = 0; draw < n; draw++) {
            int winner = lottery.pick(eligible);
            wins[winner]++;
            lottery.charge(winner, QUANTUM, QUANTUM);
        }
        assertEquals(0, wins[2]);
        double p = 0.25;
        double bound = 5 * Math.sqrt(n * p * (1 - p));
        assertTrue(Math.abs(wins[0] - n * p) <= bound, "client 0 won " + wins[0] + " of " + n);
        assertEquals(ShareScheduler.NONE, lottery.pick(client -> false));
    }
}
