package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StrideSchedulerTest {
    private static final long QUANTUM = 1_000_000; // 1 ms of virtual time

    /**
     * The stride bound: for two clients, after any number n of whole quanta each one's allocation is
     * within one quantum of n × t / T.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void shouldKeepEachClientOfAPairWithinOneQuantum(int ratio) {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, ratio);
        stride.join(1, 1);
        long[] quanta = new long[2];
        double total = ratio + 1;
        for (int n = 1; n <= 20_000; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            quanta[client]++;
            assertWithin(1.0, quanta[0], n * ratio / total, n);
            assertWithin(1.0, quanta[1], n * 1 / total, n);
        }
    }

    /**
     * With partial quanta charged, CPU time follows the values: for two clients the error of each is
     * below max(t) / T of a quantum at every point (the picked client had the least pass; see the
     * class comment of StrideScheduler), so within one quantum.
     */
    @ParameterizedTest
    @ValueSource(doubles = {1, 2.5, 7, 10})
    void shouldDivideCpuTimeByValueWhenPartialQuantaAreCharged(double ratio) {
        StrideScheduler stride = new StrideScheduler();
        stride.join(3, ratio);
        stride.join(8, 1);
        SplittableRandom random = new SplittableRandom(11);
        long cpu3 = 0;
        long cpu8 = 0;
        for (int step = 1; step <= 50_000; step++) {
            int client = stride.pick();
            long used = 1 + random.nextLong(QUANTUM);
            stride.charge(client, used, QUANTUM);
            if (client == 3) {
                cpu3 += used;
            } else {
                cpu8 += used;
            }
            double all = cpu3 + cpu8;
            assertWithin(QUANTUM, cpu3, all * ratio / (ratio + 1), step);
            assertWithin(QUANTUM, cpu8, all / (ratio + 1), step);
        }
    }

    /**
     * Large values make strides short (2^40 / 2^30 = 1024 pass units per quantum); charges stay exact
     * only because the remainder of each division by the quantum is carried to the next charge.
     */
    @Test
    void shouldStayWithinOneQuantumWithShortStrides() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1 << 30);
        stride.join(1, 1 << 29);
        assertEquals(1024, stride.stride(0));
        SplittableRandom random = new SplittableRandom(5);
        long[] cpu = new long[2];
        for (int step = 1; step <= 200_000; step++) {
            int client = stride.pick();
            long used = 1 + random.nextLong(QUANTUM);
            stride.charge(client, used, QUANTUM);
            cpu[client] += used;
            assertWithin(QUANTUM, cpu[0], (cpu[0] + cpu[1]) * 2.0 / 3, step);
        }
    }

    @Test
    void shouldKeepTheBoundAcrossWrapAroundOfPasses() {
        StrideScheduler stride = new StrideScheduler(Long.MAX_VALUE - 500 * StrideScheduler.STRIDE1);
        stride.join(0, 3);
        stride.join(1, 1);
        long[] quanta = new long[2];
        for (int n = 1; n <= 5_000; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            quanta[client]++;
            assertWithin(1.0, quanta[0], n * 0.75, n);
        }
        assertTrue(stride.globalPass() < 0, "the global pass should have wrapped around");
    }

    @Test
    void shouldStartANewClientOneStrideAfterTheGlobalPass() {
        StrideScheduler stride = new StrideScheduler();
        assertEquals(ShareScheduler.NONE, stride.pick());
        stride.join(0, 1);
        stride.join(1, 3);
        assertEquals(StrideScheduler.STRIDE1, stride.pass(0));
        assertEquals(Math.round(StrideScheduler.STRIDE1 / 3.0), stride.pass(1));
        assertEquals(1, stride.pick());

        // The global pass moves by STRIDE1 / (1 + 3) per quantum, whoever is charged (within the
        // rounding of client 1's stride, which makes it worth 3 + 3e-12).
        stride.charge(1, QUANTUM, QUANTUM);
        assertEquals(StrideScheduler.STRIDE1 / 4, stride.globalPass(), 1);
        stride.charge(0, QUANTUM / 2, QUANTUM);
        assertEquals(StrideScheduler.STRIDE1 / 4 + StrideScheduler.STRIDE1 / 8, stride.globalPass(), 1);
        assertEquals(StrideScheduler.STRIDE1 + StrideScheduler.STRIDE1 / 2, stride.pass(0));

        stride.join(2, 2); // joins at globalPass + stride
        assertEquals(stride.globalPass() + StrideScheduler.STRIDE1 / 2, stride.pass(2));
    }

    /**
     * The global pass must advance at the rate the competing clients' passes do (STRIDE1 / sum of
     * worths per quantum), or a client that joins later (at globalPass + stride) lands ever further
     * from the incumbents. Rounding the global stride to a whole pass unit loses up to half a unit
     * per quantum, which short strides (large values at shift 0) turn into many quanta after hours.
     */
    @Test
    void shouldLetAClientJoiningAfterALongRunGetItsShareFromTheStart() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 2e9);
        stride.join(1, 1.3e9);
        for (int n = 0; n < 2_000_000; n++) {                // about 33 minutes at a 1 ms quantum
            stride.charge(stride.pick(), QUANTUM, QUANTUM);
        }
        stride.join(2, 2e9);
        long newcomer = 0;
        for (int n = 1; n <= 2_000; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            if (client == 2) {
                newcomer++;
            }
            assertWithin(2.0, newcomer, n * 2 / 5.3, n);
        }
    }

    /**
     * The sum of competing worths behind the global stride must not drift however often a value
     * changes: once the others have left, a client alone moves the global pass by its own stride
     * per quantum, as a joining client's place (globalPass + stride) assumes. Each change of value
     * subtracts the old worth and adds the new one, and both must be compensated: a difference of
     * a large and a small worth rounds to a unit of the large one, and those roundings add up.
     */
    @Test
    void shouldNotLetTheSumOfWorthsDriftUnderManyChangesOfValue() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1_000_000; i++) {            // a sibling's work coming and going, say
            stride.setValue(1, i % 2 == 0 ? Math.scalb(1 + random.nextDouble(), 29) : 1 + random.nextDouble());
        }
        stride.leave(1);
        long before = stride.globalPass();
        stride.charge(0, 1000 * QUANTUM, QUANTUM);
        double perQuantum = (stride.globalPass() - before) / 1000.0;
        assertEquals(stride.stride(0), perQuantum, stride.stride(0) * 1e-9,
                "the global pass should move by the stride of the only client competing");
    }

    @Test
    void shouldKeepRemainWhileAClientIsAwayAndRescaleItOnAChangeOfValue() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 2);
        stride.join(1, 2);
        for (int i = 0; i < 7; i++) {
            stride.charge(stride.pick(), QUANTUM, QUANTUM);
        }
        long remain = stride.pass(1) - stride.globalPass();
        stride.leave(1);
        assertFalse(stride.isCompeting(1));
        assertEquals(remain, stride.remain(1));

        for (int i = 0; i < 100; i++) { // 0 runs alone; the global pass moves on
            assertEquals(0, stride.pick());
            stride.charge(0, QUANTUM, QUANTUM);
        }
        stride.join(1, 2); // pass = globalPass + remain
        assertEquals(stride.globalPass() + remain, stride.pass(1));

        // remain' = remain × stride' / stride: doubling the value halves the distance to the global pass.
        long before = stride.pass(1) - stride.globalPass();
        stride.setValue(1, 4);
        assertEquals(StrideScheduler.strideOf(4), stride.stride(1));
        assertEquals(Math.floorDiv(before, 2), stride.pass(1) - stride.globalPass(), 1);

        // The same rescaling applies to a client that is away.
        stride.leave(1);
        long away = stride.remain(1);
        stride.join(1, 1);
        assertEquals(away * 4, stride.pass(1) - stride.globalPass(), 4);

        stride.remove(1);
        assertFalse(stride.isCompeting(1));
        stride.join(1, 2); // a forgotten client starts afresh
        assertEquals(stride.globalPass() + StrideScheduler.strideOf(2), stride.pass(1));
    }

    @Test
    void shouldNotLetAReturningClientMakeUpForTheTimeItWasAway() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        for (int i = 0; i < 100; i++) {
            stride.charge(stride.pick(), QUANTUM, QUANTUM);
        }
        stride.leave(1);
        for (int i = 0; i < 1_000; i++) {
            stride.charge(stride.pick(), QUANTUM, QUANTUM);
        }
        stride.join(1, 1);
        assertClientOneGetsHalfOfEveryPrefix(stride, 1_000);
    }

    /**
     * A client that may not run (a worker outside its CPU mask asks with pick(eligible)) falls ever
     * further behind; once forgiven, it rejoins the proportion within a quantum instead of taking
     * every quantum until it has caught up.
     */
    @Test
    void shouldForgiveTheCreditOfAClientThatCouldNotRun() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        for (int i = 0; i < 1_000; i++) {
            stride.charge(stride.pick(client -> client == 0), QUANTUM, QUANTUM);
        }
        assertTrue(stride.remain(1) < -400 * StrideScheduler.STRIDE1, "client 1 is owed some 500 quanta: " + stride.remain(1));

        stride.forgiveCredit(1);
        assertEquals(stride.pass(0), stride.pass(1), "level with the other client, no longer behind it");
        assertClientOneGetsHalfOfEveryPrefix(stride, 1_000);
    }

    /**
     * A client that may not run where the others are picked (its CPU mask) falls behind the global
     * pass for as long as that lasts. Its credit saturates at MAX_LAG, as debt does, rather than
     * growing until the difference of passes wraps around and the client looks far ahead of
     * everyone: it would then lose every pick, and forgiving would not bring it back. Slices of
     * 1,024 quanta get there in a few thousand charges; quanta of one at a time, for clients worth
     * one base unit each, in 2^24 (under five hours at 1 ms).
     */
    @Test
    void shouldBoundTheCreditOfAClientThatCannotBePicked() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        for (int i = 1; i <= 20_000; i++) {               // the global pass moves by 2^49 a charge: 2^63 in 2^14
            stride.charge(stride.pick(client -> client == 0), 1024 * QUANTUM, QUANTUM);
            long remain = stride.remain(1);
            assertTrue(remain >= -StrideScheduler.MAX_LAG && remain < 0, () -> "credit of client 1: " + remain);
        }
        assertEquals(1, stride.pick(), "client 1, furthest behind, runs first where it may");

        stride.forgiveCredit(1);
        assertEquals(stride.pass(0), stride.pass(1), "level with the other client, no longer behind it");
        assertClientOneGetsHalfOfEveryPrefix(stride, 1_000);
    }

    @Test
    void shouldKeepDebtAndIgnoreUnknownClientsWhenForgiving() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        stride.charge(0, 10 * QUANTUM, QUANTUM);          // client 0 is in debt: ahead of the global pass
        long debt = stride.remain(0);
        assertTrue(debt > 0);
        stride.forgiveCredit(0);
        assertEquals(debt, stride.remain(0));
        stride.leave(1);                                  // client 1 leaves behind client 0: credit
        assertTrue(stride.remain(1) < stride.remain(0));
        stride.forgiveCredit(1);
        assertEquals(stride.pass(0) - stride.globalPass(), stride.remain(1), "a waiting client's credit is dropped too");
        stride.forgiveCredit(7);                          // unknown: a no-op
        assertFalse(stride.isCompeting(7));
    }

    @Test
    void shouldChargeAClientThatAlreadyLeft() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        int picked = stride.pick();
        stride.leave(picked);
        long remain = stride.remain(picked);
        stride.charge(picked, QUANTUM, QUANTUM);
        assertEquals(remain + StrideScheduler.STRIDE1, stride.remain(picked));
    }

    /**
     * A slice that ends after its client left is charged to the client's remain alone: the client
     * rejoins where it would stand had it been charged while competing, so one that leaves after
     * every slice and is back before the next pick still gets its share.
     */
    @Test
    void shouldCountASliceEndingAfterItsClientLeftOnce() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        long[] quanta = new long[2];
        for (int n = 1; n <= 3_000; n++) {
            int client = stride.pick();
            if (client == 1) {
                stride.leave(1);                         // its only queued task was taken
            }
            stride.charge(client, QUANTUM, QUANTUM);
            if (client == 1) {
                stride.join(1, 1);                       // its next task came before the next pick
            }
            quanta[client]++;
            assertWithin(1.0, quanta[1], n / 2.0, n);
        }
    }

    /**
     * Clients of tiny values (here ShareLedger.FLOOR_VALUE) that compete alone: the scale follows
     * them, so their strides are not clamped, and the global pass must advance at the rate of what
     * their strides stand for, or it runs ahead of every pass until the differences wrap around
     * and one client runs alone.
     */
    @Test
    void shouldKeepTinyClientsSharingForAsLongAsTheyRun() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1e-9);
        stride.join(1, 1e-9);
        assertTrue(stride.stride(0) < StrideScheduler.MAX_STRIDE, "not clamped: " + stride.stride(0));
        long[] quanta = new long[2];
        for (int n = 1; n <= 40_000; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            quanta[client]++;
            assertWithin(1.0, quanta[1], n / 2.0, n);
        }
    }

    @Test
    void shouldSaturateHugeChargesInsteadOfOverflowing() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1e-15); // more than 2^47 below the other value: stride clamped to MAX_STRIDE
        stride.join(1, 1);
        assertEquals(StrideScheduler.MAX_STRIDE, stride.stride(0));
        long globalBefore = stride.globalPass();
        stride.charge(0, Long.MAX_VALUE, 1); // about 2^113 pass units, saturated at MAX_LAG
        assertEquals(globalBefore + StrideScheduler.MAX_LAG, stride.pass(0));
        assertEquals(globalBefore + StrideScheduler.MAX_LAG, stride.globalPass());
        assertEquals(1, stride.pick());
    }

    /**
     * Ticket counts are any positive long, so values far above STRIDE1 are valid: 4e12 and 1e12 base
     * units share 80 : 20, as 4 and 1 do, instead of getting strides of 1 each.
     */
    @Test
    void shouldKeepTheRatioOfHugeValues() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 4e12);
        stride.join(1, 1e12);
        long[] quanta = new long[2];
        for (int n = 0; n < 10_000; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            quanta[client]++;
        }
        assertEquals(8_000, quanta[0], 2);
    }

    /**
     * Shares do not depend on the unit of the values: one client of value 1 and 2048 of value 1/2048
     * share half and half, as 2048 and 2048 × 1 would. The small clients move in lockstep, so the
     * large one gets its quanta in runs of 2048; at the end of every round of 4096 quanta it has had
     * exactly half (a clamp of the small values at a fixed unit gives it a third).
     */
    @Test
    void shouldShareByTheRatioOfValuesWhateverTheirUnit() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        for (int client = 1; client <= 2048; client++) {
            stride.join(client, 1.0 / 2048);
        }
        long large = 0;
        for (int n = 1; n <= 8 * 4096; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            if (client == 0) {
                large++;
            }
            if (n % 4096 == 0) {
                assertEquals(n / 2, large, 2, "after " + n + " quanta");
            }
        }
    }

    /** The bound of shouldKeepEachClientOfAPairWithinOneQuantum, with the values far above and far below 1. */
    @ParameterizedTest
    @CsvSource({"1, 45", "2, 45", "3, 45", "7, 45", "10, 45", "1, -40", "2, -40", "3, -40", "7, -40", "10, -40"})
    void shouldKeepEachClientOfAPairWithinOneQuantumAtAnyScale(int ratio, int exponent) {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, Math.scalb((double) ratio, exponent));
        stride.join(1, Math.scalb(1.0, exponent));
        assertPairSharesFromHere(stride, ratio, 1, 20_000);
    }

    /**
     * A value that jumps by 2^25 moves the scale; when it drops back the scale moves again. Each
     * rescale keeps both clients where they stood in their own quanta, so from each change on the
     * pair keeps to the one-quantum bound of its new values.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 10})
    void shouldKeepAPairWithinOneQuantumAcrossAValueThatJumpsAndFalls(int ratio) {
        double unit = 0x1p-40;
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, ratio * unit);
        stride.join(1, unit);
        assertPairSharesFromHere(stride, ratio, 1, 1_000);
        stride.setValue(1, 0x1p25 * unit);
        assertPairSharesFromHere(stride, ratio, 0x1p25, 1_000);
        stride.setValue(1, unit);
        assertPairSharesFromHere(stride, ratio, 1, 20_000);
    }

    /**
     * A third client 2^25 above a pair moves the scale; when it leaves (or is forgotten) the largest
     * value falls and the scale moves back. The pair keeps to the one-quantum bound from then on,
     * and over all the quanta it had, since the third client only moved the global pass.
     */
    @ParameterizedTest
    @CsvSource({"1, false", "3, false", "10, false", "1, true", "3, true", "10, true"})
    void shouldKeepAPairWithinOneQuantumWhenALargerClientComesAndGoes(int ratio, boolean forget) {
        double unit = 0x1p45;
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, ratio * unit);
        stride.join(1, unit);
        long[] quanta = new long[3];
        runQuanta(stride, quanta, 1_000);
        stride.join(2, 0x1p25 * ratio * unit);
        runQuanta(stride, quanta, 1_000);
        assertEquals(1_000, quanta[2], "the larger client takes every quantum while it competes");
        if (forget) {
            stride.remove(2);
        } else {
            stride.leave(2);
        }
        long[] since = {quanta[0], quanta[1]};
        for (int n = 1; n <= 20_000; n++) {
            runQuanta(stride, quanta, 1);
            double pair = quanta[0] + quanta[1];
            assertWithin(1.0, quanta[0], pair * ratio / (ratio + 1), n);
            double fromHere = quanta[0] - since[0] + quanta[1] - since[1];
            assertWithin(1.0, quanta[0] - since[0], fromHere * ratio / (ratio + 1), n);
        }
    }

    /**
     * A waiting client's remain is kept in the pass units of the scale it left at; when it rejoins
     * after rescales it stands where it stood, in its own quanta.
     */
    @Test
    void shouldKeepAWaitingClientsPlaceInItsOwnQuantaAcrossRescales() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 3);
        for (int i = 0; i < 10; i++) {
            stride.charge(stride.pick(client -> client == 0), QUANTUM, QUANTUM); // 1 may not run: owed
        }
        stride.leave(1);
        double owed = (double) stride.remain(1) / stride.stride(1);
        assertTrue(owed < -1, "client 1 is owed quanta: " + owed);
        stride.join(2, 0x1p40);
        runQuanta(stride, new long[3], 100);
        stride.leave(2);
        stride.join(1, 3);
        assertTrue(stride.stride(1) < StrideScheduler.strideOf(3), "rejoined at another scale");
        assertEquals(owed, (double) stride.remain(1) / stride.stride(1), 1e-6);
    }

    /** Forgiving a waiting client after rescales measures the least pass in today's pass units. */
    @Test
    void shouldForgiveAWaitingClientInTodaysPassUnits() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1);
        stride.join(1, 1);
        for (int i = 0; i < 100; i++) {
            stride.charge(stride.pick(client -> client == 0), QUANTUM, QUANTUM); // 1 may not run: owed
        }
        stride.leave(1);
        stride.join(2, 0x1p40);
        runQuanta(stride, new long[3], 100);
        stride.leave(2);
        stride.forgiveCredit(1);
        assertEquals(stride.pass(0) - stride.globalPass(), stride.remain(1));
        assertEquals(stride.stride(0), stride.stride(1), "equal values, both at today's scale");
        stride.join(1, 1);
        assertEquals(stride.pass(0), stride.pass(1));
        assertClientOneGetsHalfOfEveryPrefix(stride, 1_000);
    }

    /**
     * Forgiving a waiting client whose value lies far above today's scale (2^31 against a largest of
     * 2, after the scale came down while it waited): today's stride for it would round to a few
     * pass units, so the conversion must not go through it. Back at its own scale it ranks with the
     * least pass.
     */
    @Test
    void shouldForgiveAWaitingClientFarAboveTodaysScale() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 2);
        stride.join(1, 0x1p31);
        for (int i = 0; i < 10; i++) {
            stride.charge(stride.pick(client -> client == 0), QUANTUM, QUANTUM); // 1 may not run: owed
        }
        stride.leave(1);
        runQuanta(stride, new long[2], StrideScheduler.LOW_PATIENCE);  // the scale comes down to client 0
        stride.forgiveCredit(1);
        stride.join(1, 0x1p31);                          // the scale goes up again
        long lag0 = stride.pass(0) - stride.globalPass();
        long lag1 = stride.pass(1) - stride.globalPass();
        assertEquals((double) lag0, (double) lag1, Math.abs(lag0) * 1e-6,
                "it stands " + (double) (lag0 - lag1) / stride.stride(0) + " of client 0's quanta behind it");
    }

    /** Subnormal values have binary exponents below -1023: they scale, and share by their ratio. */
    @Test
    void shouldScaleSubnormalValuesToo() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 3 * Double.MIN_VALUE);
        stride.join(1, Double.MIN_VALUE);
        assertTrue(stride.stride(0) >= 1 << 9 && stride.stride(0) <= StrideScheduler.STRIDE1, "stride " + stride.stride(0));
        long[] quanta = new long[2];
        runQuanta(stride, quanta, 4_000);
        assertEquals(3_000, quanta[0], 2);
    }

    /**
     * A funded group that goes idle and comes back between bursts, next to many floor-valued groups
     * 2^36 below it: its departures rescale down only after LOW_PATIENCE charges, so a group back
     * sooner costs no rescale of every client at either end.
     */
    @Test
    void shouldNotRescaleEveryClientEachTimeTheLargestComesAndGoes() {
        StrideScheduler stride = new StrideScheduler();
        for (int c = 1; c <= 2_000; c++) {
            stride.join(c, ShareLedger.FLOOR_VALUE);
        }
        int rescales = 0;
        long before = stride.stride(1);
        for (int cycle = 0; cycle < 500; cycle++) {
            stride.join(0, 100);                         // a funded group gets a task
            stride.charge(stride.pick(), QUANTUM, QUANTUM);
            rescales += stride.stride(1) != before ? 1 : 0;
            before = stride.stride(1);
            stride.leave(0);                             // its queue is empty again
            stride.charge(stride.pick(), QUANTUM, QUANTUM);
            rescales += stride.stride(1) != before ? 1 : 0;
            before = stride.stride(1);
        }
        assertEquals(1, rescales, "only the first arrival rescales");
        for (int i = 0; i < StrideScheduler.LOW_PATIENCE; i++) {
            stride.charge(stride.pick(), QUANTUM, QUANTUM);
        }
        assertTrue(stride.stride(1) <= StrideScheduler.STRIDE1, "away for good: the floor groups are scaled again");
    }

    /**
     * Under random joins, leaves, removals, new values from 2^-60 to 2^61 and charges, the largest
     * competing value's stride stays in [2^9, 2^40] (at least 2^9 always; at most 2^40 once
     * LOW_PATIENCE charges have passed since a departure, which rescales down lazily), no value
     * within 2^16 of it is clamped then, lags stay within MAX_LAG and the pick is the least pass:
     * the scale follows the largest value however it moves.
     */
    @Test
    void shouldKeepTheLargestValuesStrideInRangeUnderRandomValues() {
        SplittableRandom random = new SplittableRandom(42);
        for (int run = 0; run < 50; run++) {
            StrideScheduler stride = new StrideScheduler(random.nextLong());
            double[] values = new double[1 + random.nextInt(30)];
            int chargesSinceDeparture = StrideScheduler.LOW_PATIENCE;
            for (int step = 0; step < 2_000; step++) {
                String where = "run " + run + ", step " + step;
                int client = random.nextInt(values.length);
                switch (random.nextInt(6)) {
                    case 0, 1 -> {
                        double value = Math.scalb(1 + random.nextDouble(), random.nextInt(-60, 61));
                        double before = values[client];
                        values[client] = random.nextInt(4) == 0 ? 0 : value;
                        stride.setValue(client, values[client]);
                        if (values[client] < before) {
                            chargesSinceDeparture = 0;   // the largest may have fallen: a lazy rescale
                        }
                    }
                    case 2 -> {
                        values[client] = 0;
                        stride.remove(client);
                        chargesSinceDeparture = 0;
                    }
                    default -> {
                        if (stride.pick() != ShareScheduler.NONE) {
                            stride.charge(stride.pick(), random.nextLong(3 * QUANTUM), QUANTUM);
                            chargesSinceDeparture++;
                        }
                    }
                }
                int largest = -1;
                for (int c = 0; c < values.length; c++) {
                    if (stride.isCompeting(c)) {
                        assertTrue(Math.abs(stride.remain(c)) <= StrideScheduler.MAX_LAG, where);
                        assertTrue(stride.pick() == c || before(stride, stride.pick(), c), where);
                        largest = largest < 0 || values[c] > values[largest] ? c : largest;
                    }
                }
                if (largest >= 0) {
                    long s = stride.stride(largest);
                    assertTrue(s >= 1 << 9, "stride " + s + ", " + where);
                    if (chargesSinceDeparture < StrideScheduler.LOW_PATIENCE) {
                        continue;                        // a downward rescale may still be pending
                    }
                    assertTrue(s <= StrideScheduler.STRIDE1, "stride " + s + ", " + where);
                    for (int c = 0; c < values.length; c++) {
                        if (stride.isCompeting(c) && values[c] > Math.scalb(values[largest], -16)) {
                            assertTrue(stride.stride(c) < StrideScheduler.MAX_STRIDE, where);
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldRejectBadInputNamingTheValue() {
        StrideScheduler stride = new StrideScheduler();
        assertMessage("value must be finite and non-negative: -1.0", () -> stride.setValue(0, -1));
        assertMessage("value must be finite and non-negative: NaN", () -> stride.setValue(0, Double.NaN));
        assertMessage("value must be finite and non-negative: Infinity",
                () -> stride.setValue(0, Double.POSITIVE_INFINITY));
        assertMessage("a joining client needs a positive value: 0.0", () -> stride.join(0, 0));
        assertMessage("client id must not be negative: -3", () -> stride.setValue(-3, 1));
        assertMessage("client 5 is not scheduled", () -> stride.charge(5, 1, 1));
        stride.join(5, 1);
        assertMessage("used time must not be negative: -1", () -> stride.charge(5, -1, 1));
        assertMessage("quantum must be positive: 0", () -> stride.charge(5, 1, 0));
    }

    /**
     * Two clients of equal value, 0 and 1: over the next {@code picks} full quanta, client 1 gets
     * half of every prefix to within one quantum.
     */
    private static void assertClientOneGetsHalfOfEveryPrefix(StrideScheduler stride, int picks) {
        long clientOne = 0;
        for (int n = 1; n <= picks; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            if (client == 1) {
                clientOne++;
            }
            assertWithin(1.0, clientOne, n / 2.0, n);
        }
    }

    /**
     * Clients 0 and 1, of values in the ratio {@code value0 : value1}: over the next {@code picks}
     * full quanta, each one's count from here is within one quantum of its share.
     */
    private static void assertPairSharesFromHere(StrideScheduler stride, double value0, double value1,
                                                 int picks) {
        long[] quanta = new long[2];
        double total = value0 + value1;
        for (int n = 1; n <= picks; n++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            quanta[client]++;
            assertWithin(1.0, quanta[0], n * value0 / total, n);
            assertWithin(1.0, quanta[1], n * value1 / total, n);
        }
    }

    private static boolean before(StrideScheduler stride, int a, int b) {
        long difference = stride.pass(a) - stride.pass(b);
        return difference < 0 || (difference == 0 && a < b);
    }

    /** Picks and charges {@code picks} full quanta, counting them per client. */
    private static void runQuanta(StrideScheduler stride, long[] quanta, int picks) {
        for (int i = 0; i < picks; i++) {
            int client = stride.pick();
            stride.charge(client, QUANTUM, QUANTUM);
            quanta[client]++;
        }
    }

    private static void assertWithin(double bound, double actual, double ideal, long step) {
        double error = Math.abs(actual - ideal);
        assertTrue(error <= bound, () -> "error " + error + " > " + bound + " at step " + step);
    }

    private static void assertMessage(String message, Runnable action) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, action::run).getMessage());
    }
}
