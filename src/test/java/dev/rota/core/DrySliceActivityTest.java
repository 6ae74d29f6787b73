package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.share.CurrencyNode;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A dry slice kept open (W4) keeps its group active only for a while. Group {@code trickle} is
 * confined to worker 0 and {@code sibling}, funded by the same currency, to worker 1, so worker 0
 * has no other group it may serve and keeps {@code trickle}'s slice once it has run dry. Kept open
 * for good, the slice would keep {@code trickle} active, its tickets counting in the currency, and
 * {@code sibling} would be worth half the currency on worker 1 where it is owed all of it.
 *
 * <p>The engine is not started: the test drives worker 0 one search at a time
 * ({@link Worker#runOneTask()}), and reads the ledger under the dispatcher's lock.
 */
class DrySliceActivityTest {

    private Engine engine;
    private Dispatcher dispatcher;
    private Group trickle;
    private Group sibling;
    private Worker worker;
    private final AtomicInteger ran = new AtomicInteger();

    @BeforeEach
    void createGroups() {
        engine = UnstartedEngine.ofTwoWorkers("dry-slice");
        dispatcher = engine.dispatcher();
        CurrencyNode tenant = dispatcher.withLedger(ledger -> ledger.newCurrency("tenant", dispatcher.baseCurrency(), 100));
        trickle = dispatcher.newGroup("trickle", tenant, 100, Group.UNBOUNDED, 16);
        sibling = dispatcher.newGroup("sibling", tenant, 100, Group.UNBOUNDED, 16);
        trickle.restrictTo(WorkerMask.of(2, 0));
        sibling.restrictTo(WorkerMask.of(2, 1));
        worker = engine.worker(0);
    }

    @AfterEach
    void stop() {
        engine.shutdownNow();
    }

    @Test
    void aDrySliceStopsKeepingItsGroupActive() {
        keepSiblingBusy();
        runOneTrickleTask();
        assertTrue(active(trickle), "the slice that ran the task keeps its group active");
        assertEquals(50.0, value(sibling), 1e-9, "sibling shares the currency while trickle is active");

        for (int search = 1; search < Worker.DRY_SLICE_SEARCHES; search++) {
            assertFalse(worker.runOneTask(), "nothing to run");
        }
        assertTrue(active(trickle), "kept open, the dry slice still holds the group");

        assertFalse(worker.runOneTask(), "nothing to run");
        assertFalse(active(trickle), "after " + Worker.DRY_SLICE_SEARCHES + " empty searches the group is inactive");
        assertEquals(100.0, value(sibling), 1e-9, "sibling is worth the whole currency");

        runOneTrickleTask();
        assertEquals(2, ran.get());
        assertTrue(active(trickle), "the next task makes the group active again");
        assertEquals(50.0, value(sibling), 1e-9);
    }

    @Test
    void aStreamOfTasksKeepsItsSliceWithoutTakingTheLockPerTask() {
        keepSiblingBusy();
        runOneTrickleTask();
        long slices = trickle.slices();
        for (int task = 0; task < 10; task++) {
            for (int search = 0; search < Worker.DRY_SLICE_SEARCHES / 2; search++) {
                assertFalse(worker.runOneTask(), "nothing to run");
            }
            runOneTrickleTask();
        }
        assertEquals(11, ran.get());
        assertEquals(slices, trickle.slices(), "every task ran in the slice opened for the first");
        assertTrue(active(trickle));
    }

    /** Queues a task that no worker runs (the engine is not started), so that sibling stays runnable and active. */
    private void keepSiblingBusy() {
        assertAccepted(sibling.offer(() -> { }));
    }

    private void runOneTrickleTask() {
        int before = ran.get();
        assertAccepted(trickle.offer(ran::incrementAndGet));
        assertTrue(worker.runOneTask(), "worker 0 runs trickle's task");
        assertEquals(before + 1, ran.get());
    }

    private boolean active(Group group) {
        return dispatcher.readLedger(ledger -> group.client.isActive());
    }

    private double value(Group group) {
        return dispatcher.readLedger(ledger -> ledger.graph().value(group.client));
    }
}
