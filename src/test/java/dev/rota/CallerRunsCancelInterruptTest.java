package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code cancel(true)} interrupts only the task it is meant for: a group's future that
 * {@link RejectionPolicy#CALLER_RUNS} runs inside another task's code, cancelled with an interrupt
 * while it runs there and returning with the interrupt still set, leaves no interrupt for the code
 * that ran it. The inner future is made as {@code submit} makes it ({@code newTaskFor}, then
 * {@code execute}), so that the test holds it before the caller runs it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallerRunsCancelInterruptTest {

    @Test
    void aCancelOfAFutureRunByCallerRunsDoesNotReachTheCodeThatRanIt() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).pinning(false).build()) {
            TaskGroup outerGroup = pool.group("outer", 100);
            TaskGroup full = pool.group("full", 100);
            full.setQueueCapacity(1);
            full.setRejectionPolicy(RejectionPolicy.CALLER_RUNS);
            CountDownLatch innerStarted = new CountDownLatch(1);
            CountDownLatch fillerRelease = new CountDownLatch(1);
            AtomicReference<Thread> outerThread = new AtomicReference<>();
            AtomicReference<Boolean> innerOnOuterThread = new AtomicReference<>();
            GroupFuture<Object> inner = new GroupFuture<>(() -> {
                innerOnOuterThread.set(Thread.currentThread() == outerThread.get());
                innerStarted.countDown();
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.onSpinWait();                 // returns with its interrupt still set
                }
                return null;
            }, full.core);
            Future<Boolean> outer = outerGroup.submit(() -> {
                outerThread.set(Thread.currentThread());
                full.execute(() -> {                     // fills the queue of one (the only worker is here)
                    try {
                        fillerRelease.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                full.execute(inner);                     // refused as full: CALLER_RUNS runs it here
                return Thread.currentThread().isInterrupted(); // back in the outer task's own code
            });
            try {
                Liveness.await(innerStarted, "the inner future's run");
                assertEquals(Boolean.TRUE, innerOnOuterThread.get(), "set-up: CALLER_RUNS ran the inner future in place");
                assertTrue(inner.cancel(true));
                assertFalse(outer.get(Liveness.SECONDS, TimeUnit.SECONDS),
                        "the inner future's cancel(true) reached the code that ran it");
            } finally {
                fillerRelease.countDown();
            }
        }
    }
}
