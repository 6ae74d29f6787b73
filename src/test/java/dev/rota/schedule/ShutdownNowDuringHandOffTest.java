package dev.rota.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * S3 of DelayScheduler: shutdownNow returns, on any thread but the timer's, only once the timer has
 * passed its batch to the sink, so that a pool draining its queues afterwards finds every due task.
 * A sink that holds the timer in its hand-off until released makes the window as wide as needed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShutdownNowDuringHandOffTest {
    private static final long LIVENESS_SECONDS = 30;

    /** Holds the timer inside submitDue until released; then accepts, or dies with {@code failure}. */
    private static final class HeldSink implements DueTaskSink {
        final CountDownLatch inSubmit = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean received = new AtomicBoolean();
        final Throwable failure;

        HeldSink(Throwable failure) {
            this.failure = failure;
        }

        @Override
        public boolean submitDue(Runnable task) {
            inSubmit.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failure != null) {
                HeldSink.<RuntimeException>sneakyThrow(failure);
            }
            received.set(true);
            return true;
        }

        @Override
        public void schedulerIdle() {}

        @SuppressWarnings("unchecked")
        private static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
            throw (E) t;
        }
    }

    private static Thread startWaiting(Runnable action) {
        Thread thread = Thread.ofPlatform().daemon().start(action);
        while (thread.getState() != Thread.State.WAITING && thread.isAlive()) {
            Thread.onSpinWait();
        }
        return thread;
    }

    @Test
    void everyShutdownNowWaitsForTheHandOffNotOnlyTheFirst() throws Exception {
        HeldSink sink = new HeldSink(null);
        DelayScheduler scheduler = new DelayScheduler(sink, "held-timer");
        scheduler.schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
        assertTrue(sink.inSubmit.await(LIVENESS_SECONDS, TimeUnit.SECONDS), "the timer never handed the task off");

        Thread first = startWaiting(scheduler::shutdownNow);
        AtomicReference<List<Runnable>> secondResult = new AtomicReference<>();
        AtomicBoolean handedOffWhenSecondReturned = new AtomicBoolean();
        Thread second = Thread.ofPlatform().daemon().start(() -> {
            secondResult.set(scheduler.shutdownNow());
            handedOffWhenSecondReturned.set(sink.received.get());
        });
        second.join(500);                                // it must still wait; a return now is the fault
        sink.release.countDown();
        first.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        second.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        assertFalse(first.isAlive() || second.isAlive(), "shutdownNow still waits after the hand-off");
        assertEquals(List.of(), secondResult.get(), "the first caller returns the pending tasks");
        assertTrue(handedOffWhenSecondReturned.get(),
                "the second shutdownNow returned while the timer still held a due task");
    }

    /** A timer that dies in its hand-off (an Error, or a sneaky checked exception) still releases shutdownNow. */
    @Test
    void shutdownNowReturnsWhenTheTimerDiesInItsHandOff() throws Exception {
        HeldSink sink = new HeldSink(new java.io.IOException("the timer dies"));
        DelayScheduler scheduler = new DelayScheduler(sink, "dying-timer");
        scheduler.schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
        assertTrue(sink.inSubmit.await(LIVENESS_SECONDS, TimeUnit.SECONDS), "the timer never handed the task off");
        Thread stopper = startWaiting(scheduler::shutdownNow);
        sink.release.countDown();
        stopper.join(TimeUnit.SECONDS.toMillis(LIVENESS_SECONDS));
        assertFalse(stopper.isAlive(), "shutdownNow still waits for a hand-off that ended with the timer");
    }
}
