package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Picks restricted to eligible clients (a worker outside some clients' CPU masks). Where some clients
 * are never eligible, each policy chooses among the others exactly as it would if those did not
 * compete. Where a client may run on some workers only, it gets its share of the whole pool as far
 * as those workers allow, and the others share the rest in proportion (max-min).
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

    static Stream<Arguments> policies() {
        return Stream.of(
                Arguments.of("stride", (Supplier<ShareScheduler>) StrideScheduler::new),
                Arguments.of("lottery", (Supplier<ShareScheduler>) () -> new LotteryScheduler(new SplittableRandom(3))));
    }

    /**
     * Two workers take turns to pick {@code picks} times in all, each charging a full quantum; client
     * 0 may use only the first. Returns wins[worker][client], after checking that the second worker
     * never served client 0.
     */
    private static long[][] takeTurns(ShareScheduler scheduler, int clients, int picks, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        IntPredicate firstWorker = client -> true;
        IntPredicate secondWorker = client -> client != 0;
        long[][] wins = new long[2][clients];
        for (int pick = 0; pick < picks; pick++) {
            int worker = pick % 2;
            int winner = scheduler.pick(worker == 0 ? firstWorker : secondWorker, random);
            assertTrue(worker == 0 || winner != 0, "the second worker served the restricted client");
            wins[worker][winner]++;
            scheduler.charge(winner, QUANTUM, QUANTUM);
        }
        return wins;
    }

    /**
     * Client 0 (worth 1 of 4) may use only the first of two workers. It needs half of that worker for
     * its quarter of the pool, which the worker has room for, so every client gets its share of the
     * whole pool: 1/4, 1/4 and 1/2, within the policy's bound.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aRestrictedClientGetsItsShareOfThePoolWhereItsWorkersHaveRoom(String name, Supplier<ShareScheduler> policy) {
        ShareScheduler scheduler = policy.get();
        scheduler.join(0, 1);
        scheduler.join(1, 1);
        scheduler.join(2, 2);
        int n = 100_000;
        long[][] wins = takeTurns(scheduler, 3, n, 8);
        long[] won = new long[3];
        for (int client = 0; client < 3; client++) {
            won[client] = wins[0][client] + wins[1][client];
        }
        assertSharesOfThePool(name, won, 0.25, 0.25, 0.5);
    }

    /**
     * Each client's wins of all the picks within its policy's bound of its share: for lottery 5
     * binomial standard deviations; for stride, which is deterministic, one quantum per client
     * (its absolute error is O(clients), at most one quantum per pair).
     */
    private static void assertSharesOfThePool(String name, long[] won, double... shares) {
        long n = java.util.Arrays.stream(won).sum();
        for (int client = 0; client < shares.length; client++) {
            double p = shares[client];
            double bound = name.equals("stride") ? shares.length : 5 * Math.sqrt(n * p * (1 - p));
            assertTrue(Math.abs(won[client] - n * p) <= bound,
                    name + ": client " + client + " won " + won[client] + " of " + n + ", entitled " + n * p + " ± " + bound);
        }
    }

    /**
     * Client 0 is worth 3 of 4 but may use only the first of two workers: it cannot have its share,
     * so it gets all of that worker (bar a rare draw) and client 1 gets the whole second worker.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aRestrictedClientThatCannotHaveItsShareGetsAllOfItsWorkers(String name, Supplier<ShareScheduler> policy) {
        ShareScheduler scheduler = policy.get();
        scheduler.join(0, 3);
        scheduler.join(1, 1);
        int n = 100_000;
        long firstWorkerForClient0 = takeTurns(scheduler, 2, n, 9)[0][0];
        assertTrue(firstWorkerForClient0 >= 0.99 * (n / 2),
                name + ": the restricted client had " + firstWorkerForClient0 + " of the first worker's " + n / 2 + " picks");
    }

    /**
     * Client 0 (worth 1 of 4) may use only the first of two workers and client 1 (worth 1 of 4) only
     * the second; client 2 (worth 2 of 4) may use both. Each restricted client needs half of its
     * worker, which it has room for, so every client gets its share of the whole pool: 1/4, 1/4 and
     * 1/2, within the policy's bound. A pick on one worker that the other restricted
     * client drew must not be a free win for this one.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void twoClientsRestrictedToDifferentWorkersGetTheirSharesOfThePool(String name, Supplier<ShareScheduler> policy) {
        ShareScheduler scheduler = policy.get();
        scheduler.join(0, 1);
        scheduler.join(1, 1);
        scheduler.join(2, 2);
        IntPredicate[] workers = {client -> client != 1, client -> client != 0};
        SplittableRandom random = new SplittableRandom(10);
        int n = 100_000;
        long[] wins = new long[3];
        for (int pick = 0; pick < n; pick++) {
            IntPredicate worker = workers[pick % 2];
            int winner = scheduler.pick(worker, random);
            assertTrue(worker.test(winner), name + ": a worker served a client it may not run");
            wins[winner]++;
            scheduler.charge(winner, QUANTUM, QUANTUM);
        }
        assertSharesOfThePool(name, wins, 0.25, 0.25, 0.5);
    }

    /** A win owed to a restricted client is paid on a worker it may use, and lapses when forgiven or when it leaves. */
    @Test
    void lotteryPaysAWinOwedForADrawWhereTheClientCouldNotRunUntilForgiven() {
        LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(1));
        lottery.join(0, 1_000_000);
        lottery.join(1, 1);
        assertEquals(1, lottery.pick(client -> client != 0), "the draw falls on client 0, which may not run here");
        assertEquals(1, lottery.deferredWins(0));
        assertEquals(-1, lottery.deferredWins(1), "the client served in its place is advanced that win");
        for (int i = 0; i < 2 * LotteryScheduler.MAX_DEFERRED; i++) {
            lottery.pick(client -> client != 0);
        }
        assertEquals(LotteryScheduler.MAX_DEFERRED, lottery.deferredWins(0), "debts are bounded");
        assertEquals(-LotteryScheduler.MAX_DEFERRED, lottery.deferredWins(1), "advances are bounded");
        lottery.forgiveCredit(0);
        assertEquals(0, lottery.deferredWins(0));
        lottery.pick(client -> client != 0);
        lottery.setValue(0, 0);                          // leaves: it had no work to use what it was owed
        assertEquals(0, lottery.deferredWins(0));
        lottery.join(0, 1);
        lottery.join(2, 1_000_000);
        lottery.pick(client -> client != 2);
        assertEquals(1, lottery.deferredWins(2));
        lottery.join(1, 1_000_000_000);                  // now nearly every draw is client 1's
        assertEquals(2, lottery.pick(client -> true), "the owed client is paid before the drawn one");
        assertEquals(0, lottery.deferredWins(2));
        assertEquals(1 - LotteryScheduler.MAX_DEFERRED, lottery.deferredWins(1),
                "the drawn client gave its win up: one of the wins it was advanced is repaid");
    }
}
