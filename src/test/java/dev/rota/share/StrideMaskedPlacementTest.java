package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Stride where CPU masks leave sets of workers served at different paces: each test drives a
 * {@link StrideScheduler} told of the clients' masks, worker by worker, the way the pool does (each
 * worker picks the least pass it may serve and is charged for it). A client that joins, rejoins or
 * is re-weighted is placed against the clients it shares workers with, so it neither takes every
 * turn of its workers nor waits for them; and passes that part without bound are brought together
 * without reordering them, so that clients of one set never tie.
 */
class StrideMaskedPlacementTest {
    private static final long QUANTUM = 1_000_000;

    /** Clients on workers: a scheduler told of a mutable mask per client. */
    private static final class Rig implements Placement {
        final StrideScheduler stride = new StrideScheduler();
        final int workers;
        boolean[][] allows = new boolean[0][];

        Rig(int workers) {
            this.workers = workers;
            stride.setPlacement(this);
        }

        /** Gives {@code client} its mask: the listed workers, or every worker when none is listed. */
        void place(int client, int... on) {
            if (client >= allows.length) {
                allows = Arrays.copyOf(allows, client + 1);
            }
            boolean[] flags = new boolean[workers];
            if (on.length == 0) {
                Arrays.fill(flags, true);
            }
            for (int w : on) {
                flags[w] = true;
            }
            allows[client] = flags;
        }

        /** A mask that allows no worker: the client competes but is never picked. */
        void placeNowhere(int client) {
            place(client, 0);
            allows[client][0] = false;
        }

        void join(int client, double value, int... on) {
            place(client, on);
            stride.join(client, value);
        }

        /** Worker {@code w} picks and is charged {@code quanta} for what it picked; returns that, or NONE. */
        int turn(int w, long quanta) {
            int client = stride.pick(other -> allows(other, w));
            if (client != ShareScheduler.NONE) {
                stride.charge(client, quanta * QUANTUM, QUANTUM);
            }
            return client;
        }

        /** Each worker takes one turn of {@code quanta}, in order; counts the turns each client won. */
        void rounds(int count, long quanta, long[] wins) {
            for (int r = 0; r < count; r++) {
                for (int w = 0; w < workers; w++) {
                    int client = turn(w, quanta);
                    if (client >= 0 && wins != null) {
                        wins[client]++;
                    }
                }
            }
        }

        /** Turns worker {@code w} alone takes; counts the turns each client won there. */
        long[] turnsOn(int w, int count, long quanta, int clients) {
            long[] wins = new long[clients];
            for (int i = 0; i < count; i++) {
                wins[turn(w, quanta)]++;
            }
            return wins;
        }

        @Override
        public int workers() {
            return workers;
        }

        @Override
        public boolean allows(int client, int worker) {
            return client < allows.length && allows[client] != null && allows[client][worker];
        }

