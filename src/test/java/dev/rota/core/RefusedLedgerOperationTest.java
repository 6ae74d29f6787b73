package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A public ticket operation that the ledger refuses (a bad amount, a withdrawn funding) runs under
 * the dispatcher's lock after the queued activations were applied. Those activations are consumed
 * whether or not the operation succeeds, so the runnable count that idle workers read without the
 * lock must be published either way: else the activation has left the queue, the count still says
 * nothing is runnable, and a worker woken by the submission finds "no work" and parks again, leaving
 * the accepted task queued until something else wakes a worker.
 *
 * <p>The engine is not started, so no worker takes the queued task: every state is set by the test.
 */
class RefusedLedgerOperationTest {

    private Engine engine;
    private Dispatcher dispatcher;
    private Group group;

    @BeforeEach
    void createGroup() {
        engine = new Engine("refused-ledger-operation", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS, new StrideScheduler(),
                TimeUnit.MILLISECONDS.toNanos(1), 42);
        dispatcher = engine.dispatcher();
        group = dispatcher.newGroup("gold", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
    }

    @AfterEach
    void stop() {
        engine.shutdownNow();
    }

    @Test
    void aRefusedTicketChangeStillPublishesTheActivationItApplied() {
        int idleBefore = dispatcher.readLedger(ledger -> ledger.runnableCount());
        assertAccepted(group.offer(() -> { }));
        assertTrue(dispatcher.activationsPending(), "the offer queued the group's activation");

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> dispatcher.withLedger(ledger -> {
                    ledger.setTickets(group.client(), 0);
                    return null;
                }));
        assertEquals("tickets must be positive: 0", refused.getMessage());

        assertTrue(group.runnable, "the activation was applied under the lock");
        assertFalse(dispatcher.activationsPending(), "and so left the queue");
        // Before anything else takes the lock (which would publish the count itself):
        assertTrue(dispatcher.mayHaveWork(), "an idle worker must see the group's task: nothing else will wake it");
        int runnableAfter = dispatcher.readLedger(ledger -> ledger.runnableCount());
        assertEquals(idleBefore + 1, runnableAfter);
    }
}
