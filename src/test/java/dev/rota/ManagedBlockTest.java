package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import dev.rota.contract.Spares;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ManagedBlockTest {

    /** Occupies every worker with a task blocked in managedBlock until {@code release} opens. */
    private static void blockEveryWorker(RotaPool pool, CountDownLatch release) throws InterruptedException {
        CountDownLatch allBlocked = new CountDownLatch(pool.workers());
        for (int i = 0; i < pool.workers(); i++) {
            pool.execute(() -> {
                allBlocked.countDown();
                try {
                    RotaPool.managedBlock(new LatchBlocker(release));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(allBlocked.await(30, TimeUnit.SECONDS));
    }

    /**
     * A task waiting in managedBlock does not keep its group active (README: a paused wait does not
     * make a group active): while a1's only task waits, a2, funded by the same currency, holds all
     * of that currency's value. No spare may stand in, so a2's task stays queued and a2 active.
     */
    @Test
    void aGroupWhoseOnlyTaskWaitsInManagedBlockIsInactive() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).build()) {
            Currency tenant = pool.baseCurrency().newCurrency("tenant", 100);
            TaskGroup a1 = tenant.newGroup("a1", 100);
            TaskGroup a2 = tenant.newGroup("a2", 100);
            CountDownLatch release = new CountDownLatch(1);
            LatchBlocker blocker = new LatchBlocker(release);
            CountDownLatch a2Ran = new CountDownLatch(1);
            try {
                a1.execute(() -> {
                    try {
                        RotaPool.managedBlock(blocker);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (blocker.blockCalls() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertEquals(1, blocker.blockCalls(), "a1's task never blocked");
                a2.execute(a2Ran::countDown);

                assertEquals(0, a1.value(), 1e-9, "a1 has nothing but a task waiting in managedBlock");
                assertEquals(tenant.value(), a2.value(), 1e-9, "a2 must hold all of its currency's value");
            } finally {
                release.countDown();
            }
            assertTrue(a2Ran.await(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void otherTasksCompleteWhileEveryWorkerBlocks() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).spareKeepAlive(Duration.ofMillis(100)).build()) {
            CountDownLatch release = new CountDownLatch(1);
            blockEveryWorker(pool, release);
            CountDownLatch others = new CountDownLatch(1_000);
            for (int i = 0; i < 1_000; i++) {
                pool.execute(others::countDown);
            }
            assertTrue(others.await(30, TimeUnit.SECONDS), "no task ran while every worker blocked");
            assertTrue(pool.spareThreads() > 0);
            assertTrue(pool.spareThreads() <= pool.workers(), "one spare per blocked worker at most");
            release.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (pool.spareThreads() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, pool.spareThreads(), "spares go away once no longer needed");
            assertEquals(9, pool.submit(() -> 9).get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void spareCountIsBounded() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).maxSpareThreads(1).build()) {
            CountDownLatch release = new CountDownLatch(1);
            blockEveryWorker(pool, release);
            CountDownLatch other = new CountDownLatch(1);
            pool.execute(other::countDown);
            assertTrue(other.await(30, TimeUnit.SECONDS), "the one spare runs other tasks");
            assertEquals(1, pool.spareThreads());
            release.countDown();
        }
    }

    @Test
    void releasableBlockerNeverBlocks() throws Exception {
        LatchBlocker open = new LatchBlocker(new CountDownLatch(0));
        RotaPool.managedBlock(open);
        assertEquals(0, open.blockCalls());
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            pool.submit(() -> {
                RotaPool.managedBlock(open);
                return null;
            }).get(30, TimeUnit.SECONDS);
            assertEquals(0, open.blockCalls());
            assertEquals(0, pool.spareThreads());
        }
    }

    @Test
    void outsideThePoolItJustBlocks() throws Exception {
        CountDownLatch latch = new CountDownLatch(1);
        LatchBlocker blocker = new LatchBlocker(latch);
        Thread outside = new Thread(() -> {
            try {
                RotaPool.managedBlock(blocker);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        outside.start();
        while (blocker.blockCalls() == 0) {
            Thread.sleep(5);
        }
        assertTrue(outside.isAlive());
        latch.countDown();
        outside.join(30_000);
        assertFalse(outside.isAlive());
    }

    @Test
    void badSpareSettingsAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RotaPool.builder().maxSpareThreads(-1))
                .getMessage().contains("-1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RotaPool.builder().spareKeepAlive(Duration.ZERO))
                .getMessage().contains("PT0S"));
        assertThrows(NullPointerException.class, () -> RotaPool.managedBlock(null));
    }

    @Test
    void poolWithBlockedWorkerTerminatesOnlyAfterItUnblocks() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        pool.execute(() -> {
            blocked.countDown();
            try {
                RotaPool.managedBlock(new LatchBlocker(release));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        pool.execute(() -> {});
        pool.shutdown();
        assertFalse(pool.awaitTermination(100, TimeUnit.MILLISECONDS));
        release.countDown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(2, pool.completedTasks());
    }

    /**
     * A managed block nested in another (a blocker whose {@code block()} itself blocks in
     * managedBlock, as a blocker that waits on a pool's future does) is still one wait of one
     * thread: the spare standing in for the outer block stands in for the inner one too. A second
     * spare would share the CPU with the first for as long as the wait lasts.
     */
    @Test
    void aNestedManagedBlockOnAWorkerBringsNoSecondSpare() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).pinning(false).build()) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch innerBlocks = new CountDownLatch(1);
            Future<?> task = pool.submit(() -> {
                RotaPool.managedBlock(new Nesting(new Signalling(innerBlocks, release)));
                return null;
            });
            try {
                Liveness.await(innerBlocks, "the inner block");
                assertEquals(1, pool.spareThreads(), "spares for one worker blocked in two nested managed blocks");
            } finally {
                release.countDown();
            }
            task.get(Liveness.SECONDS, TimeUnit.SECONDS);
        }
    }

    /** As on a worker: a task on a spare that nests two managed blocks brings in one more spare, not two. */
    @Test
    void aNestedManagedBlockOnASpareBringsOneMoreSpareOnly() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).pinning(false).build()) {
            CountDownLatch releaseWorker = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch innerBlocks = new CountDownLatch(1);
            try {
                Spares.blockTheOnlyWorker(pool, releaseWorker);
                Future<?> task = pool.submit(() -> {
                    RotaPool.managedBlock(new Nesting(new Signalling(innerBlocks, release)));
                    return null;
                });
                Liveness.await(innerBlocks, "the inner block on the spare");
                assertEquals(2, pool.spareThreads(),
                        "spares for a blocked worker and for its spare blocked in two nested managed blocks");
                release.countDown();
                task.get(Liveness.SECONDS, TimeUnit.SECONDS);
            } finally {
                release.countDown();
                releaseWorker.countDown();
            }
        }
    }

    /**
     * Blocks each of the pool's workers in a managed block of its own (with a spare standing in for
     * each, the pool's spares being as many as its workers), the blocks all made from the workers:
     * a barrier keeps each of the tasks on a worker of its own until all of them run. Returns their
     * blockers, which {@code release} opens.
     */
    private static List<LatchBlocker> blockEveryWorkerWithASpare(RotaPool pool, CountDownLatch release)
            throws InterruptedException {
        CyclicBarrier onWorkers = new CyclicBarrier(pool.workers());
        List<LatchBlocker> blockers = new ArrayList<>();
        for (int i = 0; i < pool.workers(); i++) {
            LatchBlocker blocker = new LatchBlocker(release);
            blockers.add(blocker);
            pool.execute(() -> {
                try {
                    onWorkers.await();
                    RotaPool.managedBlock(blocker);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        Liveness.awaitCondition(() -> blockers.stream().allMatch(b -> b.blockCalls() > 0)
                && pool.spareThreads() == pool.workers(), "a spare standing in for each blocked worker");
        return blockers;
    }

    /**
     * A managed block that found every spare busy waits for the next one to come free (S7), and a
     * block nested in it is the same wait of the same thread: it makes no second request, which a
     * second spare would serve. Worker W3 blocks while W1's and W2's spares (the only two) are busy,
     * and blocks again inside that block; once W1 and W2 unblock, one spare stands in for W3 and the
     * other is left idle, so it exits after its keep-alive. With a request per block, both spares
     * stood in for W3, sharing its CPU, for as long as its wait lasted.
     */
    @Test
    void aBlockNestedInOneThatFoundEverySpareBusyBringsOneSpareOnly() throws Exception {
        RotaPool pool = RotaPool.builder().workers(3).maxSpareThreads(2).pinning(false)
                .spareKeepAlive(Duration.ofMillis(100)).build();
        CountDownLatch releaseOthers = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch innerBlocks = new CountDownLatch(1);
        CountDownLatch othersBlocked = new CountDownLatch(1);
        CyclicBarrier onWorkers = new CyclicBarrier(3);
        try {
            LatchBlocker first = new LatchBlocker(releaseOthers);
            LatchBlocker second = new LatchBlocker(releaseOthers);
            for (LatchBlocker blocker : List.of(first, second)) {
                pool.execute(() -> {
                    try {
                        onWorkers.await();
                        RotaPool.managedBlock(blocker);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
            Future<?> task = pool.submit(() -> {
                onWorkers.await();                       // on the third worker
                Liveness.awaitUninterruptibly(othersBlocked);
                RotaPool.managedBlock(new Nesting(new Signalling(innerBlocks, release)));
                return null;
            });
            Liveness.awaitCondition(() -> first.blockCalls() > 0 && second.blockCalls() > 0
                    && pool.spareThreads() == 2, "both spares standing in for the first two workers");
            othersBlocked.countDown();
            Liveness.await(innerBlocks, "the inner block, with every spare busy");
            releaseOthers.countDown();
            Liveness.awaitCondition(() -> pool.spareThreads() == 1,
                    "one spare standing in for a worker in two nested blocks, the other gone after its keep-alive;"
                            + " spares now " + pool.spareThreads());
            release.countDown();
            task.get(Liveness.SECONDS, TimeUnit.SECONDS);
        } finally {
            releaseOthers.countDown();
            release.countDown();
            pool.shutdown();
        }
        Liveness.awaitTermination(pool);
    }

    /**
     * As {@link #aBlockNestedInOneThatFoundEverySpareBusyBringsOneSpareOnly}, on a spare: with every
     * worker blocked and every spare standing in, a task run by a spare blocks twice, nested, and
     * waits for a spare. Once the workers unblock, two spares come free: one serves that wait, and
     * the other is left idle and exits, rather than serving a second request of the same wait.
     */
    @Test
    void aBlockNestedInOneOnASpareThatFoundEverySpareBusyBringsOneSpareOnly() throws Exception {
        RotaPool pool = RotaPool.builder().workers(3).maxSpareThreads(3).pinning(false)
                .spareKeepAlive(Duration.ofMillis(100)).build();
        CountDownLatch releaseWorkers = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch innerBlocks = new CountDownLatch(1);
        try {
            blockEveryWorkerWithASpare(pool, releaseWorkers);
            Future<?> task = pool.submit(() -> {          // on a spare: every worker blocks
                RotaPool.managedBlock(new Nesting(new Signalling(innerBlocks, release)));
                return null;
            });
            Liveness.await(innerBlocks, "the inner block on a spare, with every spare busy");
            releaseWorkers.countDown();
            // The spare running the task, and the one standing in for its wait; the third is idle.
            Liveness.awaitCondition(() -> pool.spareThreads() == 2,
                    "one spare standing in for a spare's task in two nested blocks, the other free one gone"
                            + " after its keep-alive; spares now " + pool.spareThreads());
            release.countDown();
            task.get(Liveness.SECONDS, TimeUnit.SECONDS);
        } finally {
            releaseWorkers.countDown();
            release.countDown();
            pool.shutdown();
        }
        Liveness.awaitTermination(pool);
    }

    /**
     * Once the pool has stopped no spare runs a task (nothing more is taken from the queues), so a
     * task deaf to shutdownNow's interrupt that blocks afterwards starts no spare thread: one would
     * stand in for nothing.
     */
    @Test
    void aManagedBlockAfterShutdownNowStartsNoSpare() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        CountDownLatch blocks = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        pool.execute(() -> {
            running.countDown();
            Liveness.awaitUninterruptibly(stopped);
            Thread.interrupted();                        // shutdownNow's interrupt, which this task ignores
            try {
                RotaPool.managedBlock(new Signalling(blocks, release));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            Liveness.await(running, "the task");
            pool.shutdownNow();
            stopped.countDown();
            Liveness.await(blocks, "the block after shutdownNow");
            assertEquals(0, pool.spareThreads(), "a spare thread was started to stand in after shutdownNow");
        } finally {
            stopped.countDown();
            release.countDown();
        }
        Liveness.awaitTermination(pool);
    }

    /**
     * On a thread of a ForkJoinPool, RotaPool.managedBlock is ForkJoinPool.managedBlock, so that code
     * ported to it keeps its compensation where it still runs in a ForkJoinPool: here the pool's only
     * worker waits for a task queued behind it, which only a compensating thread can run.
     */
    @Test
    void onAForkJoinPoolThreadItCompensatesAsForkJoinPoolManagedBlockDoes() throws Exception {
        ForkJoinPool forkJoin = new ForkJoinPool(1);
        try {
            CountDownLatch ran = new CountDownLatch(1);
            Future<?> waiter = forkJoin.submit(() -> {
                forkJoin.execute(ran::countDown);        // queued behind this task on the only worker
                RotaPool.managedBlock(new LatchBlocker(ran));
                return null;
            });
            try {
                waiter.get(Liveness.SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("the ForkJoinPool's only worker blocked in RotaPool.managedBlock"
                        + " without compensation: the task it waits for never ran", e);
            }
        } finally {
            forkJoin.shutdownNow();
        }
    }

    /** Releasable once {@code release} opens; its block counts {@code blocks} down, then waits for the release. */
    private record Signalling(CountDownLatch blocks, CountDownLatch release) implements ForkJoinPool.ManagedBlocker {
        @Override
        public boolean block() throws InterruptedException {
            blocks.countDown();
            Liveness.awaitUninterruptibly(release);
            return true;
        }

        @Override
        public boolean isReleasable() {
            return release.getCount() == 0;
        }
    }

    /** A blocker whose block is a managed block of {@code inner}. */
    private static final class Nesting implements ForkJoinPool.ManagedBlocker {
        private final ForkJoinPool.ManagedBlocker inner;
        private volatile boolean done;

        Nesting(ForkJoinPool.ManagedBlocker inner) {
            this.inner = inner;
        }

        @Override
        public boolean block() throws InterruptedException {
            RotaPool.managedBlock(inner);
            done = true;
            return true;
        }

        @Override
        public boolean isReleasable() {
            return done;
        }
    }
}
