package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A group runnable without work (its activation applied after its task was taken, see
 * {@link Dispatcher}'s applyActivations) that is shut down terminates at once, and leaves the
 * runnable counts: the per-worker ones (D3) and the pool-wide one that idle workers read without the
 * lock ({@link Dispatcher#mayHaveWork()}). Were the pool-wide count left one too high, every idle
 * worker would take the lock for a pick that finds nothing, until some other lock holder published
 * the count again.
 *
 * <p>The engine is not started, so no worker takes the queued task: every state is set by the test.
 */
class IdleGroupShutdownCountTest {

    private Engine engine;
    private Dispatcher dispatcher;
    private Group group;

    @BeforeEach
    void createGroup() {
        engine = new Engine("idle-group-shutdown", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"),
                false, null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS,
                new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 42);
        dispatcher = engine.dispatcher();
        group = dispatcher.newGroup("gold", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
    }

    @AfterEach
    void stop() {
        engine.shutdownNow();
    }

    @Test
    void aGroupShutDownWhileRunnableWithoutWorkLeavesThePublishedCount() {
        makeRunnableWithoutWork();

        dispatcher.shutdown(group);

        assertTrue(group.isTerminated(), "shut down, with nothing queued or running");
        assertEquals(0, dispatcher.runnableFor(0));
        assertEquals(0, dispatcher.runnableFor(1));
        assertFalse(dispatcher.mayHaveWork(), "the terminated group still counts as runnable for idle workers");
    }

    @Test
    void aPoolShutdownLeavesThePublishedCountOfSuchAGroup() {
        makeRunnableWithoutWork();

        engine.shutdown();

        assertTrue(group.isTerminated(), "shut down, with nothing queued or running");
        assertEquals(0, dispatcher.runnableFor(0));
        assertFalse(dispatcher.mayHaveWork(), "the terminated group still counts as runnable for idle workers");
    }

    /**
     * Queues a task on the group, takes it as a worker whose slice of the group was still open would
     * (the activation is still queued), then applies the activation: the group is runnable, and holds
     * no work.
     */
    private void makeRunnableWithoutWork() {
        assertAccepted(group.offer(() -> { }));
        assertTrue(dispatcher.activationsPending());
        int w = group.lanes[0].inbox.hasWork() ? 0 : 1;
        Inbox inbox = group.lanes[w].inbox;
        assertTrue(inbox.tryAcquireConsumer());
        Runnable task;
        try {
            task = inbox.poll();
        } finally {
            inbox.releaseConsumer();
        }
        assertNotNull(task, "the offered task, on lane " + w);
        group.tasksTaken(w, 1);
        assertFalse(group.hasWork());

        dispatcher.read(() -> null);                     // applies the activation, as the next lock holder does
        assertTrue(group.runnable, "a PENDING activation makes the group runnable without looking at its queues");
        assertTrue(dispatcher.mayHaveWork());
        assertEquals(1, dispatcher.runnableFor(0));
        assertEquals(1, dispatcher.runnableFor(1));
    }
}
