package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A slice looks at the clock every so many tasks, a number estimated from the tasks its worker ran
 * before. The estimate must come from the same group's tasks: one carried over from a slice of
 * tiny tasks lets a slice of another group, whose tasks each outlast the quantum, run dozens of them
 * before it looks, so that slice lasts dozens of quanta however the policy would have shared them.
 *
 * <p>One worker, a quantum of 1 ms. Group {@code fast} queues tasks of a few nanoseconds, group
 * {@code slow} tasks that each spin 3 ms. Every slice of {@code slow} must end after its first task.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SliceClockTest {

    private static final int SLOW_TASKS = 20;
    private static final int FAST_TASKS = 200_000;
    private static final long SLOW_TASK_NANOS = TimeUnit.MILLISECONDS.toNanos(3);

    // Written on the worker only (by the slow tasks and the observer); read by the test once every slow task is charged.
    private int slowInSlice;
    private volatile int mostSlowInOneSlice;
    private volatile int slowCharged;

    @Test
    void aSliceOfLongTasksAfterOneOfTinyTasksEndsAfterItsFirstTask() throws Exception {
        Engine engine = new Engine("slice-clock", new int[] {0}, new int[][] {{}}, new NoAffinity("test"),
                false, null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS,
                new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 7);
        engine.start();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group hold = dispatcher.newGroup("hold", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            Group fast = dispatcher.newGroup("fast", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            Group slow = dispatcher.newGroup("slow", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            dispatcher.observeSlices((group, used) -> {
                if (group == slow) {
                    mostSlowInOneSlice = Math.max(mostSlowInOneSlice, slowInSlice);
                    slowCharged += slowInSlice;
                    slowInSlice = 0;
                }
            });

            // Hold the worker until both groups' tasks are queued, so that their slices alternate.
            CountDownLatch held = new CountDownLatch(1);
            assertAccepted(hold.offer(() -> {
                held.countDown();
                try {
                    release.await(Liveness.SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            Liveness.await(held, "the holding task");
            CountDownLatch slowDone = new CountDownLatch(SLOW_TASKS);
            for (int i = 0; i < SLOW_TASKS; i++) {
                assertAccepted(slow.offer(() -> {
                    long end = System.nanoTime() + SLOW_TASK_NANOS;
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                    slowInSlice++;
                    slowDone.countDown();
                }));
            }
            CountDownLatch fastDone = new CountDownLatch(FAST_TASKS);
            for (int i = 0; i < FAST_TASKS; i++) {
                assertAccepted(fast.offer(fastDone::countDown));
            }
            release.countDown();
            Liveness.await(slowDone, "the slow tasks");
            Liveness.await(fastDone, "the fast tasks");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (slowCharged < SLOW_TASKS && System.nanoTime() < deadline) {
                Thread.sleep(1);                         // the last slow slice ends when the worker moves on or parks
            }
            assertEquals(SLOW_TASKS, slowCharged, "slow tasks in charged slices");
            assertEquals(1, mostSlowInOneSlice,
                    "a slice of 3 ms tasks with a 1 ms quantum ran more than one of them before it looked at the clock");
        } finally {
            release.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }
}
