package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A shutdownNow's drain settling the future of {@code submit(task, result)} with a {@link RotaTask}
 * ({@link GroupFuture#settleDrained}) racing the future's waiter, which runs the future in place
 * where no spare stands in for it ({@link GroupFuture#claimForWaiter}, then its run, as
 * {@code Engine.runAwaitedTask} does). The drain claims the task's start (its cancelUnstarted) and
 * then cancels the future; a waiter's run that comes between the two finds the task claimed, does
 * not compute it, and completes the future with the task, cancelled. The task never started, so
 * the drain must still hand it back: otherwise it is neither run nor returned by shutdownNow().
 *
 * <p>The drain is held between its two steps by an action the test gives the task's completion
 * ({@link RotaTask#whenDone}: the drain's cancel of the task runs it on the drain's thread), as a
 * preemption there would hold it; the waiter runs meanwhile on its own thread.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DrainRacingAwaitedRunTest {

    static final class Counted extends RotaTask<Integer> {
        final AtomicInteger computed = new AtomicInteger();

        @Override
        protected Integer compute() {
            computed.incrementAndGet();
            return 42;
        }
    }

    @Test
    void aWaiterRunBetweenTheDrainsTaskClaimAndItsCancelLeavesTheTaskHandedBack() throws Exception {
        Counted task = new Counted();
        GroupFuture<String> future = new GroupFuture<>(task, "done", null);
        GroupFuture.acceptedAsItself(future, null);      // queued as itself in its own group (null here)

        CountDownLatch drainInWindow = new CountDownLatch(1);
        CountDownLatch waiterDone = new CountDownLatch(1);
        AtomicBoolean waiterClaimed = new AtomicBoolean();
        task.whenDone(() -> {                            // on the drain's thread, right after it cancelled the task
            drainInWindow.countDown();
            try {
                waiterDone.await(Liveness.SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread waiter = new Thread(() -> {
            try {
                drainInWindow.await();
            } catch (InterruptedException e) {
                return;
            }
            if (future.claimForWaiter()) {
                waiterClaimed.set(true);
                future.run();
            }
            waiterDone.countDown();
        }, "waiter");
        waiter.start();

        boolean handedBack = GroupFuture.settleDrained(future);
        waiter.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));

        assertEquals(0, task.computed.get(), "the drain claimed the task's start, yet it computed");
        assertTrue(task.isCancelled(), "task: " + task);
        assertTrue(future.isCancelled(), "future: " + future);
        assertTrue(handedBack, "never started, yet not handed back (waiter claimed the future: "
                + waiterClaimed.get() + "): neither run nor returned by shutdownNow");
    }

    /** Without a waiter in the window: handed back, the task and its future cancelled. */
    @Test
    void aDrainAloneHandsBackTheUnstartedTaskAndCancelsItsFuture() {
        Counted task = new Counted();
        GroupFuture<String> future = new GroupFuture<>(task, "done", null);
        GroupFuture.acceptedAsItself(future, null);

        assertTrue(GroupFuture.settleDrained(future));
        assertTrue(task.isCancelled(), "task: " + task);
        assertTrue(future.isCancelled(), "future: " + future);
        future.run();                                    // a run after the drain does nothing
        assertEquals(0, task.computed.get());
    }
}
