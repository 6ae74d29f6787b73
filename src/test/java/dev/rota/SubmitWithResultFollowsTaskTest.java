package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.RotaTaskCompletionTest.Gated;
import dev.rota.contract.Liveness;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The future of {@code submit(task, result)} with a {@link RotaTask} completes with the task: also
 * when the task is cancelled or completed from outside while the future's own run is in its
 * compute(), which goes on and whose outcome the task drops. The task's joiners are answered at
 * once then, and so must the future's: it is not left waiting for a compute() whose outcome no
 * longer counts (here one that waits for the test to let it return, only after the checks).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SubmitWithResultFollowsTaskTest {

    /** What the test does to the task while its compute() runs, and checks of the task and its future. */
    @FunctionalInterface
    interface WhileComputing {
        void check(Gated task, Future<String> future) throws Exception;
    }

    private static void whileComputing(WhileComputing checks) throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).pinning(false).build()) {
            Gated task = new Gated();
            Future<String> future = pool.group("g", 100).submit(task, "result");
            Liveness.await(task.started, "the task's compute()");
            try {
                checks.check(task, future);
            } finally {
                task.release.countDown();
            }
        }
    }

    @Test
    void aCancelOfTheRunningTaskCancelsItsFuture() throws Exception {
        whileComputing((task, future) -> {
            assertTrue(task.cancel(false));
            assertThrows(CancellationException.class, task::join);
            assertThrows(CancellationException.class, () -> future.get(Liveness.SECONDS, TimeUnit.SECONDS),
                    "the future of submit(task, result) did not complete with its cancelled task");
        });
    }

    @Test
    void aCompleteOfTheRunningTaskCompletesItsFuture() throws Exception {
        whileComputing((task, future) -> {
            assertTrue(task.complete(7));
            assertEquals(7, task.join());
            assertEquals("result", future.get(Liveness.SECONDS, TimeUnit.SECONDS),
                    "the future of submit(task, result) did not complete with its completed task");
        });
    }
}
