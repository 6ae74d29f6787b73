package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What an engineer replacing ForkJoinPool or ThreadPoolExecutor tries on the first day, from the
 * README alone: the JDK's own helpers driven by a pool and its groups, the common pool, where
 * failures go, the threads a pool makes, what shutdownNow() hands back, the figures once a group is
 * done, close() on an interrupted thread, and services of two pools waiting on each other. What the
 * contract suites (ExecutorContractTest, ScheduledContractTest) and the feature tests already cover
 * is not repeated here.
 */
class UsageScenariosTest {

    private static final long LIVENESS = Liveness.SECONDS;

    /** Occupies a one-worker pool's worker with a task of a group of its own until {@code release} opens. */
    private static void holdTheOnlyWorker(RotaPool pool, String holderGroup, CountDownLatch release)
            throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        pool.group(holderGroup, 1).execute(() -> {
            started.countDown();
            Liveness.awaitQuietly(release);
        });
        Liveness.await(started, "the only worker held");
    }

    @Test
    void completableFutureStagesRunOnThePoolItsGroupsAndViews() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).name("cf").build()) {
            TaskGroup tier = pool.group("tier", 100);
            String threads = CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), pool)
                    .thenApplyAsync(first -> first + " " + Thread.currentThread().getName(), tier)
                    .thenApplyAsync(both -> both + " " + Thread.currentThread().getName(), tier.submitOnly())
                    .get(LIVENESS, TimeUnit.SECONDS);
            for (String thread : threads.split(" ")) {
                assertTrue(thread.startsWith("cf-worker-"), threads);
            }

            IllegalStateException thrown = new IllegalStateException("stage failed");
            CompletableFuture<Integer> failing = CompletableFuture.supplyAsync(() -> {
                throw thrown;
            }, tier);
            ExecutionException reported = assertThrows(ExecutionException.class, () -> failing.get(LIVENESS, TimeUnit.SECONDS));
            assertSame(thrown, reported.getCause());

            tier.shutdown();
            assertTrue(tier.awaitTermination(LIVENESS, TimeUnit.SECONDS));
            assertEquals(3, tier.stats().completedTasks(), "two stages through the group and its view, one failed supply");
        }
    }

    /**
     * CompletableFuture.join() blocks a Rota worker outright (the JDK compensates only on its own
     * pool's threads); the README's managed block around it lets a spare run the work it waits for,
     * even on a pool of one worker, and the outcome is reported as join() reports it.
     */
    @Test
    void aCompletableFutureAwaitedInAManagedBlockCompletesOnAPoolOfOneWorker() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            IllegalStateException thrown = new IllegalStateException("no reply");
            Callable<Integer> waitsForItsOwnPool = () -> {
                CompletableFuture<Integer> reply = CompletableFuture.supplyAsync(() -> 41, pool);
                CompletableFuture<Integer> failed = CompletableFuture.supplyAsync(() -> {
                    throw thrown;
                }, pool);
                awaitManaged(reply);
                awaitManaged(failed);
                CompletionException reported = assertThrows(CompletionException.class, failed::join);
                assertSame(thrown, reported.getCause());
                return reply.join() + 1;
            };
            assertEquals(42, pool.submit(waitsForItsOwnPool).get(LIVENESS, TimeUnit.SECONDS));
        }
    }

    /** The README's managed block around a wait for a CompletableFuture. */
    private static void awaitManaged(CompletableFuture<?> reply) throws InterruptedException {
        RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
            @Override
            public boolean block() throws InterruptedException {
                try {
                    reply.get();
                } catch (ExecutionException | CancellationException e) {
                    // join() reports it
                }
                return true;
            }

            @Override
            public boolean isReleasable() {
                return reply.isDone();
            }
        });
    }

    @Test
    void completionServicesOverAPoolAGroupAndAViewCollectEveryResult() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            TaskGroup tier = pool.group("tier", 100);
            for (Executor executor : List.of(pool, tier, tier.submitOnly())) {
                ExecutorCompletionService<Integer> service = new ExecutorCompletionService<>(executor);
                for (int i = 1; i <= 50; i++) {
                    int value = i;
                    service.submit(() -> value);
                }
                int sum = 0;
                for (int i = 0; i < 50; i++) {
                    Future<Integer> done = service.poll(LIVENESS, TimeUnit.SECONDS);
                    assertTrue(done != null, executor + ": a result never came");
                    sum += done.get();
                }
                assertEquals(50 * 51 / 2, sum, executor.toString());
            }
        }
    }

    /** As ForkJoinPool.commonPool(): shutdown, shutdownNow and close change nothing. */
    @Test
    void theCommonPoolIgnoresEveryShutdownAndKeepsServing() throws Exception {
        RotaPool common = RotaPool.commonPool();
        assertSame(common, RotaPool.commonPool());
        common.shutdown();
        assertEquals(List.of(), common.shutdownNow());
        common.close();
        assertFalse(common.isShutdown());
        assertFalse(common.isTerminated());
        assertFalse(common.awaitTermination(1, TimeUnit.MILLISECONDS), "the common pool never terminates");
        assertEquals(7, common.submit(() -> 7).get(LIVENESS, TimeUnit.SECONDS));
        assertTrue(common.submit(() -> Thread.currentThread().isDaemon()).get(LIVENESS, TimeUnit.SECONDS));
    }

    /** Without a handler from the builder, the failure of an execute()d task goes to the worker thread's own handler. */
    @Test
    void withoutAPoolHandlerAFailureGoesToTheWorkerThreadsOwnHandler() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            BlockingQueue<Throwable> handled = new LinkedBlockingQueue<>();
            AtomicReference<Thread> handledOn = new AtomicReference<>();
            Thread worker = pool.submit(() -> {
                Thread.currentThread().setUncaughtExceptionHandler((thread, failure) -> {
                    handledOn.set(thread);
                    handled.add(failure);
                });
                return Thread.currentThread();
            }).get(LIVENESS, TimeUnit.SECONDS);
            IllegalStateException thrown = new IllegalStateException("escaped");

            pool.execute(() -> {
                throw thrown;
            });

            assertSame(thrown, handled.poll(LIVENESS, TimeUnit.SECONDS));
            assertSame(worker, handledOn.get());
            assertSame(worker, pool.submit(Thread::currentThread).get(LIVENESS, TimeUnit.SECONDS), "the worker carries on");
        }
    }

    /** A handler that throws in turn is the JDK's case too: the exception is dropped, and the worker carries on. */
    @Test
    void aHandlerThatThrowsLeavesTheWorkerRunning() throws Exception {
        CountDownLatch handled = new CountDownLatch(1);
        try (RotaPool pool = RotaPool.builder().workers(1).uncaughtExceptionHandler((thread, failure) -> {
            handled.countDown();
            throw new IllegalStateException("the handler fails too");
        }).build()) {
            Thread worker = pool.submit(Thread::currentThread).get(LIVENESS, TimeUnit.SECONDS);

            pool.execute(() -> {
                throw new IllegalStateException("escaped");
            });

            Liveness.await(handled, "the handler called");
            assertSame(worker, pool.submit(Thread::currentThread).get(LIVENESS, TimeUnit.SECONDS));
        }
    }

    /** Workers, the timer and spares all carry the pool's name, and none outlives the pool. */
    @Test
    void everyThreadOfAPoolIsNamedAfterItAndEndsWithIt() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).name("scenario-threads").daemon(false).build();
        pool.schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(LIVENESS, TimeUnit.SECONDS);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        Future<?> blocked = pool.submit(() -> {
            RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                @Override
                public boolean block() throws InterruptedException {
                    entered.countDown();
                    unblock.await();
                    return true;
                }

                @Override
                public boolean isReleasable() {
                    return unblock.getCount() == 0;
                }
            });
            return null;
        });
        Liveness.await(entered, "the only worker blocked");
        Thread spare = pool.submit(Thread::currentThread).get(LIVENESS, TimeUnit.SECONDS);
        unblock.countDown();
        blocked.get(LIVENESS, TimeUnit.SECONDS);

        List<Thread> threads = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("scenario-threads-")) {
                threads.add(thread);
            }
        }
        List<String> names = threads.stream().map(Thread::getName).sorted().toList();
        assertTrue(names.contains("scenario-threads-worker-0") && names.contains("scenario-threads-timer")
                && spare.getName().startsWith("scenario-threads-spare-"), names + ", spare " + spare.getName());
        assertFalse(spare.isDaemon(), "a spare stands in for a worker: daemon(false) holds for it too");

        pool.shutdown();
        Liveness.awaitTermination(pool);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(LIVENESS));
            assertFalse(thread.isAlive(), thread.getName() + " outlived its pool");
        }
    }

    /**
     * As ThreadPoolExecutor's, the list holds the very futures that submit and schedule returned
     * (and the executed Runnable itself), so that the caller can match them with its own records.
     */
    @Test
    void shutdownNowReturnsTheFuturesThatSubmitAndScheduleReturned() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        CountDownLatch release = new CountDownLatch(1);
        holdTheOnlyWorker(pool, "holder", release);
        TaskGroup tier = pool.group("tier", 100);
        Runnable executed = () -> { };
        RotaTask<Integer> task = new RotaTask<>() {
            @Override
            protected Integer compute() {
                return 1;
            }
        };
        List<Object> queued = List.of(pool.submit(() -> 1), tier.submit(() -> 2), pool.schedule(() -> 3, 1, TimeUnit.HOURS),
                pool.submit(task), executed);
        pool.execute(executed);

        List<Runnable> returned = pool.shutdownNow();

        Map<Object, Boolean> seen = new IdentityHashMap<>();
        for (Runnable r : returned) {
            assertNull(seen.put(r, true), "returned twice: " + r);
        }
        for (Object q : queued) {
            assertTrue(seen.containsKey(q), "not returned: " + q + " in " + returned);
        }
        assertEquals(queued.size(), returned.size(), returned.toString());
        assertTrue(((ScheduledFuture<?>) queued.get(2)).isCancelled() && task.isCancelled());
        release.countDown();
        Liveness.awaitTermination(pool);
    }

    /**
     * A bounded group's figures balance: every submission ran, was refused or came back from
     * shutdownNow(), and a quiescent pool's groups account for every task its workers completed.
     */
    @Test
    void aGroupsFiguresAccountForEverySubmission() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        try {
            TaskGroup bounded = pool.group("bounded", 100);
            bounded.setQueueCapacity(4);
            CountDownLatch firstRelease = new CountDownLatch(1);
            holdTheOnlyWorker(pool, "first-holder", firstRelease);
            List<Future<?>> accepted = submitCounting(bounded, 6, 4);
            firstRelease.countDown();
            for (Future<?> future : accepted) {
                future.get(LIVENESS, TimeUnit.SECONDS);
            }
            Liveness.awaitCondition(() -> bounded.stats().completedTasks() == 4, "the group's four tasks counted");
            Liveness.awaitCondition(() -> pool.completedTasks() == 5, "the holder and the group's tasks counted");
            PoolSnapshot quiescent = pool.snapshot();
            assertEquals(pool.completedTasks(), quiescent.groups().stream().mapToLong(GroupStats::completedTasks).sum(),
                    quiescent.toString());
            assertEquals(pool.completedTasks(), quiescent.workers().stream().mapToLong(WorkerStats::completed).sum(),
                    quiescent.toString());

            CountDownLatch secondRelease = new CountDownLatch(1);
            holdTheOnlyWorker(pool, "second-holder", secondRelease);
            submitCounting(bounded, 6, 4);
            List<Runnable> returned = bounded.shutdownNow();
            assertThrows(RejectedExecutionException.class, () -> bounded.execute(() -> { }));
            secondRelease.countDown();
            assertTrue(bounded.awaitTermination(LIVENESS, TimeUnit.SECONDS));

            GroupStats stats = bounded.stats();
            assertEquals(4, returned.size());
            assertEquals(0, stats.queuedTasks(), stats.toString());
            assertEquals(4, stats.completedTasks(), stats.toString());
            assertEquals(5, stats.rejectedTasks(), stats.toString());
            assertEquals(13, stats.completedTasks() + stats.rejectedTasks() + returned.size(), "every submission accounted for");
        } finally {
            pool.shutdownNow();
            Liveness.awaitTermination(pool);
        }
    }

    /** Submits {@code count} tasks to {@code group}, whose worker is held, and checks that {@code fit} of them fit. */
    private static List<Future<?>> submitCounting(TaskGroup group, int count, int fit) {
        List<Future<?>> accepted = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < count; i++) {
            try {
                accepted.add(group.submit(() -> { }));
            } catch (RejectedExecutionException e) {
                refused++;
            }
        }
        assertEquals(fit, accepted.size(), "accepted, with " + refused + " refused");
        return accepted;
    }

    /** ExecutorService.close()'s contract: an interrupt while it waits stops the running tasks, and is kept. */
    @Test
    void closeOnAnInterruptedThreadStopsTheRunningTasksAndKeepsTheInterrupt() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        TaskGroup tier = pool.group("tier", 10);
        for (java.util.concurrent.ExecutorService closed : List.of(tier, pool)) {
            CountDownLatch started = new CountDownLatch(1);
            AtomicBoolean taskInterrupted = new AtomicBoolean();
            closed.execute(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    taskInterrupted.set(true);
                }
            });
            Liveness.await(started, "the task started");

            Thread.currentThread().interrupt();
            closed.close();

            assertTrue(Thread.interrupted(), closed + ": close() cleared the caller's interrupt");
            assertTrue(taskInterrupted.get(), closed + ": the running task was not interrupted");
            assertTrue(closed.isTerminated(), closed.toString());
        }
    }

    /** Two services on two one-worker pools: each pool's waits for the other's work are managed, and none deadlocks. */
    @Test
    void waitsBetweenTwoPoolsComplete() throws Exception {
        try (RotaPool front = RotaPool.builder().workers(1).name("front").build();
             RotaPool back = RotaPool.builder().workers(1).name("back").build()) {
            TaskGroup storage = back.group("storage", 100);
            Callable<Integer> calls = () -> {
                int sum = back.submit(() -> 1).get();
                RotaTask<Integer> task = new RotaTask<>() {
                    @Override
                    protected Integer compute() {
                        return 2;
                    }
                };
                sum += storage.submit(task).join();
                sum += storage.invokeAny(List.<Callable<Integer>>of(() -> 3));
                Callable<Integer> backToFront = () -> front.submit(() -> 4).get();
                sum += back.submit(backToFront).get();
                return sum;
            };
            assertEquals(10, front.submit(calls).get(LIVENESS, TimeUnit.SECONDS));
            assertEquals(10, front.group("api", 100).submit(calls).get(LIVENESS, TimeUnit.SECONDS));
        }
    }
}
