package dev.rota;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.contract.Liveness;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A submission the pool refuses after shutdown counts in the default group's
 * {@code rejectedTasks()}, whichever method made it: {@code execute} and {@code submit}, and the four
 * {@code schedule*} methods, whose tasks run in that group.
 */
class ScheduleRejectedCountTest {
    private final RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
    }

    @Test
    void everySubmissionRefusedAfterShutdownCountsAsRejected() {
        pool.shutdown();

        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
        assertThrows(RejectedExecutionException.class, () -> pool.submit(() -> 1));
        assertEquals(2, rejected(), "execute and submit after shutdown");

        assertThrows(RejectedExecutionException.class, () -> pool.schedule(() -> { }, 1, SECONDS));
        assertThrows(RejectedExecutionException.class, () -> pool.schedule(() -> 1, 1, SECONDS));
        assertThrows(RejectedExecutionException.class, () -> pool.scheduleAtFixedRate(() -> { }, 1, 1, SECONDS));
        assertThrows(RejectedExecutionException.class, () -> pool.scheduleWithFixedDelay(() -> { }, 1, 1, SECONDS));
        assertEquals(6, rejected(), "the four schedule methods after shutdown");
    }

    /** An argument error is not a rejection: the task was never offered. */
    @Test
    void aBadArgumentIsNotCountedAsRejected() {
        assertThrows(IllegalArgumentException.class, () -> pool.scheduleAtFixedRate(() -> { }, 1, 0, SECONDS));
        assertThrows(NullPointerException.class, () -> pool.schedule((Runnable) null, 1, SECONDS));
        pool.shutdown();
        assertThrows(IllegalArgumentException.class, () -> pool.scheduleWithFixedDelay(() -> { }, 1, -1, SECONDS));
        assertEquals(0, rejected());
    }

    private long rejected() {
        return pool.defaultGroup().stats().rejectedTasks();
    }
}
