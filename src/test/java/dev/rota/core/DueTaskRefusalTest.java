package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A delayed task that comes due was accepted when it was scheduled: the engine's refusal of it
 * ({@link Engine#executeDue} once the default group is closed) is not a refused submission, so it
 * does not count in the default group's rejected tasks; the scheduler cancels the task instead. A
 * plain {@code execute} refused at the same point does count.
 */
class DueTaskRefusalTest {

    @Test
    void aDueTaskRefusedByAStoppedEngineIsNotCountedAsRejected() throws Exception {
        Engine engine = new Engine("due-refusal", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true);
        engine.start();
        try {
            assertEquals(List.of(), engine.shutdownNow());
            AtomicInteger ran = new AtomicInteger();

            assertFalse(engine.executeDue(ran::incrementAndGet), "a stopped engine took a due task");
            assertEquals(0, engine.defaultGroup().rejectedTasks(), "a refused due task counted as a rejected submission");

            assertThrows(RejectedExecutionException.class, () -> engine.execute(ran::incrementAndGet));
            assertEquals(1, engine.defaultGroup().rejectedTasks(), "a refused execute counts");
            assertEquals(0, ran.get());
        } finally {
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }
}
