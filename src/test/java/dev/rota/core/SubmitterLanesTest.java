package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Exchanger;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link SubmitterLanes} and the sharing record of {@link AdmissionStripe}: outside threads that meet on a lane move apart. */
class SubmitterLanesTest {

    @Test
    void beforeAnyMoveAThreadUsesTheHashOfItsId() {
        SubmitterLanes lanes = new SubmitterLanes();
        for (long id = 1; id < 200; id++) {
            for (int n = 1; n <= 9; n++) {
                assertEquals(SubmitterLanes.spread(id, n), lanes.lane(id, n), "id " + id + ", " + n + " lanes");
            }
        }
    }

    @Test
    void aThreadMovesOnlyAfterFindingItsLaneSharedEnoughTimes() {
        SubmitterLanes lanes = new SubmitterLanes();
        long id = 42;
        for (int i = 1; i < SubmitterLanes.SHARES_BEFORE_MOVE; i++) {
            lanes.noteShared(id);
            assertEquals(0, lanes.moves(id), "after " + i + " shares");
        }
        lanes.noteShared(id);
        assertEquals(1, lanes.moves(id));
        for (int i = 0; i < SubmitterLanes.SHARES_BEFORE_MOVE; i++) {
            lanes.noteShared(id);
        }
        assertEquals(2, lanes.moves(id));
    }

    @Test
    void movesStayInRangeAndReachEveryLane() {
        SubmitterLanes lanes = new SubmitterLanes();
        long id = 7;
        for (int n : new int[] {2, 3, 4, 16}) {
            Set<Integer> seen = new HashSet<>();
            for (int move = 0; move < 256; move++) {
                int lane = lanes.lane(id, n);
                assertTrue(lane >= 0 && lane < n, "lane " + lane + " of " + n);
                seen.add(lane);
                for (int i = 0; i < SubmitterLanes.SHARES_BEFORE_MOVE; i++) {
                    lanes.noteShared(id);
                }
            }
            assertEquals(n, seen.size(), "lanes of " + n + " reached in 256 moves: " + seen);
        }
    }

    /**
     * Two threads that meet on a lane find it shared equally often, so they move in step; they must
     * not keep meeting at every step.
     */
    @Test
    void threadsMovingInStepPartWays() {
        for (int n : new int[] {2, 3, 8}) {
            int pairs = 0;
            int parted = 0;
            for (long a = 1; a < 200; a++) {
                for (long b = a + 1; b < a + 20; b++) {
                    if (SubmitterLanes.spread(a, n) != SubmitterLanes.spread(b, n)) {
                        continue;
                    }
                    pairs++;
                    SubmitterLanes lanes = new SubmitterLanes();
                    for (int step = 0; step < 8 && lanes.lane(a, n) == lanes.lane(b, n); step++) {
                        moveOnce(lanes, a);
                        moveOnce(lanes, b);
                    }
                    if (lanes.lane(a, n) != lanes.lane(b, n)) {
                        parted++;
                    }
                }
            }
            // Independent draws leave a pair together after 8 steps with probability (1/n)^8.
            assertTrue(parted >= pairs * 0.98, n + " lanes: " + parted + " of " + pairs + " pairs parted within 8 moves");
        }
    }

    /** Another thread whose id falls on the same entry takes it over; the first is back at its unmoved lane. */
    @Test
    void anEntryTakenOverByAnotherThreadFallsBackToTheUnmovedLane() {
        long first = 3;
        long other = first + 1;
        while (!sharesEntry(first, other)) {
            other++;
        }
        SubmitterLanes lanes = new SubmitterLanes();
        moveOnce(lanes, first);
        assertEquals(1, lanes.moves(first));
        moveOnce(lanes, other);
        assertEquals(1, lanes.moves(other));
        assertEquals(0, lanes.moves(first));
        assertEquals(SubmitterLanes.spread(first, 5), lanes.lane(first, 5));
    }

    /** True when a record for {@code b} replaces the entry of {@code a}. */
    private static boolean sharesEntry(long a, long b) {
        SubmitterLanes probe = new SubmitterLanes();
        moveOnce(probe, a);
        probe.noteShared(b);
        return probe.moves(a) == 0;
    }

    private static void moveOnce(SubmitterLanes lanes, long id) {
        for (int i = 0; i < SubmitterLanes.SHARES_BEFORE_MOVE; i++) {
            lanes.noteShared(id);
        }
    }

    @Test
    void aStripeReportsAnotherOutsideSubmitterOnly() {
        AdmissionStripe stripe = new AdmissionStripe();
        assertFalse(stripe.noteOutsideSubmitter(10), "the first submitter shares with nobody");
        assertFalse(stripe.noteOutsideSubmitter(10), "the same submitter again");
        assertTrue(stripe.noteOutsideSubmitter(11), "another submitter");
        assertTrue(stripe.noteOutsideSubmitter(10), "and back");
        assertFalse(stripe.noteOutsideSubmitter(10));
    }

    /**
     * Two outside threads that take turns submitting to a pool of two workers, starting on the same
     * lane: each offer finds the other's last, so within a few dozen offers one of them moves on.
     * Every task still runs.
     */
    @Test
    void twoSubmittersThatShareALaneMoveApart() throws Exception {
        Engine engine = new Engine("lanes-test", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"), false,
                null, true);
        engine.start();
        try {
            AtomicLong ran = new AtomicLong();
            int turns = 4 * SubmitterLanes.SHARES_BEFORE_MOVE;
            Exchanger<Boolean> baton = new Exchanger<>();
            CountDownLatch done = new CountDownLatch(2);
            Thread first = takingTurns(engine, ran, turns, baton, true, done);
            Thread second = takingTurns(engine, ran, turns, baton, false, done);
            while (SubmitterLanes.spread(second.threadId(), 2) != SubmitterLanes.spread(first.threadId(), 2)) {
                second = takingTurns(engine, ran, turns, baton, false, done); // ids start on one lane
            }
            first.start();
            second.start();
            assertTrue(done.await(30, TimeUnit.SECONDS), "submitters finished");
            SubmitterLanes lanes = engine.submitterLanes();
            assertTrue(lanes.moves(first.threadId()) + lanes.moves(second.threadId()) > 0, "one of the two moved on");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ran.get() < 2L * turns && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(2L * turns, ran.get(), "every task ran");
        } finally {
            engine.shutdown();
            assertTrue(engine.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /** A thread (not started) that submits {@code turns} tasks, each in turn with its partner on {@code baton}. */
    private static Thread takingTurns(Engine engine, AtomicLong ran, int turns, Exchanger<Boolean> baton,
                                      boolean startsFirst, CountDownLatch done) {
        return new Thread(() -> {
            try {
                for (int i = 0; i < turns; i++) {
                    if (!startsFirst) {
                        baton.exchange(true, 10, TimeUnit.SECONDS);
                    }
                    engine.execute(ran::incrementAndGet);
                    if (startsFirst) {
                        baton.exchange(true, 10, TimeUnit.SECONDS);
                    }
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                done.countDown();
            }
        }, startsFirst ? "first-submitter" : "second-submitter");
    }
}