        @Override
        public boolean isRestricted(int client) {
            if (client >= allows.length || allows[client] == null) {
                return false;
            }
            for (boolean allowed : allows[client]) {
                if (!allowed) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * (a) Client 0 (3) may use worker 0 only, client 1 (1) both; worker 1 serves client 1 alone, far
     * ahead of the global pass. A client of 1 that joins then splits worker 1 with client 1 from its
     * first turn, where a join at the global pass would take every turn there for a long while.
     */
    @Test
    void shouldLetAJoinerSplitTheWorkerItSharesFromItsFirstTurn() {
        Rig rig = new Rig(2);
        rig.join(0, 3, 0);
        rig.join(1, 1);
        rig.rounds(10_000, 1, null);
        rig.join(2, 1);
        long[] wins = new long[3];
        for (int r = 0; r < 200; r++) {
            assertEquals(0, rig.turn(0, 1), "worker 0 keeps serving client 0, round " + r);
            wins[rig.turn(1, 1)]++;
        }
        assertEquals(100, wins[1], 2, () -> "worker 1: " + Arrays.toString(wins));
        assertEquals(100, wins[2], 2, () -> "worker 1: " + Arrays.toString(wins));
    }

    /**
     * (b), (c) A client that may run nowhere: the others share by their values for as long as they
     * run, in slices long enough that their passes part by far more than the lags the global pass
     * bounds (they would tie there, and one would take every turn).
     */
    @Test
    void shouldKeepSharingByValueBesideAClientThatMayRunNowhere() {
        for (double[] values : new double[][] {{1, 1}, {1, 2}}) {
            Rig rig = new Rig(1);
            rig.join(0, values[0], 0);
            rig.placeNowhere(1);
            rig.stride.join(1, 1);
            rig.join(2, values[1], 0);
            long[] wins = new long[3];
            int slices = 40_000;
            for (int i = 0; i < slices; i++) {
                wins[rig.turn(0, 1_024)]++;
                double ideal = (i + 1) * values[0] / (values[0] + values[1]);
                if (Math.abs(wins[0] - ideal) > 1.5) {
                    throw new AssertionError("values " + Arrays.toString(values) + ", slice " + i
                            + ": " + Arrays.toString(wins) + ", ideal for client 0 " + ideal);
                }
            }
            assertEquals(0, wins[1]);
        }
    }

    /**
     * (d) Disjoint sets: X (1) alone on worker 1 runs far ahead; two clients of 100 share worker 0.
     * One of them idles for 10 rounds and comes back: it resumes its half of worker 0, measured
     * from the client it shares it with, not from the global pass.
     */
    @Test
    void shouldLetAClientThatIdledResumeItsShareOfItsOwnWorker() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 100, 0);
        rig.join(2, 100, 0);
        rig.rounds(1_000, 1, null);
        rig.stride.leave(2);
        rig.rounds(10, 1, null);
        rig.stride.join(2, 100);
        long[] wins = rig.turnsOn(0, 2_000, 1, 3);
        assertTrue(wins[2] >= 995 && wins[2] <= 1_010, () -> "worker 0: " + Arrays.toString(wins));
    }

