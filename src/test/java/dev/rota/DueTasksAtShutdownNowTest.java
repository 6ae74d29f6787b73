package dev.rota;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A delayed task that has come due waits in the pool's queue while every worker is busy; a
 * {@code shutdownNow()} then returns it once and cancels it, as it does the delayed tasks still
 * waiting for their deadline, so that a thread waiting on its future is answered.
 */
class DueTasksAtShutdownNowTest {

    @Test
    void aDueOneShotTaskInTheQueueIsReturnedOnceAndCancelled() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            AtomicInteger ran = new AtomicInteger();
            ScheduledFuture<String> due = pool.schedule(() -> {
                ran.incrementAndGet();
                return "ran";
            }, 0, MILLISECONDS);
            OnlyWorker.awaitQueued(pool, 1);

            List<Runnable> returned = pool.shutdownNow();

            assertEquals(1, returned.stream().filter(r -> r == due).count(), "returned once: " + returned);
            assertEquals(0, ran.get());
            assertTrue(due.isCancelled(), "returned but not cancelled: " + due);
            assertThrows(CancellationException.class, () -> due.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    @Test
    void aDuePeriodicTaskInTheQueueIsCancelled() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(() -> { }, 0, 1, TimeUnit.HOURS);
            OnlyWorker.awaitQueued(pool, 1);

            List<Runnable> returned = pool.shutdownNow();

            assertEquals(1, returned.stream().filter(r -> r == periodic).count(), "never ran, so returned once: " + returned);
            assertTrue(periodic.isCancelled(), "the periodic task survived shutdownNow");
            assertThrows(CancellationException.class, () -> periodic.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * A periodic task that has run is not "never started", wherever it waits for its next run: in
     * the timer's heap or, come due while the worker is busy, in the pool's queue. Either way
     * shutdownNow() cancels it and does not return it.
     */
    @Test
    void aPeriodicTaskThatRanBeforeIsCancelledButNotReturned() throws Exception {
        for (boolean inTheQueue : new boolean[] {false, true}) {
            RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
            CountDownLatch release = new CountDownLatch(1);
            try {
                AtomicInteger runs = new AtomicInteger();
                ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(runs::incrementAndGet, 0, 20, MILLISECONDS);
                Liveness.awaitCondition(() -> runs.get() >= 1, "the first run");
                if (inTheQueue) {
                    OnlyWorker.occupy(pool, release);
                    OnlyWorker.awaitQueued(pool, 1);
                }

                List<Runnable> returned = pool.shutdownNow();

                assertTrue(returned.stream().noneMatch(r -> r == periodic),
                        (inTheQueue ? "from the pool's queue: " : "from the timer's heap: ") + returned);
                assertTrue(periodic.isCancelled(), "the periodic task survived shutdownNow");
            } finally {
                release.countDown();
                pool.shutdownNow();
                Liveness.awaitTermination(pool);
            }
        }
    }

    /**
     * A delayed task the user cancelled is not returned by shutdownNow(), wherever it was when
     * cancelled: in the timer's heap, which cancel() leaves at once, or come due and waiting in the
     * pool's queue, which cancel() cannot leave. Which of the two it was depends only on timing.
     */
    @Test
    void aDueTaskTheUserCancelledInTheQueueIsNotReturned() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            AtomicInteger ran = new AtomicInteger();
            ScheduledFuture<?> inTheHeap = pool.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS);
            ScheduledFuture<?> inTheQueue = pool.schedule(ran::incrementAndGet, 0, MILLISECONDS);
            OnlyWorker.awaitQueued(pool, 1);
            assertTrue(inTheHeap.cancel(false));
            assertTrue(inTheQueue.cancel(false));

            List<Runnable> returned = pool.shutdownNow();

            assertTrue(returned.stream().noneMatch(r -> r == inTheHeap), "from the timer's heap: " + returned);
            assertTrue(returned.stream().noneMatch(r -> r == inTheQueue), "from the pool's queue: " + returned);
            assertEquals(0, ran.get());
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * shutdownNow() cancels the pool's own delayed tasks, and no other task: a RunnableScheduledFuture
     * that a user (or another scheduler) executed on the pool comes back as ThreadPoolExecutor
     * returns its tasks, not cancelled, so that the caller can still run it elsewhere.
     */
    @Test
    void aRunnableScheduledFutureOfAnotherKindIsReturnedNotCancelled() throws Exception {
        final class Foreign extends FutureTask<String> implements RunnableScheduledFuture<String> {
            Foreign() {
                super(() -> "ran elsewhere");
            }

            @Override
            public boolean isPeriodic() {
                return false;
            }

            @Override
            public long getDelay(TimeUnit unit) {
                return 0;
            }

            @Override
            public int compareTo(Delayed other) {
                return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
            }
        }
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            Foreign foreign = new Foreign();
            pool.execute(foreign);
            OnlyWorker.awaitQueued(pool, 1);

            List<Runnable> returned = pool.shutdownNow();

            assertEquals(1, returned.stream().filter(r -> r == foreign).count(), "returned once: " + returned);
            assertFalse(foreign.isCancelled(), "shutdownNow cancelled a task that is not the pool's delayed task");
            foreign.run();
            assertEquals("ran elsewhere", foreign.get());
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * shutdownNow racing the timer's hand-off of a batch of due tasks, while the only worker is busy
     * until shutdownNow has returned: every task must come back from shutdownNow, including those
     * the timer had taken out of its heap but not yet passed to the pool. Spinning threads make the
     * timer lose its CPU in mid-batch; the stop comes at various points of the hand-off.
     */
    @Test
    void shutdownNowRacingTheTimersHandOffReturnsEveryTask() throws Exception {
        int trials = 200;
        int tasks = 3_000;
        AtomicBoolean stopSpinners = new AtomicBoolean();
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            spinners.add(Thread.ofPlatform().daemon().start(() -> {
                while (!stopSpinners.get()) {
                    Thread.onSpinWait();
                }
            }));
        }
        String firstLoss = null;
        int trialsWithLoss = 0;
        try {
            for (int t = 0; t < trials; t++) {
                RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
                CountDownLatch release = new CountDownLatch(1);
                OnlyWorker.occupy(pool, release);
                AtomicInteger ran = new AtomicInteger();
                List<ScheduledFuture<?>> futures = new ArrayList<>(tasks);
                for (int i = 0; i < tasks; i++) {
                    futures.add(pool.schedule(ran::incrementAndGet, 0, MILLISECONDS));
                }
                long until = System.nanoTime() + (t % 10) * 50_000L;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
                Set<Runnable> returned = Collections.newSetFromMap(new IdentityHashMap<>());
                returned.addAll(pool.shutdownNow());
                release.countDown();
                Liveness.awaitTermination(pool);
                long lost = futures.stream().filter(f -> !returned.contains(f)).count();
                if (lost > 0 || ran.get() > 0) {
                    trialsWithLoss++;
                    if (firstLoss == null) {
                        firstLoss = "trial " + t + ": " + lost + " of " + tasks + " not returned, " + ran.get() + " ran";
                    }
                }
            }
        } finally {
            stopSpinners.set(true);
            for (Thread spinner : spinners) {
                spinner.join();
            }
        }
        assertEquals(0, trialsWithLoss, "due tasks neither run nor returned in " + trialsWithLoss + " of "
                + trials + " trials; first: " + firstLoss);
    }

    /**
     * The pool stops its timer, then its queues. Due tasks that a worker takes from the queue in
     * between must run (every task taken runs), not be cancelled for the timer's stop: here the
     * worker is free again exactly when the timer has stopped, with ten due tasks queued.
     */
    @Test
    void dueTasksAWorkerTakesWhileThePoolStopsRunOrComeBack() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        List<ScheduledFuture<?>> far = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {                 // makes the timer's part of shutdownNow take a while
            far.add(pool.schedule(() -> { }, 1, TimeUnit.HOURS));
        }
        ScheduledFuture<?> firstFar = far.getFirst();       // the first one shutdownNow cancels (deadline order)
        CountDownLatch busy = new CountDownLatch(1);
        pool.execute(() -> {
            busy.countDown();
            while (!firstFar.isCancelled()) {               // free again once the timer has stopped
                Thread.onSpinWait();
            }
        });
        Liveness.await(busy, "the occupying task never started");
        AtomicInteger ran = new AtomicInteger();
        List<ScheduledFuture<?>> due = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            due.add(pool.schedule(ran::incrementAndGet, 0, MILLISECONDS));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        while (pool.queuedTasks() < 10 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(10, pool.queuedTasks(), "the timer handed all ten to the pool");

        Set<Runnable> returned = Collections.newSetFromMap(new IdentityHashMap<>());
        returned.addAll(pool.shutdownNow());
        Liveness.awaitTermination(pool);

        long dueReturned = due.stream().filter(returned::contains).count();
        assertEquals(10, ran.get() + dueReturned, "ran " + ran.get() + ", returned " + dueReturned
                + ", cancelled and neither: " + due.stream().filter(f -> f.isCancelled() && !returned.contains(f)).count());
    }

    /**
     * shutdownNow() cancels the due tasks it drains from the pool's queues, and must do so before
     * the pool can terminate: a thread that sees the pool terminated must find every delayed future
     * done. Here the only worker's task ends at shutdownNow's interrupt, so the pool may terminate
     * as soon as the queues are drained, while 100,000 drained futures are still to be cancelled.
     */
    @Test
    void dueTasksDrainedFromTheQueueAreCancelledBeforeThePoolTerminates() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch release = new CountDownLatch(1);
        try {
            OnlyWorker.occupy(pool, release);
            int count = 100_000;
            List<ScheduledFuture<?>> due = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                due.add(pool.schedule(() -> { }, 0, MILLISECONDS));
            }
            Liveness.awaitCondition(() -> pool.queuedTasks() >= count, "the timer handing every due task to the pool");
            AtomicLong pendingAtTermination = new AtomicLong(-1);
            Thread watcher = new Thread(() -> {
                try {
                    if (pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS)) {
                        pendingAtTermination.set(due.stream().filter(f -> !f.isDone()).count());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "termination-watcher");
            watcher.start();
            Liveness.awaitCondition(() -> watcher.getState() == Thread.State.TIMED_WAITING, "the watcher waiting");

            List<Runnable> returned = pool.shutdownNow();

            watcher.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
            assertEquals(count, returned.size(), "every due task returned");
            assertEquals(0, pendingAtTermination.get(), "delayed futures not yet cancelled when the pool terminated");
        } finally {
            release.countDown();
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }
}
