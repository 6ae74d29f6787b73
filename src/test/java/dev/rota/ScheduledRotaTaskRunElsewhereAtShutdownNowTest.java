package dev.rota;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A {@link RotaTask} given to {@code schedule} that its user also ran through {@code invoke()}
 * before the delayed future ran it: {@code shutdownNow()} does not return that future as a task
 * that never started (README: a task "run by an {@code invoke()}" is not returned), wherever the
 * future waits, in the timer's heap or come due in a busy worker's queue; the future completes
 * with the task, as its own run would have, and the task is not cancelled. One that nobody ran is
 * still returned and cancelled with its task.
 */
class ScheduledRotaTaskRunElsewhereAtShutdownNowTest {

    /** Counts its computations; fails with {@code failure} when one is given. */
    static final class Counted extends RotaTask<Integer> {
        final AtomicInteger computed = new AtomicInteger();
        final RuntimeException failure;

        Counted(RuntimeException failure) {
            this.failure = failure;
        }

        @Override
        protected Integer compute() {
            computed.incrementAndGet();
            if (failure != null) {
                throw failure;
            }
            return 42;
        }
    }

    @Test
    void anInvokedTaskWaitingInTheTimersHeapIsNotReturned() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            Counted invoked = new Counted(null);
            ScheduledFuture<?> future = pool.schedule(invoked, 1, HOURS);
            Counted untouched = new Counted(null);
            ScheduledFuture<?> untouchedFuture = pool.schedule(untouched, 1, HOURS);
            assertEquals(42, invoked.invoke());

            List<Runnable> returned = pool.shutdownNow();

            assertTrue(returned.stream().noneMatch(r -> r == future),
                    "returned as never started, though its task ran through invoke(): " + returned);
            assertTrue(invoked.isCompletedNormally(), invoked.toString());
            assertNull(future.get(Liveness.SECONDS, TimeUnit.SECONDS), "completes with the task it ran");
            assertEquals(1, invoked.computed.get());

            assertEquals(1, returned.stream().filter(r -> r == untouchedFuture).count(), "never ran: " + returned);
            assertTrue(untouched.isCancelled(), "a joiner of the task nobody ran would wait for ever");
            assertEquals(0, untouched.computed.get());
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    @Test
    void anInvokedTaskWhoseFutureCameDueInTheQueueIsNotReturned() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            RuntimeException thrown = new IllegalStateException("compute failed");
            Counted invoked = new Counted(thrown);
            ScheduledFuture<?> future = pool.schedule(invoked, 0, MILLISECONDS);
            OnlyWorker.awaitQueued(pool, 1);
            assertSame(thrown, assertThrows(IllegalStateException.class, invoked::invoke));

            List<Runnable> returned = pool.shutdownNow();

            assertTrue(returned.stream().noneMatch(r -> r == future),
                    "returned as never started, though its task ran through invoke(): " + returned);
            assertFalse(invoked.isCancelled(), invoked.toString());
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> future.get(Liveness.SECONDS, TimeUnit.SECONDS), "completes with the task it ran");
            assertSame(thrown, e.getCause());
            assertEquals(1, invoked.computed.get());
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /** A task the user cancelled, not the future: the future is not returned, and reports the cancellation. */
    @Test
    void aTaskTheUserCancelledIsNotReturned() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        try {
            Counted cancelled = new Counted(null);
            ScheduledFuture<?> future = pool.schedule(cancelled, 1, HOURS);
            assertTrue(cancelled.cancel(false));

            List<Runnable> returned = pool.shutdownNow();

            assertTrue(returned.stream().noneMatch(r -> r == future), "the user cancelled its task: " + returned);
            assertThrows(CancellationException.class, () -> future.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
}
