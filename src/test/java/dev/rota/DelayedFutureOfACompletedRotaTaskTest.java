package dev.rota;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The delayed future of a RotaTask given to {@code schedule} completes at its deadline, as README
 * documents: a task completed before then leaves that future waiting, and a shut-down pool waits
 * for it too, until the future is cancelled.
 */
class DelayedFutureOfACompletedRotaTaskTest {

    /** How long the shut-down pool is given to terminate wrongly; no timing is asserted. */
    private static final long WRONG_TERMINATION_WINDOW_MILLIS = 200;

    @Test
    void aScheduledRotaTaskCompletedEarlyHoldsItsFutureAndThePoolUntilCancelled() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        try {
            RotaTask<Void> task = RotaTask.adapt(() -> { }, null);
            ScheduledFuture<?> delayed = pool.schedule(task, 1, TimeUnit.HOURS);
            assertTrue(task.complete(null), "complete() of a task that never ran");
            assertTrue(task.isDone(), "the task completed by complete()");
            assertFalse(delayed.isDone(), "the delayed future completed before its deadline with its early-completed task");

            pool.shutdown();
            assertFalse(pool.awaitTermination(WRONG_TERMINATION_WINDOW_MILLIS, TimeUnit.MILLISECONDS),
                    "the shut-down pool terminated while a delayed future waited for its deadline");
            assertFalse(delayed.isDone(), "the delayed future completed when the pool shut down");

            assertTrue(delayed.cancel(false), "cancel() of the waiting delayed future");
            Liveness.awaitTermination(pool);
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
}
