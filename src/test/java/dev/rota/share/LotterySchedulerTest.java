package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LotterySchedulerTest {
    private static final long QUANTUM = 1_000_000;

    /** Wins are binomial: within n·p ± 4·sqrt(n·p·(1 − p)) for every client. */
    @Test
    void shouldWinInProportionToValue() {
        int[] ids = {2, 5, 9, 11};
        double[] values = {1, 2, 3, 4};
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(1234));
        for (int i = 0; i < ids.length; i++) {
            lottery.join(ids[i], values[i]);
        }
        int n = 200_000;
        long[] wins = new long[12];
        for (int draw = 0; draw < n; draw++) {
            int winner = lottery.pick();
            wins[winner]++;
            lottery.charge(winner, QUANTUM, QUANTUM); // whole quanta: no compensation
        }
        for (int i = 0; i < ids.length; i++) {
            double p = values[i] / 10;
            double mean = n * p;
            double bound = 4 * Math.sqrt(n * p * (1 - p));
            long won = wins[ids[i]];
            assertTrue(Math.abs(won - mean) <= bound,
                    "client " + ids[i] + " won " + won + ", expected " + mean + " ± " + bound);
        }
    }

    @Test
    void shouldDrawFromACallerSuppliedSourceReproducibly() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(0));
        lottery.join(0, 1);
        lottery.join(1, 1);
        lottery.join(2, 1);
        SplittableRandom first = new SplittableRandom(42);
        SplittableRandom second = new SplittableRandom(42);
        for (int i = 0; i < 1_000; i++) {
            assertEquals(lottery.pick(first), lottery.pick(second));
        }
    }

    /**
     * Client A (value 1) always uses a whole quantum; client B (value 2) uses a quarter. B competes
     * with 2 × 4 = 8 after each run, so once B has run, every draw is A's with p = 1/9, and B's four
     * times more frequent quarter quanta give it twice A's CPU time, as its value says.
     *
     * <p>Bound: let m be A's wins before B's first win and X ~ Bin(n − m − 1, 1/9) A's wins after it.
     * CPU_A = (m + X)·q and CPU_B = (n − m − X)·q/4, so CPU_B − 2·CPU_A = q·(1/4 − 2m − 9/4·(X − E[X])),
     * and |CPU_B − 2·CPU_A| ≤ q·(1/4 + 2m + 9/4 · 4σ) with σ = sqrt((n − m − 1)·(1/9)·(8/9)).
     * Without compensation B would get only half of A's time instead.
     */
    @Test
    void shouldGiveCpuTimeInProportionToValueWhenAClientUsesAQuarterQuantum() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(77));
        int a = 0;
        int b = 1;
        lottery.join(a, 1);
        lottery.join(b, 2);
        int n = 200_000;
        long cpuA = 0;
        long cpuB = 0;
        long winsOfABeforeB = -1;
        for (int draw = 0; draw < n; draw++) {
            int winner = lottery.pick();
            long used = winner == a ? QUANTUM : QUANTUM / 4;
            lottery.charge(winner, used, QUANTUM);
            if (winner == a) {
                cpuA += used;
            } else {
                cpuB += used;
                if (winsOfABeforeB < 0) {
                    winsOfABeforeB = draw;
                }
            }
        }
        long m = winsOfABeforeB;
        double sigma = Math.sqrt((n - m - 1) * (1.0 / 9) * (8.0 / 9));
        double bound = QUANTUM * (0.25 + 2 * m + 9.0 / 4 * 4 * sigma);
        double deviation = cpuB - 2.0 * cpuA;
        assertTrue(Math.abs(deviation) <= bound, "CPU_B − 2·CPU_A = " + deviation + ", bound " + bound);
        double ratio = (double) cpuB / cpuA;
        assertTrue(ratio > 1.9 && ratio < 2.1, "B/A CPU ratio " + ratio);
    }

    /**
     * Three clients worth 3 : 2 : 1 that always use a whole quantum win in that proportion: each
     * client's wins within n·p ± 4·sqrt(n·p·(1 − p)) of n seeded draws.
     */
    @Test
    void shouldDivideWholeQuantaThreeToTwoToOne() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(31));
        double[] values = {3, 2, 1};
        for (int client = 0; client < values.length; client++) {
            lottery.join(client, values[client]);
        }
        int n = 300_000;
        long[] wins = new long[3];
        for (int draw = 0; draw < n; draw++) {
            int winner = lottery.pick();
            wins[winner]++;
            lottery.charge(winner, QUANTUM, QUANTUM);
        }
        for (int client = 0; client < values.length; client++) {
            double p = values[client] / 6;
            double bound = 4 * Math.sqrt(n * p * (1 - p));
            assertTrue(Math.abs(wins[client] - n * p) <= bound,
                    "client " + client + " won " + wins[client] + ", expected " + n * p + " ± " + bound);
        }
    }

    /**
     * Three clients worth 3 : 2 : 1, the last of which uses a quarter of its quantum each time, get
     * CPU time 3 : 2 : 1. Once client 2 has run, it competes with 1 × 4 after every run of its own
     * (its compensation ends at its win and comes back at its charge), so every draw from then on is
     * client i's with p = 3/9, 2/9, 4/9 independently: client i's CPU time over those N draws is
     * q_i × Bin(N, p_i), q_i its time per win, with mean N·q_i·p_i = N·q × 3/9, 2/9, 1/9 and standard
     * deviation q_i·sqrt(N·p_i·(1 − p_i)); each must lie within 4 of those. Without compensation
     * client 2 would get a quarter of its time instead, 1/4 × N·q/6, far outside that bound.
     */
    @Test
    void shouldGiveCpuTimeThreeToTwoToOneWhenOneClientUsesAQuarterQuantum() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(32));
        lottery.join(0, 3);
        lottery.join(1, 2);
        lottery.join(2, 1);
        long[] perWin = {QUANTUM, QUANTUM, QUANTUM / 4};
        int n = 300_000;
        long[] cpu = new long[3];
        boolean counting = false;
        long counted = 0;
        for (int draw = 0; draw < n; draw++) {
            int winner = lottery.pick();
            lottery.charge(winner, perWin[winner], QUANTUM);
            if (counting) {
                cpu[winner] += perWin[winner];
                counted++;
            }
            counting |= winner == 2;                     // from here on, client 2 is compensated
        }
        double[] p = {3.0 / 9, 2.0 / 9, 4.0 / 9};
        for (int client = 0; client < 3; client++) {
            double mean = counted * p[client] * perWin[client];
            double bound = 4 * perWin[client] * Math.sqrt(counted * p[client] * (1 - p[client]));
            assertTrue(Math.abs(cpu[client] - mean) <= bound,
                    "client " + client + " ran " + cpu[client] + " ns, expected " + mean + " ± " + bound);
        }
        double total = cpu[0] + cpu[1] + cpu[2];
        assertEquals(1.0 / 6, cpu[2] / total, 0.005, "client 2's share of the CPU time");
    }

    /**
     * A slice charged in parts (a join that yielded charges the time so far) is compensated for what
     * the whole slice used: one that used its quantum and then a little more is owed nothing.
     */
    @Test
    void shouldCompensateASliceChargedInPartsForTheWholeSlice() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(1));
        lottery.join(4, 3);
        lottery.join(5, 3);
        lottery.charge(4, QUANTUM, QUANTUM);             // the part charged while the slice ran
        lottery.chargeSliceEnd(4, QUANTUM / 10, QUANTUM + QUANTUM / 10, QUANTUM);
        assertEquals(1 / 1.1, lottery.compensation(4), 1e-12, "1.1 quanta used: deflated, as any overrun");
        assertEquals(3 / 1.1, lottery.weight(4), 1e-12);
        assertTrue(lottery.treeConsistent());

        lottery.chargeSliceEnd(5, QUANTUM / 4, QUANTUM / 4, QUANTUM);
        assertEquals(4, lottery.compensation(5), "a slice charged at its end only, as charge does");
        assertMessage("a slice's time must include the part charged at its end: 5 < 6",
                () -> lottery.chargeSliceEnd(5, 6, 5, QUANTUM));
        assertEquals(4, lottery.compensation(5), "a refused charge changes nothing");
    }

    @Test
    void shouldCompensateUntilTheNextWin() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(1));
        lottery.join(4, 3);
        lottery.charge(4, QUANTUM / 4, QUANTUM);
        assertEquals(4, lottery.compensation(4));
        assertEquals(12, lottery.weight(4));
        assertEquals(12, lottery.totalWeight());
        assertEquals(4, lottery.pick());
        assertEquals(1, lottery.compensation(4)); // its new quantum starts
        assertEquals(3, lottery.weight(4));

        lottery.charge(4, 0, QUANTUM);
        assertEquals(1024, lottery.compensation(4)); // clamped at 1/MIN_FRACTION
        lottery.charge(4, 2 * QUANTUM, QUANTUM);
        assertEquals(0.5, lottery.compensation(4)); // an overrun deflates alike

        lottery.charge(4, QUANTUM / 5, QUANTUM);
        lottery.leave(4);
        assertEquals(0, lottery.weight(4));
        lottery.join(4, 3);
        assertEquals(15, lottery.weight(4), 1e-9); // kept across a leave, as for a blocked thread
        lottery.remove(4);
        lottery.join(4, 3);
        assertEquals(3, lottery.weight(4));
    }

    @Test
    void shouldKeepTheTreeConsistentUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(2024);
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(2025));
        for (int step = 0; step < 50_000; step++) {
            int client = random.nextInt(40);
            switch (random.nextInt(6)) {
                case 0, 1 -> lottery.setValue(client, 1 + random.nextInt(100) * random.nextDouble());
                case 2 -> lottery.leave(client);
                case 3 -> lottery.remove(client);
                case 4 -> {
                    if (lottery.isCompeting(client)) {
                        lottery.charge(client, random.nextLong(2 * QUANTUM), QUANTUM);
                    }
                }
                default -> {
                    int winner = lottery.pick();
                    assertTrue(winner == ShareScheduler.NONE ? lottery.competing() == 0 : lottery.isCompeting(winner));
                }
            }
            assertTrue(lottery.treeConsistent(), () -> "tree inconsistent at step");
            double brute = 0;
            int competing = 0;
            for (int id = 0; id < 40; id++) {
                brute += lottery.weight(id);
                competing += lottery.isCompeting(id) ? 1 : 0;
            }
            assertEquals(brute, lottery.totalWeight(), 1e-9 * Math.max(1, brute));
            assertEquals(competing, lottery.competing());
        }
    }

    @Test
    void shouldReturnNoneWhenNobodyCompetes() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(1));
        assertEquals(ShareScheduler.NONE, lottery.pick());
        lottery.join(3, 1);
        lottery.leave(3);
        assertFalse(lottery.isCompeting(3));
        assertEquals(ShareScheduler.NONE, lottery.pick());
        assertEquals(0, lottery.totalWeight());
    }

    /**
     * A pick for a worker that may serve none of the competing clients returns NONE and changes
     * nothing: no client is owed a win that nobody took. So a scheduler that made such a pick picks
     * afterwards exactly as one that did not, from the same random draws. A worker whose groups all
     * run elsewhere picks NONE each time it looks for work; had those picks owed wins, its idle
     * spells would hand the clients drawn extra quanta on their own workers.
     *
     * <p>Client 0 is worth almost all of the total while the idle worker picks, so the draw that
     * worker makes lands on it; the values are then made equal in both schedulers. An owed win
     * would show at once: client 0 paid in place of the first draw of client 1.
     */
    @Test
    void shouldOweNothingForAPickNobodyTook() {
        LotteryScheduler idled = lopsidedPair();
        LotteryScheduler untouched = lopsidedPair();
        assertEquals(ShareScheduler.NONE, idled.pick(new SplittableRandom(99), client -> false));
        for (LotteryScheduler lottery : List.of(idled, untouched)) {
            lottery.setValue(0, 1);
            lottery.setValue(1, 1);
        }
        SplittableRandom first = new SplittableRandom(5);
        SplittableRandom second = new SplittableRandom(5);
        for (int i = 0; i < 1_000; i++) {
            int picked = idled.pick(first, client -> true);
            assertEquals(untouched.pick(second, client -> true), picked, "pick " + i);
            idled.charge(picked, QUANTUM, QUANTUM);
            untouched.charge(picked, QUANTUM, QUANTUM);
        }
    }

    /** Clients 0 and 1, worth 10^6 and 1. */
    private static LotteryScheduler lopsidedPair() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(0));
        lottery.join(0, 1_000_000);
        lottery.join(1, 1);
        return lottery;
    }

    @Test
    void shouldRejectBadInputNamingTheValue() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(1));
        assertMessage("value must be finite and non-negative: -2.0", () -> lottery.setValue(0, -2));
        assertMessage("client id must not be negative: -1", () -> lottery.setValue(-1, 1));
        assertMessage("client 7 is not scheduled", () -> lottery.charge(7, 1, 1));
        lottery.join(7, 1);
        assertMessage("used time must not be negative: -4", () -> lottery.charge(7, -4, 1));
        assertMessage("quantum must be positive: -1", () -> lottery.charge(7, 1, -1));
    }

    private static void assertMessage(String message, Runnable action) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, action::run).getMessage());
    }
}
