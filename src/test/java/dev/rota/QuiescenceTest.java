package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RotaPool#isQuiescent()} and {@link RotaPool#awaitQuiescence}, as ForkJoinPool has them: true
 * only when no task is queued or running, and then with every task's writes visible; and the common
 * pool's {@code awaitTermination}, which waits for quiescence rather than for the whole timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuiescenceTest {

    @Test
    void anIdlePoolIsQuiescentAndOneWithATaskRunningIsNot() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS), "a pool with no task");
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<?> blocked = pool.submit(() -> {
                started.countDown();
                release.await();
                return null;
            });
            Liveness.await(started, "the task started");
            assertFalse(pool.isQuiescent(), "a task runs");
            assertFalse(pool.awaitQuiescence(20, TimeUnit.MILLISECONDS), "a task runs");
            release.countDown();
            blocked.get(Liveness.SECONDS, TimeUnit.SECONDS);
            assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /** A task that waits in a queue behind a running one on a pool of one worker keeps the pool busy. */
    @Test
    void aQueuedTaskKeepsThePoolBusy() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            pool.execute(() -> {
                started.countDown();
                Liveness.awaitQuietly(release);
            });
            Liveness.await(started, "the first task started");
            AtomicInteger ran = new AtomicInteger();
            pool.execute(ran::incrementAndGet);
            assertFalse(pool.isQuiescent());
            release.countDown();
            assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(1, ran.get(), "quiescent before the queued task ran");
        }
    }

    /**
     * The property a caller relies on: once awaitQuiescence returns true, every task submitted before
     * it, and every task those forked or submitted, has run, and its writes are visible. Plain fields
     * written by the tasks, read after the wait, rounds over: a quiescence seen while a task still
     * ran, or queued, or was on its way from one queue to another, shows as a missing count.
     */
    @Test
    void afterAwaitQuiescenceEveryTaskHasRunAndItsWritesAreSeen() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            TaskGroup other = pool.group("other", 1);
            for (int round = 0; round < 200; round++) {
                long[] written = new long[64];
                AtomicLong runs = new AtomicLong();
                for (int i = 0; i < written.length; i++) {
                    int slot = i;
                    (i % 2 == 0 ? pool : other).execute(() -> {
                        runs.incrementAndGet();
                        // a task of the other group, submitted from this one: moves between groups and lanes
                        other.execute(() -> {
                            runs.incrementAndGet();
                            written[slot] = slot + 1;    // plain write, seen through quiescence alone
                        });
                    });
                }
                assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS), "round " + round);
                assertEquals(2L * written.length, runs.get(), "round " + round + ": quiescent with tasks left");
                for (int i = 0; i < written.length; i++) {
                    assertEquals(i + 1, written[i], "round " + round + ", slot " + i);
                }
            }
        }
    }

    /** The same for fork/join: a computation whose forks are stolen back and forth. */
    @Test
    void afterAwaitQuiescenceEveryForkHasRun() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            for (int round = 0; round < 50; round++) {
                AtomicLong leaves = new AtomicLong();
                pool.execute(new Leaves(0, 1 << 12, leaves));
                assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS), "round " + round);
                assertEquals(1 << 12, leaves.get(), "round " + round + ": quiescent with forks left");
            }
        }
    }

    /** Forks both halves, joins neither: the forks alone keep the pool busy. */
    private static final class Leaves extends RotaTask<Void> {
        final int lo;
        final int hi;
        final AtomicLong leaves;

        Leaves(int lo, int hi, AtomicLong leaves) {
            this.lo = lo;
            this.hi = hi;
            this.leaves = leaves;
        }

        @Override
        protected Void compute() {
            if (hi - lo == 1) {
                leaves.incrementAndGet();
                return null;
            }
            int mid = (lo + hi) >>> 1;
            new Leaves(lo, mid, leaves).fork();
            new Leaves(mid, hi, leaves).fork();
            return null;
        }
    }

    /** A worker blocked in a managed block while a spare runs the queue is a task running. */
    @Test
    void aTaskBlockedWithASpareStandingInKeepsThePoolBusy() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            CountDownLatch blocking = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            pool.execute(() -> {
                blocking.countDown();
                try {
                    RotaPool.managedBlock(new LatchBlocker(release));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Liveness.await(blocking, "the task about to block");
            assertEquals(7, pool.submit(() -> 7).get(Liveness.SECONDS, TimeUnit.SECONDS), "the spare runs tasks");
            assertFalse(pool.isQuiescent(), "the blocked task still runs");
            release.countDown();
            assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /**
     * Q3: a spare's task that outlives the block it stood in for keeps the pool busy after the
     * worker has gone back to sleep, although every worker is then parked.
     */
    @Test
    void aSparesLastTaskKeepsThePoolBusyAfterItsWorkerParked() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            CountDownLatch releaseBlock = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(1);
            Future<?> blocked = pool.submit(() -> {
                blocking.countDown();
                RotaPool.managedBlock(new LatchBlocker(releaseBlock));
                return null;
            });
            Liveness.await(blocking, "the task about to block");
            CountDownLatch onSpare = new CountDownLatch(1);
            CountDownLatch releaseSpare = new CountDownLatch(1);
            pool.execute(() -> {                         // runs on the spare: the worker is blocked
                onSpare.countDown();
                Liveness.awaitQuietly(releaseSpare);
            });
            try {
                Liveness.await(onSpare, "the spare's task started");
                long parksBefore = pool.workerStats().getFirst().parks();
                releaseBlock.countDown();
                blocked.get(Liveness.SECONDS, TimeUnit.SECONDS);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
                while (pool.workerStats().getFirst().parks() == parksBefore) {
                    assertTrue(System.nanoTime() < deadline, "the worker never parked after its block");
                    Thread.sleep(1);
                }
                assertFalse(pool.isQuiescent(), "the spare's task still runs, every worker parked");
            } finally {
                releaseBlock.countDown();
                releaseSpare.countDown();
            }
            assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /** A task that is due counts, with the timer too: awaitQuiescence returns once it has run. */
    @Test
    void aDueTaskCountsFromItsDeadline() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            for (int round = 0; round < 200; round++) {
                AtomicInteger ran = new AtomicInteger();
                pool.schedule(ran::incrementAndGet, 0, TimeUnit.NANOSECONDS);
                assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS), "round " + round);
                assertEquals(1, ran.get(), "round " + round + ": quiescent before the due task ran");
            }
        }
    }

    /**
     * On another pool's thread the wait is a managed block: a spare runs that pool's tasks meanwhile,
     * so a pool of one worker goes on serving while its task waits for the other pool.
     */
    @Test
    void aWaitFromAnotherPoolsTaskLetsThatPoolGoOn() throws Exception {
        try (RotaPool waiting = RotaPool.builder().workers(1).build();
             RotaPool busy = RotaPool.builder().workers(1).build()) {
            CountDownLatch release = new CountDownLatch(1);
            busy.execute(() -> Liveness.awaitQuietly(release));
            Future<Boolean> waiter = waiting.submit(() -> busy.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(7, waiting.submit(() -> 7).get(Liveness.SECONDS, TimeUnit.SECONDS),
                    "the waiting pool's other task, run by a spare");
            assertFalse(waiter.isDone());
            release.countDown();
            assertTrue(waiter.get(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    @Test
    void delayedTasksNotYetDueDoNotCount() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            ScheduledFuture<?> later = pool.schedule(() -> { }, 1, TimeUnit.HOURS);
            assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS));
            later.cancel(false);
        }
    }

    @Test
    void aTaskOfThePoolCannotWaitForItsQuiescence() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            Future<Boolean> waiting = pool.submit(() -> pool.awaitQuiescence(1, TimeUnit.SECONDS));
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> waiting.get(Liveness.SECONDS, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof IllegalStateException, failed.toString());
            try (RotaPool other = RotaPool.builder().workers(1).build()) {
                assertTrue(pool.submit(() -> other.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS))
                        .get(Liveness.SECONDS, TimeUnit.SECONDS), "another pool's task may wait");
            }
        }
    }

    @Test
    void anInterruptEndsTheWaitAndStaysSet() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            CountDownLatch release = new CountDownLatch(1);
            pool.execute(() -> Liveness.awaitQuietly(release));
            Thread.currentThread().interrupt();
            try {
                assertFalse(pool.awaitQuiescence(1, TimeUnit.HOURS));
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
                release.countDown();
            }
        }
    }

    /**
     * As ForkJoinPool.commonPool(): awaitTermination waits for quiescence and returns false, so a
     * caller that waits an hour for the common pool's tasks returns once they are done.
     */
    @Test
    void theCommonPoolsAwaitTerminationReturnsFalseOnceQuiescent() throws Exception {
        RotaPool common = RotaPool.commonPool();
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            common.execute(ran::incrementAndGet);
        }
        assertFalse(common.awaitTermination(1, TimeUnit.HOURS)); // the class's @Timeout fails a whole wait
        assertEquals(100, ran.get(), "every task ran before the wait ended");
        boolean fromItsOwnTask = common.submit(() -> common.awaitTermination(10, TimeUnit.MILLISECONDS))
                .get(Liveness.SECONDS, TimeUnit.SECONDS);
        assertFalse(fromItsOwnTask, "a task of the common pool waits out the timeout, without throwing");
    }
}