    /**
     * (e) Disjoint sets: X (1) on worker 1, Y (1e6) on worker 0, whose passes advance 10^6 times
     * slower. W (1e6) joining worker 0 splits it with Y at once, where a join at the global pass
     * would wait about as long as the imbalance had lasted.
     */
    @Test
    void shouldLetAJoinerOnASlowSetSplitItAtOnce() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 1e6, 0);
        rig.rounds(1_000, 1, null);
        rig.join(2, 1e6, 0);
        long[] wins = rig.turnsOn(0, 10_000, 1, 3);
        assertEquals(5_000, wins[2], 2, () -> "worker 0: " + Arrays.toString(wins));
    }

    /**
     * (f) Disjoint sets for long: X (1) on worker 1 in slices of 1,024 quanta, far past every
     * bound of the lags; Y (1e6) and Z (2e6) on worker 0 keep 1 : 2 throughout.
     */
    @Test
    void shouldKeepTheRatioOfASlowSetWhileAFastSetRunsAway() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 1e6, 0);
        rig.join(2, 2e6, 0);
        long[] wins = new long[3];
        for (int r = 0; r < 40_000; r++) {
            assertEquals(0, rig.turn(1, 1_024));
            wins[rig.turn(0, 1_024)]++;
            double ideal = (r + 1) / 3.0;
            if (Math.abs(wins[1] - ideal) > 1.5) {
                throw new AssertionError("round " + r + ": " + Arrays.toString(wins));
            }
        }
    }

    /**
     * A worker that used to be fast: X (1) alone on worker 1 runs far ahead, then leaves; D (1e6)
     * takes worker 1, and E (1e6) joining later splits it with D at once. The reference is where
     * the worker's clients stand now, not where they stood once.
     */
    @Test
    void shouldPlaceAJoinerOnAFormerlyFastWorkerWhereItsClientsStandNow() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 1e6, 0);
        rig.rounds(5_000, 1, null);
        rig.stride.leave(0);
        rig.join(2, 1e6, 1);
        rig.rounds(1_000, 1, null);
        rig.join(3, 1e6, 1);
        long[] wins = rig.turnsOn(1, 2_000, 1, 4);
        assertEquals(1_000, wins[3], 2, () -> "worker 1: " + Arrays.toString(wins));
    }

    /**
     * A mask widened with its credit forgiven: A and C (1 each) share worker 0, B (1) has worker 1,
     * where passes advance twice as fast. C may then use both workers. Nobody is starved: C is
     * placed with B, where the passes stand highest, and A keeps worker 0 until C's pass comes
     * within reach there. A client raised to the least pass instead would take every turn of
     * worker 1 from B for about as long as the imbalance had lasted.
     */
    @Test
    void shouldStarveNobodyWhenAMaskIsWidened() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 0);
        rig.join(1, 1, 1);
        rig.join(2, 1, 0);
        rig.rounds(5_000, 1, null);
        rig.place(2);
        rig.stride.forgiveCredit(2);
        long[] onOne = rig.turnsOn(1, 1_000, 1, 3);
        assertEquals(500, onOne[1], 2, () -> "worker 1: " + Arrays.toString(onOne));
        assertEquals(500, onOne[2], 2, () -> "worker 1: " + Arrays.toString(onOne));
        long[] wins = new long[3];
        rig.rounds(30_000, 1, wins);
        for (int client = 0; client < 3; client++) {
            assertTrue(wins[client] >= 0.3 * 60_000, "client " + client + ": " + Arrays.toString(wins));
        }
    }

    /**
     * Rescales while the sets have parted far: a client of 10^10 comes and goes on worker 1 (each
     * arrival moves the scale up, each departure, after its patience, down), in slices of 64
     * quanta (short enough that no charge of Y or Z saturates at either scale), and Y : Z on
     * worker 0 stays 1 : 2 in every cycle.
     */
    @Test
    void shouldKeepTheRatioAcrossRescalesWhileSetsRunApart() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 100, 0);
        rig.join(2, 200, 0);
        rig.place(3, 1);
        long[] wins = new long[3];
        for (int cycle = 0; cycle < 40; cycle++) {
            rig.stride.join(3, 1e10);
            for (int r = 0; r < 300; r++) {
                rig.turn(1, 64);
                wins[rig.turn(0, 64)]++;
            }
            rig.stride.leave(3);
            for (int r = 0; r < 300; r++) {
                rig.turn(1, 64);
                wins[rig.turn(0, 64)]++;
            }
            double ideal = (cycle + 1) * 600 / 3.0;
            assertEquals(ideal, wins[1], 2, "cycle " + cycle + ": " + Arrays.toString(wins));
        }
    }

    /**
     * When the last restricted client leaves, the global pass takes over again at the clients'
     * passes: a client that joins then gets its share of both workers from the start, after the
     * sets had parted far.
     */
    @Test
    void shouldPlaceByTheGlobalPassAgainOnceNoClientIsRestricted() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 1);
        rig.join(2, 1);
        rig.rounds(20_000, 1_024, null);
        rig.stride.leave(0);
        rig.join(3, 1);
        long[] wins = new long[4];
        rig.rounds(3_000, 1, wins);
        for (int client = 1; client <= 3; client++) {
            assertEquals(2_000, wins[client], 3, Arrays.toString(wins));
        }
    }

    /** A re-weighted client keeps its place against the client it shares its worker with. */
    @Test
    void shouldKeepAReweightedClientsPlaceAgainstItsOwnSet() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 1e6, 0);
        rig.join(2, 1e6, 0);
        rig.rounds(2_000, 1, null);
        rig.stride.setValue(2, 3e6);
        long[] wins = rig.turnsOn(0, 4_000, 1, 3);
        assertEquals(3_000, wins[2], 2, () -> "worker 0: " + Arrays.toString(wins));
    }
    /**
     * Two clients of 100 on worker 0 go idle one after the other beside X (1), free, whose pass
     * runs far ahead on worker 1, and come back: the last to leave is measured from X, its only
     * competitor then, and must not keep the difference of the two workers' paces as credit.
     * They split worker 0 from their return.
     */
    @Test
    void shouldNotOweAReturningClientTheDifferenceOfTwoWorkersPaces() {
        Rig rig = new Rig(2);
        rig.join(0, 1);
        rig.join(1, 100, 0);
        rig.join(2, 100, 0);
        rig.rounds(1_000, 1, null);
        rig.stride.leave(1);
        rig.stride.leave(2);
        rig.rounds(10, 1, null);
        rig.stride.join(1, 100);
        rig.stride.join(2, 100);
        long[] wins = new long[3];
        rig.rounds(20_000, 1, wins);
        assertEquals(10_000, wins[1], 2, () -> Arrays.toString(wins));
        assertEquals(10_000, wins[2], 2, () -> Arrays.toString(wins));
    }

    /**
     * Four clients on worker 0, each idled once while X ran far ahead on worker 1 in long slices,
     * come back one after the other: each measured against the one before it, their credits would
     * stack until the passes wrapped around. They split worker 0 evenly, and every pick is the
     * least pass its worker may serve.
     */
    @Test
    void shouldKeepReturnsThatFollowEachOtherFromStackingCredit() {
        Rig rig = new Rig(2);
        rig.join(0, 1);
        for (int b = 1; b <= 4; b++) {
            rig.join(b, 1e6, 0);
            rig.rounds(2_100, 1_024, null);
            rig.stride.leave(b);
        }
        for (int b = 1; b <= 4; b++) {
            rig.stride.join(b, 1e6);
        }
        long[] wins = new long[5];
        for (int r = 0; r < 2_000; r++) {
            for (int w = 0; w < 2; w++) {
                int expected = leastOn(rig, w, 5);
                int picked = rig.turn(w, 1);
                assertEquals(expected, picked, "round " + r + ", worker " + w);
                wins[picked]++;
            }
        }
        for (int b = 1; b <= 4; b++) {
            assertEquals(500, wins[b], 2, Arrays.toString(wins));
        }
    }

    /**
     * A client of 10^9 joins four workers: worker 0 serves a client of 1, far ahead; workers 1 to 3
     * serve a client of 10^6 each. Its tickets outweigh every one of them, so it is placed with the
     * lightest set that stands lowest and takes nearly all of every worker from the start (about
     * 3.99 workers), where placed with the highest it would wait on workers 1 to 3 for about 10^6
     * times as long as the imbalance had lasted.
     */
    @Test
    void shouldLetAHeavyJoinerTakeItsShareFromLighterClientsAtOnce() {
        Rig rig = new Rig(4);
        rig.join(0, 1, 0);
        for (int b = 1; b <= 3; b++) {
            rig.join(b, 1e6, b);
        }
        rig.rounds(10_000, 1, null);
        rig.join(4, 1e9);
        long[] wins = new long[5];
        rig.rounds(25_000, 1, wins);
        assertTrue(wins[4] >= 0.99 * 4 * 25_000, () -> Arrays.toString(wins));
    }

    /**
     * A client that goes idle now and then keeps the place it had beside the client it stands with:
     * c (10, free) shares worker 0 with A (1), while D and E (9 each) hold worker 1, which advances
     * more slowly. c leaves and comes back after every tenth turn it wins on worker 0 and still
     * gets exactly what it gets staying; measured from the lighter clients that stand lowest, it
     * would come back far below A and hold A to worker 1's pace.
     */
    @Test
    void shouldGiveAClientThatComesAndGoesWhatItGetsStaying() {
        long[][] wins = new long[2][];
        for (int blink = 0; blink < 2; blink++) {
            Rig rig = new Rig(2);
            rig.join(0, 1, 0);
            rig.join(1, 9, 1);
            rig.join(2, 9, 1);
            rig.join(3, 10);
            rig.rounds(20_000, 1, null);
            long[] counted = new long[4];
            for (int r = 0; r < 100_000; r++) {
                for (int w = 0; w < 2; w++) {
                    int client = rig.turn(w, 1);
                    counted[client]++;
                    if (blink == 1 && client == 3 && w == 0 && r % 10 == 0) {
                        rig.stride.leave(3);
                        rig.stride.join(3, 10);
                    }
                }
            }
            wins[blink] = counted;
        }
        assertEquals(Arrays.toString(wins[0]), Arrays.toString(wins[1]));
    }

    /**
     * Slices of different lengths, each worker charged at the end of its own: c0 (9) may use workers
     * 0 and 2 and runs slices of 1,024 quanta; c1 (9) has worker 2 alone, in single quanta; a client
     * of 10^6 holds worker 1. c0 has worker 0 to itself, and its pass runs ahead of c1's by that
     * much, which keeps it off worker 2. c0 leaves and comes back after each of c1's charges (its
     * slice on worker 0 still running, charged after it came back): it keeps its lead over c1, and so gets no more than it does staying
     * (a lead cut at each return would hand it half of worker 2).
     */
    @Test
    void shouldKeepTheLeadOfAClientThatComesAndGoesBesideAPeer() {
        long[] length = {1_024, 1, 1};
        long[][] quanta = new long[2][];
        for (int blink = 0; blink < 2; blink++) {
            Rig rig = new Rig(3);
            rig.join(0, 9, 0, 2);
            rig.join(1, 9, 2);
            rig.join(2, 1e6, 1);
            boolean comesAndGoes = blink == 1;
            quanta[blink] = runSlices(rig, length, 400_000, (now, ended) -> {
                if (comesAndGoes && ended == 1) {
                    rig.stride.leave(0);
                    rig.stride.join(0, 9);
                }
            });
        }
        long[] honest = quanta[0];
        long[] blinking = quanta[1];
        assertTrue(blinking[0] <= honest[0] + 2 * length[0], () -> "honest " + Arrays.toString(honest)
                + ", coming and going " + Arrays.toString(blinking));
    }

    /** What {@link #runSlices} tells after each charge: the time, in quanta, and the client charged. */
    private interface SliceEnd {
        void ended(long now, int client);
    }

    /**
     * Runs the rig's workers with slices of each client's own length until {@code until} quanta,
     * each worker charged at the end of its slice and then picking again, the worker whose slice
     * ends first going first; returns the quanta each client ran.
     */
    private static long[] runSlices(Rig rig, long[] length, long until, SliceEnd onEnd) {
        long[] quanta = new long[length.length];
        int[] running = new int[rig.workers];
        long[] endsAt = new long[rig.workers];
        for (int w = 0; w < rig.workers; w++) {
            running[w] = pickOn(rig, w);
            endsAt[w] = running[w] < 0 ? 1 : length[running[w]];
        }
        while (true) {
            int w = 0;
            for (int other = 1; other < rig.workers; other++) {
                if (endsAt[other] < endsAt[w]) {
                    w = other;
                }
            }
            if (endsAt[w] > until) {
                return quanta;
            }
            int ended = running[w];
            if (ended >= 0) {
                rig.stride.charge(ended, length[ended] * QUANTUM, QUANTUM);
                quanta[ended] += length[ended];
                onEnd.ended(endsAt[w], ended);
            }
            running[w] = pickOn(rig, w);
            endsAt[w] += running[w] < 0 ? 1 : length[running[w]];
        }
    }

    private static int pickOn(Rig rig, int w) {
        return rig.stride.pick(other -> rig.allows(other, w));
    }

    /**
     * The debt of a client's own last slice is kept: A and B (1 each) share worker 0 beside X on
     * worker 1; A runs a slice of 100 quanta and goes idle at once, then comes back. B gets the next
     * 100 turns of a quantum, as it would have had A stayed.
     */
    @Test
    void shouldKeepTheDebtOfAClientsOwnLastSlice() {
        Rig rig = new Rig(2);
        rig.join(0, 1, 1);
        rig.join(1, 1, 0);
        rig.join(2, 1, 0);
        rig.rounds(1_000, 1, null);
        int first;
        do {
            first = rig.turn(0, 1);                      // until A (1) is next on worker 0
        } while (rig.stride.pick(other -> rig.allows(other, 0)) != 1);
        assertEquals(2, first);
        assertEquals(1, rig.turn(0, 100));
        rig.stride.leave(1);
        rig.stride.join(1, 1);
        long[] wins = rig.turnsOn(0, 100, 1, 3);
        assertTrue(wins[2] >= 99, () -> "worker 0: " + Arrays.toString(wins));
    }

    /** The competing client of least pass that worker {@code w} may serve, found by looking at every one. */
    private static int leastOn(Rig rig, int w, int clients) {
        int least = -1;
        for (int c = 0; c < clients; c++) {
            if (!rig.stride.isCompeting(c) || !rig.allows(c, w)) {
                continue;
            }
            if (least < 0) {
                least = c;
                continue;
            }
            long difference = rig.stride.pass(c) - rig.stride.pass(least);
            if (difference < 0 || (difference == 0 && c < least)) {
                least = c;
            }
        }
        return least;
    }
}
