package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which takes from an inbox make the worker's next look yield first ({@link Worker#PACED_TAKE}):
 * a take that emptied the inbox with fewer than that many tasks, and no other; the yield comes at
 * the next look and not before, so that the tasks taken run first; and the time the yield gives
 * away counts toward the slice's quantum but is not charged to it.
 *
 * <p>The engine is not started: the test drives worker 0 one search at a time
 * ({@link Worker#runOneTask()}), with its group confined to worker 0, so that every offer from
 * this thread goes to worker 0's inbox.
 */
class LookPacingTest {
    /** How long the test's stand-in for the paced look's yield holds the worker. */
    private static final long PAUSE_NANOS = 50_000_000;

    private Engine engine;
    private Group group;
    private Worker worker;
    private final AtomicInteger ran = new AtomicInteger();

    @BeforeEach
    void createGroup() {
        engine = UnstartedEngine.ofTwoWorkers("look-pacing");
        group = engine.dispatcher().newGroup("g", engine.dispatcher().baseCurrency(), 100, Group.UNBOUNDED, 16);
        group.restrictTo(WorkerMask.of(2, 0));
        worker = engine.worker(0);
    }

    @AfterEach
    void stop() {
        engine.shutdownNow();
    }

    @Test
    void aFewTasksThatEmptyTheInboxMakeTheNextLookYield() {
        offer(3);
        runOne();                                        // the take of 3: the inbox ran dry
        assertTrue(worker.yieldsBeforeNextLook(), "3 tasks emptied the inbox");
        runOne();
        runOne();                                        // both from the deque: no look
        assertTrue(worker.yieldsBeforeNextLook(), "the yield waits for the next look");
        assertFalse(worker.runOneTask(), "nothing left to run");
        assertFalse(worker.yieldsBeforeNextLook(), "the look yielded, and an empty look starts no yield");
        assertEquals(3, ran.get());
    }

    @Test
    void aTakeOfPacedTakeTasksOrMoreDoesNotYield() {
        offer(Worker.PACED_TAKE);
        runOne();
        assertFalse(worker.yieldsBeforeNextLook(), Worker.PACED_TAKE + " tasks in one take");
        runMore(Worker.PACED_TAKE - 1);
        assertFalse(worker.runOneTask(), "every task offered has run");
    }

    @Test
    void aFullBatchDoesNotYieldAndTheRestThatEmptiesTheInboxDoes() {
        int rest = Worker.PACED_TAKE - 1;
        offer(Worker.BATCH + rest);
        runOne();
        assertFalse(worker.yieldsBeforeNextLook(), "a full batch: more may wait in the inbox");
        runMore(Worker.BATCH - 1);                       // the batch's other tasks, from the deque
        assertFalse(worker.yieldsBeforeNextLook());
        runOne();                                        // the next look takes the rest
        assertTrue(worker.yieldsBeforeNextLook(), rest + " tasks emptied the inbox");
        runMore(rest - 1);
        assertFalse(worker.runOneTask(), "every task offered has run");
        assertEquals(Worker.BATCH + rest, ran.get());
    }

    @Test
    void thePacedLooksPauseCountsTowardTheQuantumButIsNotCharged() {
        AtomicLong charged = new AtomicLong();
        List<Integer> ranAtCharges = new CopyOnWriteArrayList<>();
        engine.dispatcher().observeSlices((g, usedNanos) -> {
            charged.addAndGet(usedNanos);
            ranAtCharges.add(ran.get());
        });
        long[] pause = new long[1];
        worker.pauseLooksWith(() -> {                    // stands in for Thread.yield(): another thread's time
            long start = System.nanoTime();
            LockSupport.parkNanos(PAUSE_NANOS);
            pause[0] += System.nanoTime() - start;
        });
        long start = System.nanoTime();
        offer(3);
        for (int task = 0; task < 3; task++) {           // one take of 3 empties the inbox: the next look pauses
            assertTrue(worker.runOneTimedTask());
        }
        offer(2);
        assertTrue(worker.runOneTimedTask());            // that look, inside the busy stretch of the slice
        assertTrue(pause[0] > 0, "the look paused first");
        assertTrue(worker.runOneTimedTask());            // the clock look before the fifth task
        assertTrue(ranAtCharges.contains(4),
                () -> "the pause, 50 quanta long, ended its slice before the fifth task ran; charges came at " + ranAtCharges);
        for (int search = 0; search < Worker.DRY_SLICE_SEARCHES; search++) {
            assertFalse(worker.runOneTimedTask(), "nothing left to run");
        }
        long elapsed = System.nanoTime() - start;
        assertEquals(5, ranAtCharges.get(ranAtCharges.size() - 1), "the last slice ended dry and was charged");
        // The slices' busy stretches and the pause are disjoint stretches of [start, now]: charged,
        // the pause would count twice here.
        assertTrue(charged.get() + pause[0] <= elapsed,
                () -> "charged " + charged.get() + " ns and paused " + pause[0] + " ns of " + elapsed + " ns");
        assertEquals(5, ran.get());
    }

    private void offer(int tasks) {
        for (int i = 0; i < tasks; i++) {
            assertAccepted(group.offer(ran::incrementAndGet));
        }
    }

    private void runOne() {
        int before = ran.get();
        assertTrue(worker.runOneTask(), "worker 0 runs a task");
        assertEquals(before + 1, ran.get());
    }

    private void runMore(int tasks) {
        for (int i = 0; i < tasks; i++) {
            runOne();
        }
    }
}
