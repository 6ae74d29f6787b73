package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's runnable count per worker (D3), which tells a worker whose slice has run dry
 * whether to keep it (W4): only groups the worker may serve count. A group confined to other
 * workers leaves the dry slice open, where a count over the whole pool would send the worker to
 * the dispatcher's lock for a group it cannot take, once per task of a group fed one at a time.
 *
 * <p>The engine is not started, so no worker takes the queued tasks: every state is set by the test.
 * An offer queues its group's activation, which the next holder of the dispatcher's lock applies, as
 * at a slice boundary.
 */
class RunnableCountPerWorkerTest {

    private Engine engine;
    private Dispatcher dispatcher;
    private Group served;
    private Group confined;

    @BeforeEach
    void createGroups() {
        engine = new Engine("runnable-count", new int[] {0, 1, 2}, new int[][] {{1, 2}, {0, 2}, {0, 1}},
                new NoAffinity("test"), false, null, true, Engine.DEFAULT_MAX_SPARES,
                Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS, new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 42);
        dispatcher = engine.dispatcher();
        served = dispatcher.newGroup("served", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        confined = dispatcher.newGroup("confined", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        confined.restrictTo(WorkerMask.of(3, 1, 2));
    }

    @AfterEach
    void stop() {
        engine.shutdownNow();
    }

    @Test
    void aGroupConfinedToOtherWorkersDoesNotEndADrySliceOnThisOne() {
        makeRunnable(confined);

        assertEquals(List.of(0, 1, 1), counts());
        assertFalse(dispatcher.othersMayHaveWork(served, 0), "worker 0 may not serve the confined group");
        assertTrue(dispatcher.othersMayHaveWork(served, 1));
        assertTrue(dispatcher.othersMayHaveWork(served, 2));
    }

    @Test
    void theGroupOfTheSliceIsNotCountedAsAnother() {
        makeRunnable(served);
        makeRunnable(confined);

        assertEquals(List.of(1, 2, 2), counts());
        assertFalse(dispatcher.othersMayHaveWork(served, 0), "only the slice's own group has work for worker 0");
        assertTrue(dispatcher.othersMayHaveWork(served, 1));
        assertTrue(dispatcher.othersMayHaveWork(confined, 1), "served has work that worker 1 may take");
    }

    @Test
    void aMaskChangeMovesTheCountOfARunnableGroup() {
        makeRunnable(confined);

        confined.restrictTo(WorkerMask.all(3));
        assertEquals(List.of(1, 1, 1), counts());
        assertTrue(dispatcher.othersMayHaveWork(served, 0), "the mask now lets worker 0 in");

        confined.restrictTo(WorkerMask.of(3, 2));
        assertEquals(List.of(0, 0, 1), counts());
        assertFalse(dispatcher.othersMayHaveWork(served, 0));
        assertFalse(dispatcher.othersMayHaveWork(served, 1));
        assertTrue(dispatcher.othersMayHaveWork(served, 2));
    }

    @Test
    void aMaskChangeWhileTheGroupIsIdleCountsItUnderTheNewMaskWhenItGetsWork() {
        confined.restrictTo(WorkerMask.of(3, 0));
        makeRunnable(confined);

        assertEquals(List.of(1, 0, 0), counts());
        assertTrue(dispatcher.othersMayHaveWork(served, 0));
        assertFalse(dispatcher.othersMayHaveWork(served, 1));
    }

    @Test
    void aGroupThatLosesItsWorkLeavesEveryCount() {
        makeRunnable(served);
        makeRunnable(confined);

        assertEquals(1, engine.shutdownNow(confined).size(), "the confined group's one task");
        assertEquals(List.of(1, 1, 1), counts());
        assertFalse(dispatcher.othersMayHaveWork(served, 2), "the confined group is gone");

        assertEquals(1, engine.shutdownNow(served).size(), "the served group's one task");
        assertEquals(List.of(0, 0, 0), counts());
    }

    /** Queues one task on {@code group} and applies its activation, as the next slice boundary would. */
    private void makeRunnable(Group group) {
        assertAccepted(group.offer(() -> { }));
        dispatcher.read(() -> null);
        assertTrue(group.runnable, group + " has a task");
        assertFalse(dispatcher.activationsPending(), "no activation left to make every answer true");
    }

    private List<Integer> counts() {
        return List.of(dispatcher.runnableFor(0), dispatcher.runnableFor(1), dispatcher.runnableFor(2));
    }
}
