package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Once a pool has terminated its figures are final and exact: {@code completedTasks()} counts every
 * task that ran once, whichever way it ran, and agrees with the sum of its groups' counts, also for
 * a task whose queued copy a {@code shutdownNow} drained and did not return (one its waiter ran in
 * place, or a RotaTask the user cancelled), which the groups count as completed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PoolFiguresAfterTerminationTest {

    /** The waiter's task ran B in place; shutdownNow drains B's queued copy, done, and keeps it: B ran, once. */
    @Test
    void aTaskItsWaiterRanCountsInThePoolWhenShutdownNowDrainsItsCopy() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).build();
        CountDownLatch awaitedRan = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        pool.execute(() -> {
            Future<?> awaited = pool.submit(awaitedRan::countDown); // on the only worker's own queue
            try {
                awaited.get();                           // no spare: runs it in place
                release.await();                         // holds the worker: the copy stays queued
            } catch (Exception e) {
                Thread.currentThread().interrupt();      // shutdownNow's interrupt ends it
            }
        });
        Liveness.await(awaitedRan, "the awaited task never ran");
        List<Runnable> returned = pool.shutdownNow();
        assertEquals(List.of(), returned, "the awaited task ran: not returned");
        Liveness.awaitTermination(pool);
        GroupStats stats = pool.defaultGroup().stats();
        assertEquals(2, stats.completedTasks(), stats.toString());
        assertEquals(2, pool.completedTasks(), "the waiter and the task it ran in place: " + pool);
    }

    /** A RotaTask the user cancelled counts when a worker skips it; as much when shutdownNow drains it. */
    @Test
    void aCancelledTaskDrainedByShutdownNowCountsInThePoolAsInItsGroup() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        CountDownLatch release = new CountDownLatch(1);
        OnlyWorker.occupy(pool, release);
        RotaTask<?> cancelled = pool.submit(RotaTask.adapt(() -> { }));
        assertTrue(cancelled.cancel(false));
        assertEquals(List.of(), pool.shutdownNow(), "a task the user cancelled is not returned");
        Liveness.awaitTermination(pool);
        GroupStats stats = pool.defaultGroup().stats();
        assertEquals(2, stats.completedTasks(), stats.toString());
        assertEquals(stats.completedTasks(), pool.completedTasks(), "the pool's count and its group's: " + pool);
    }

    /** Forks two halves and joins them: three tasks of the pool. */
    private static final class Forking extends RotaTask<Integer> {
        @Override
        protected Integer compute() {
            RotaTask<Integer> a = RotaTask.adapt(() -> 1).fork();
            RotaTask<Integer> b = RotaTask.adapt(() -> 2).fork();
            return b.join() + a.join();
        }
    }

    /** A known mix of tasks, every way a task runs; once terminated, each ran task counts exactly once. */
    @Test
    void aKnownMixCountsExactlyAfterTermination() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        TaskGroup bounded = pool.group("bounded", 100);
        bounded.setQueueCapacity(1);
        bounded.setRejectionPolicy(RejectionPolicy.CALLER_RUNS);
        int expectedDefault = 0;
        AtomicInteger runs = new AtomicInteger();

        for (int i = 0; i < 10; i++) {
            pool.execute(runs::incrementAndGet);
        }
        expectedDefault += 10;
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            futures.add(pool.submit(runs::incrementAndGet));
        }
        expectedDefault += 10;
        for (Future<?> f : futures) {
            f.get(Liveness.SECONDS, TimeUnit.SECONDS);
        }
        assertEquals(3, pool.submit(new Forking()).get(Liveness.SECONDS, TimeUnit.SECONDS));
        expectedDefault += 3;                            // the root and its two forks
        List<Callable<Integer>> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(runs::incrementAndGet);
        }
        pool.invokeAll(five);
        expectedDefault += 5;
        assertEquals(7, pool.invokeAny(List.<Callable<Integer>>of(() -> 7)));
        expectedDefault += 1;
        pool.schedule(runs::incrementAndGet, 1, TimeUnit.MILLISECONDS).get(Liveness.SECONDS, TimeUnit.SECONDS);
        expectedDefault += 1;
        AtomicInteger periodicRuns = new AtomicInteger();
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(() -> {
            if (periodicRuns.incrementAndGet() == 3) {
                throw new IllegalStateException("third run ends it");
            }
        }, 0, 1, TimeUnit.MILLISECONDS);
        assertThrows(ExecutionException.class, () -> periodic.get(Liveness.SECONDS, TimeUnit.SECONDS));
        expectedDefault += 3;                            // one per run
        // A task blocked in a managed block while the task it waits for runs (on a spare).
        pool.submit(() -> {
            CountDownLatch done = new CountDownLatch(1);
            pool.execute(done::countDown);
            RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                @Override
                public boolean block() throws InterruptedException {
                    done.await();
                    return true;
                }

                @Override
                public boolean isReleasable() {
                    return done.getCount() == 0;
                }
            });
            return null;
        }).get(Liveness.SECONDS, TimeUnit.SECONDS);
        expectedDefault += 2;
        // While the only worker is held: a future cancelled in the queue (skipped, and counted), and
        // a full bounded group whose caller runs the refused task (not the group's: not counted).
        CountDownLatch release = new CountDownLatch(1);
        OnlyWorker.occupy(pool, release);
        expectedDefault += 1;
        Future<?> cancelled = pool.submit(runs::incrementAndGet);
        assertTrue(cancelled.cancel(false));
        expectedDefault += 1;
        bounded.execute(runs::incrementAndGet);
        Thread caller = Thread.currentThread();
        AtomicInteger ranInCaller = new AtomicInteger();
        bounded.execute(() -> ranInCaller.addAndGet(Thread.currentThread() == caller ? 1 : 100));
        assertEquals(1, ranInCaller.get(), "the refused task ran in the caller");
        release.countDown();
        assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS), pool.toString());
        PoolSnapshot quiescent = pool.snapshot();
        assertEquals(0, pool.queuedTasks(), quiescent.toString());
        assertEquals(0, quiescent.groups().stream().mapToLong(GroupStats::queuedTasks).sum(), quiescent.toString());
        assertEquals(pool.completedTasks(), quiescent.groups().stream().mapToLong(GroupStats::completedTasks).sum(),
                quiescent.toString());

        pool.close();
        assertTrue(pool.isTerminated());
        GroupStats def = pool.defaultGroup().stats();
        GroupStats bnd = bounded.stats();
        assertEquals(expectedDefault, def.completedTasks(), def.toString());
        assertEquals(1, bnd.completedTasks(), bnd.toString());
        assertEquals(1, bnd.rejectedTasks(), bnd.toString());
        assertEquals(expectedDefault + 1, pool.completedTasks(), pool.toString());
        assertEquals(0, pool.queuedTasks(), pool.toString());
        assertEquals(0, def.queuedTasks(), def.toString());
        assertEquals(0, bnd.queuedTasks(), bnd.toString());
        assertTrue(pool.isQuiescent(), "a terminated pool runs nothing: " + pool);
        assertTrue(pool.awaitQuiescence(1, TimeUnit.SECONDS), "a terminated pool runs nothing: " + pool);
        PoolSnapshot after = pool.snapshot();
        for (GroupStats g : after.groups()) {
            assertTrue(g.cpuTimeNanos() >= 0 && g.slices() >= 0 && g.longestSliceNanos() >= 0, g.toString());
        }
    }
}
