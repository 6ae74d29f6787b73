package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
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

        // The global pass moves by STRIDE1 / (1 + 3) per quantum, whoever is charged.
        stride.charge(1, QUANTUM, QUANTUM);
        assertEquals(StrideScheduler.STRIDE1 / 4, stride.globalPass());
        stride.charge(0, QUANTUM / 2, QUANTUM);
        assertEquals(StrideScheduler.STRIDE1 / 4 + StrideScheduler.STRIDE1 / 8, stride.globalPass());
        assertEquals(StrideScheduler.STRIDE1 + StrideScheduler.STRIDE1 / 2, stride.pass(0));

        stride.join(2, 2); // joins at globalPass + stride
        assertEquals(stride.globalPass() + StrideScheduler.STRIDE1 / 2, stride.pass(2));
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
     * Clients whose values are below the clamp compete as the clamp's value; the global pass must
     * advance at the rate of what their strides stand for, or it runs ahead of every pass until
     * the differences wrap around and one client runs alone.
     */
    @Test
    void shouldKeepClampedClientsSharingForAsLongAsTheyRun() {
        StrideScheduler stride = new StrideScheduler();
        stride.join(0, 1e-9);
        stride.join(1, 1e-9);
        assertEquals(StrideScheduler.MAX_STRIDE, stride.stride(0));
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
        stride.join(0, 0.000_001); // stride clamped to MAX_STRIDE
        stride.join(1, 1);
        assertEquals(StrideScheduler.MAX_STRIDE, stride.stride(0));
        long globalBefore = stride.globalPass();
        stride.charge(0, Long.MAX_VALUE, 1); // about 2^113 pass units, saturated at MAX_LAG
        assertEquals(globalBefore + StrideScheduler.MAX_LAG, stride.pass(0));
        assertEquals(globalBefore + StrideScheduler.MAX_LAG, stride.globalPass());
        assertEquals(1, stride.pick());
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

    private static void assertWithin(double bound, double actual, double ideal, long step) {
        double error = Math.abs(actual - ideal);
        assertTrue(error <= bound, () -> "error " + error + " > " + bound + " at step " + step);
    }

    private static void assertMessage(String message, Runnable action) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, action::run).getMessage());
    }
}
