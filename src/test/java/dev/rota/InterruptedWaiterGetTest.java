package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.rota.contract.Liveness;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * FutureTask's get() on a thread whose interrupt status is set throws InterruptedException while the
 * future is not done. A pool task that calls get() of another group's queued future while interrupted
 * must do the same, whether or not a spare can stand in: with none, it must not run the awaited task
 * in place and then return its result, as if it had not been interrupted.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class InterruptedWaiterGetTest {

    private static String outcomeOfInterruptedGet(RotaPool pool, AtomicBoolean awaitedRan) throws Exception {
        TaskGroup client = pool.group("client", 100);
        TaskGroup server = pool.group("server", 100);
        Future<String> waiter = client.submit(() -> {
            Future<Integer> reply = server.submit(() -> {
                awaitedRan.set(true);
                return 42;
            });
            Thread.currentThread().interrupt();
            try {
                return "returned " + reply.get();
            } catch (InterruptedException e) {
                return "InterruptedException";
            } finally {
                Thread.interrupted();
            }
        });
        return waiter.get(Liveness.SECONDS, TimeUnit.SECONDS);
    }

    /** With a spare to stand in, the wait is FutureTask's: the interrupt is reported. */
    @Test
    void withASpareAnInterruptedGetThrows() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            assertEquals("InterruptedException", outcomeOfInterruptedGet(pool, new AtomicBoolean()));
        }
    }

    /** With no spare, the same get must report the interrupt too, and not run the awaited task in place. */
    @Test
    void withoutASpareAnInterruptedGetThrowsToo() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).build()) {
            AtomicBoolean awaitedRan = new AtomicBoolean();
            String outcome = outcomeOfInterruptedGet(pool, awaitedRan);
            assertEquals("InterruptedException", outcome,
                    "get() on an interrupted thread of a future not done (awaited task ran in the waiter: "
                            + awaitedRan.get() + ")");
        }
    }
}
