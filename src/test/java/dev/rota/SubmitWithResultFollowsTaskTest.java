package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
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

    /** A task whose compute() waits until {@link #release} opens. */
    static final class HeldTask extends RotaTask<String> {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected String compute() {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "computed";
        }
    }

    @Test
    void aCancelOfTheRunningTaskCancelsItsFuture() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).pinning(false).build()) {
            HeldTask task = new HeldTask();
            Future<String> future = pool.group("g", 100).submit(task, "result");
            Liveness.await(task.started, "the task's compute()");
            try {
                assertTrue(task.cancel(false));
                assertThrows(CancellationException.class, task::join);
                assertThrows(CancellationException.class, () -> future.get(Liveness.SECONDS, TimeUnit.SECONDS),
                        "the future of submit(task, result) did not complete with its cancelled task");
            } finally {
                task.release.countDown();
            }
        }
    }

    @Test
    void aCompleteOfTheRunningTaskCompletesItsFuture() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).pinning(false).build()) {
            HeldTask task = new HeldTask();
            Future<String> future = pool.group("g", 100).submit(task, "result");
            Liveness.await(task.started, "the task's compute()");
            try {
                assertTrue(task.complete("given"));
                assertEquals("given", task.join());
                assertEquals("result", future.get(Liveness.SECONDS, TimeUnit.SECONDS),
                        "the future of submit(task, result) did not complete with its completed task");
            } finally {
                task.release.countDown();
            }
        }
    }
}
