package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RotaTaskTest {
    private RotaPool pool;

    @BeforeEach
    void start() {
        pool = RotaPool.builder().workers(2).build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    }

    static final class Fib extends RotaTask<Long> {
        final int n;

        Fib(int n) {
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (n <= 12) {
                return slow(n);
            }
            Fib f1 = new Fib(n - 1);
            f1.fork();
            return new Fib(n - 2).compute() + f1.join();
        }

        static long slow(int n) {
            return n <= 1 ? n : slow(n - 1) + slow(n - 2);
        }
    }

    /** Throws the exception it is given from compute(). */
    static final class Throwing<T> extends RotaTask<T> {
        final RuntimeException thrown;

        Throwing(RuntimeException thrown) {
            this.thrown = thrown;
        }

        @Override
        protected T compute() {
            throw thrown;
        }
    }

    /** Sums the leaves of a binary tree of forks: every leaf counted once, total exact. */
    static final class Leaves extends RotaTask<Long> {
        final int lo;
        final int hi;
        final LongAdder visits;

        Leaves(int lo, int hi, LongAdder visits) {
            this.lo = lo;
            this.hi = hi;
            this.visits = visits;
        }

        @Override
        protected Long compute() {
            if (hi - lo == 1) {
                visits.increment();
                return (long) lo;
            }
            int mid = (lo + hi) >>> 1;
            Leaves left = new Leaves(lo, mid, visits);
            Leaves right = new Leaves(mid, hi, visits);
            invokeAll(left, right);
            return left.join() + right.join();
        }
    }

    /** ForkJoinTask.invokeAll(Collection): every task run, the collection returned, the first failure rethrown. */
    @Test
    void invokeAllOfACollectionRunsEveryTaskAndReturnsTheCollection() {
        RuntimeException thrown = new IllegalStateException("the second fails");
        List<Long> outcome = pool.invoke(new RotaTask<List<Long>>() {
            @Override
            protected List<Long> compute() {
                List<Fib> fibs = List.of(new Fib(16), new Fib(14), new Fib(10));
                assertSame(fibs, RotaTask.invokeAll(fibs));
                List<RotaTask<Long>> mixed = List.of(new Fib(8), new Throwing<>(thrown), new Fib(9));
                assertSame(thrown, assertThrows(IllegalStateException.class, () -> RotaTask.invokeAll(mixed)));
                assertTrue(mixed.get(0).isCompletedNormally() && mixed.get(2).isCompletedNormally(),
                        "the tasks beside the failing one ran");
                return fibs.stream().map(RotaTask::join).toList();
            }
        });
        assertEquals(List.of(Fib.slow(16), Fib.slow(14), Fib.slow(10)), outcome);
        List<RotaTask<?>> withNull = new java.util.ArrayList<>();
        withNull.add(new Fib(3));
        withNull.add(null);
        String message = assertThrows(NullPointerException.class, () -> RotaTask.invokeAll(withNull)).getMessage();
        assertTrue(message.contains("tasks[1]"), message);
    }

    /** ForkJoinTask.quietlyJoin()/quietlyInvoke(): wait, report nothing; the outcome is read afterwards. */
    @Test
    void quietlyJoinAndQuietlyInvokeWaitWithoutReportingTheOutcome() throws Exception {
        RuntimeException thrown = new IllegalStateException("fails quietly");
        Throwing<Long> failing = new Throwing<>(thrown);
        pool.execute(failing);
        failing.quietlyJoin();
        assertSame(thrown, failing.getException());

        Throwing<Long> invoked = new Throwing<>(thrown);
        invoked.quietlyInvoke();
        assertSame(thrown, invoked.getException());

        Fib cancelled = new Fib(10);
        cancelled.cancel(false);
        cancelled.quietlyJoin();
        assertTrue(cancelled.isCancelled());

        Fib fib = new Fib(20);
        boolean[] onPool = new boolean[2];
        pool.submit(new RotaTask<Void>() {
            @Override
            protected Void compute() {
                onPool[0] = RotaTask.inPool();
                fib.fork();
                fib.quietlyJoin();
                onPool[1] = fib.isCompletedNormally();
                return null;
            }
        }).get(Liveness.SECONDS, TimeUnit.SECONDS);
        assertTrue(onPool[0], "a pool worker runs tasks for a pool");
        assertTrue(onPool[1], "quietlyJoin returned before the fork was done");
        assertEquals(Fib.slow(20), fib.join());
        assertFalse(RotaTask.inPool(), "the test's own thread");
    }

    /** A task that waits for its latch before it completes with 7. */
    static RotaTask<Integer> gatedBy(CountDownLatch gate) {
        return RotaTask.adapt(() -> {
            assertTrue(gate.await(Liveness.SECONDS, TimeUnit.SECONDS), "gate never opened");
            return 7;
        });
    }

    /** ForkJoinTask.quietlyJoin(timeout, unit) and quietlyJoinUninterruptibly: true once done, false on a timeout. */
    @Test
    void timedQuietJoinsTellDoneFromTimedOutAndReportNoOutcome() throws Exception {
        RuntimeException thrown = new IllegalStateException("fails quietly");
        Throwing<Long> failing = new Throwing<>(thrown);
        pool.execute(failing);
        assertTrue(failing.quietlyJoin(Liveness.SECONDS, TimeUnit.SECONDS), "a failed task is done");
        assertSame(thrown, failing.getException());
        assertTrue(failing.quietlyJoinUninterruptibly(0, TimeUnit.SECONDS), "a done task needs no time");

        Fib cancelled = new Fib(10);
        cancelled.cancel(false);
        assertTrue(cancelled.quietlyJoin(-1, TimeUnit.DAYS), "a cancelled task is done");

        CountDownLatch gate = new CountDownLatch(1);
        RotaTask<Integer> gated = gatedBy(gate);
        pool.execute(gated);
        assertFalse(gated.quietlyJoin(20, TimeUnit.MILLISECONDS), "done before its gate opened");
        assertFalse(gated.quietlyJoinUninterruptibly(20, TimeUnit.MILLISECONDS), "done before its gate opened");
        assertFalse(gated.quietlyJoin(0, TimeUnit.NANOSECONDS), "no time only looks");
        assertFalse(gated.quietlyJoin(Long.MIN_VALUE, TimeUnit.DAYS), "a huge negative timeout only looks");
        assertFalse(gated.isDone(), "a timed-out quiet join leaves the task to run");
        gate.countDown();
        assertTrue(gated.quietlyJoin(Liveness.SECONDS, TimeUnit.SECONDS), "the task ran once its gate opened");
        assertEquals(7, gated.join());

        String message = assertThrows(NullPointerException.class, () -> gated.quietlyJoin(1, null)).getMessage();
        assertTrue(message.contains("unit"), message);
        assertThrows(NullPointerException.class, () -> gated.quietlyJoinUninterruptibly(1, null));
    }

    /** On a worker the timed quiet join helps as join() does: a one-worker pool runs the fork it waits for. */
    @Test
    void timedQuietJoinOnTheOnlyWorkerRunsTheForkItWaitsFor() throws Exception {
        RotaPool single = RotaPool.builder().workers(1).build();
        try {
            boolean[] joined = new boolean[2];
            single.invoke(new RotaTask<Void>() {
                @Override
                protected Void compute() {
                    Fib fib = new Fib(18);
                    fib.fork();
                    try {
                        joined[0] = fib.quietlyJoin(Liveness.SECONDS, TimeUnit.SECONDS) && fib.isCompletedNormally();
                    } catch (InterruptedException e) {
                        throw new AssertionError("interrupted", e);
                    }
                    Fib other = new Fib(17);
                    other.fork();
                    joined[1] = other.quietlyJoinUninterruptibly(Liveness.SECONDS, TimeUnit.SECONDS)
                            && other.join() == Fib.slow(17);
                    return null;
                }
            });
            assertTrue(joined[0], "quietlyJoin(timeout) did not see its fork done");
            assertTrue(joined[1], "quietlyJoinUninterruptibly(timeout) did not see its fork done");
        } finally {
            single.shutdownNow();
            assertTrue(single.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /** The interruptible form throws and clears the flag; the other keeps waiting and sets the flag again. */
    @Test
    void timedQuietJoinsAnswerInterruptsAsTheJdksDo() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        RotaTask<Integer> gated = gatedBy(gate);
        pool.execute(gated);

        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> gated.quietlyJoin(Liveness.SECONDS, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted(), "the interrupt stays set after InterruptedException");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> gated.quietlyJoin(0, TimeUnit.SECONDS),
                "an interrupt is looked at before the time, as FutureTask.get does");
        assertFalse(Thread.interrupted(), "the interrupt stays set after InterruptedException");

        Thread.currentThread().interrupt();
        assertFalse(gated.quietlyJoinUninterruptibly(20, TimeUnit.MILLISECONDS), "done before its gate opened");
        assertTrue(Thread.interrupted(), "the uninterruptible wait lost the interrupt");

        // An interrupt during the uninterruptible wait does not end it: the gate opens after it.
        Thread waiter = Thread.currentThread();
        AtomicBoolean interruptSent = new AtomicBoolean();
        Thread opener = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(20);
                interruptSent.set(true);
                waiter.interrupt();
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                gate.countDown();
            }
        });
        boolean done;
        boolean interruptKept;
        try {
            done = gated.quietlyJoinUninterruptibly(Liveness.SECONDS, TimeUnit.SECONDS);
        } finally {
            interruptKept = Thread.interrupted();        // taken before the join below, which it would end
            opener.join();
        }
        assertTrue(done, "the uninterruptible wait ended before the task was done");
        assertTrue(gated.isDone());
        assertTrue(interruptSent.get());
        assertTrue(interruptKept, "the interrupt sent during the wait was not set again");
    }

    /** ForkJoinTask.getPool(): the pool of a worker or a spare, null on any other thread. */
    @Test
    void getPoolNamesThePoolWhoseTasksTheThreadRuns() throws Exception {
        assertSame(null, RotaTask.getPool(), "the test's own thread");
        Callable<RotaPool> getPool = RotaTask::getPool;
        assertSame(pool, pool.submit(getPool).get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertSame(pool, pool.invoke(RotaTask.adapt(getPool)), "a RotaTask run by a worker");

        try (RotaPool other = RotaPool.builder().workers(1).build()) {
            AtomicReference<RotaPool> fromThreadOfTask = new AtomicReference<>(pool);
            RotaPool seenByOther = pool.submit(() -> {
                Thread started = Thread.ofPlatform().start(() -> fromThreadOfTask.set(RotaTask.getPool()));
                started.join();
                return other.submit(getPool).get(Liveness.SECONDS, TimeUnit.SECONDS);
            }).get(Liveness.SECONDS, TimeUnit.SECONDS);
            assertSame(other, seenByOther, "a task of another pool, submitted from this one's task");
            assertSame(null, fromThreadOfTask.get(), "a thread a task starts runs no pool's tasks");

            try (BlockedOnlyWorker blocked = BlockedOnlyWorker.block(other)) {
                AtomicReference<Thread> runner = new AtomicReference<>();
                RotaPool onSpare = other.submit(() -> {
                    runner.set(Thread.currentThread());
                    return RotaTask.getPool();
                }).get(Liveness.SECONDS, TimeUnit.SECONDS);
                assertTrue(runner.get() != blocked.thread.get(), "the spare, not the blocked worker, ran it");
                assertSame(other, onSpare, "a spare standing in for a worker");
            }
        }
    }

    @Test
    void recursiveFibonacci() {
        assertEquals(Fib.slow(27), pool.invoke(new Fib(27)));
    }

    @Test
    void aMillionForkedLeavesSumExactly() {
        int n = 1 << 20;
        LongAdder visits = new LongAdder();
        long sum = pool.invoke(new Leaves(0, n, visits));
        assertEquals((long) n * (n - 1) / 2, sum);
        assertEquals(n, visits.sum());
        assertTrue(pool.stolenTasks() > 0, "idle workers stole forked tasks");
    }

    @Test
    void deepRecursionOfNestedJoins() {
        class Chain extends RotaTask<Integer> {
            final int depth;

            Chain(int depth) {
                this.depth = depth;
            }

            @Override
            protected Integer compute() {
                if (depth == 0) {
                    return 0;
                }
                Chain next = new Chain(depth - 1);
                next.fork();
                return next.join() + 1;
            }
        }
        assertEquals(500, pool.invoke(new Chain(500)));   // ForkJoinPool overflows a default stack near 1 000
    }

    @Test
    void exceptionReachesJoinAndInvokeAsThrown() {
        IllegalStateException boom = new IllegalStateException("boom", new ArithmeticException("cause"));
        IllegalStateException fromJoin = assertThrows(IllegalStateException.class,
                () -> pool.invoke(forkingAndJoining(failingWith(boom))));
        assertSame(boom, fromJoin);
        assertInstanceOf(ArithmeticException.class, fromJoin.getCause());
        RotaTask<Integer> direct = failingWith(boom);
        assertSame(boom, assertThrows(IllegalStateException.class, direct::invoke));
        assertTrue(direct.isCompletedAbnormally());
        assertSame(boom, direct.getException());
    }

    /** A checked exception thrown sneakily by compute() (a rethrow through generics, say) is rethrown as it was too, as ForkJoinTask does. */
    @Test
    void checkedExceptionThrownSneakilyReachesJoinAsThrown() {
        java.io.IOException io = new java.io.IOException("disk");
        assertSame(io, assertThrows(Throwable.class, () -> pool.invoke(forkingAndJoining(failingWith(io)))));
        assertSame(io, assertThrows(Throwable.class, failingWith(io)::invoke));
        Fib other = new Fib(10);
        RotaTask<Integer> failing = failingWith(io);
        assertSame(io, assertThrows(Throwable.class, () -> pool.invoke(new RotaTask<Void>() {
            @Override
            protected Void compute() {
                RotaTask.invokeAll(other, failing);
                return null;
            }
        })));
        assertTrue(other.isDone() && failing.isCompletedAbnormally(), "invokeAll joined every task before it rethrew");
    }

    /** A task whose compute() throws {@code failure} as it is, checked or not. */
    private static RotaTask<Integer> failingWith(Throwable failure) {
        return new RotaTask<>() {
            @Override
            protected Integer compute() {
                throw RotaTaskTest.<RuntimeException>sneaky(failure);
            }
        };
    }

    /** A task that forks {@code child} and returns its join. */
    private static RotaTask<Integer> forkingAndJoining(RotaTask<Integer> child) {
        return new RotaTask<>() {
            @Override
            protected Integer compute() {
                child.fork();
                return child.join();
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable t) throws E {
        throw (E) t;
    }

    @Test
    void getWrapsTheExceptionAsFuturesDo() throws Exception {
        RuntimeException thrown = new UnsupportedOperationException("nope");
        RotaTask<Integer> task = pool.submit(new Throwing<Integer>(thrown));
        ExecutionException e = assertThrows(ExecutionException.class, () -> task.get(30, TimeUnit.SECONDS));
        assertInstanceOf(UnsupportedOperationException.class, e.getCause());
    }

    @Test
    void cancelledTaskNeverRunsAndJoinThrows() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        class Counted extends RotaTask<Integer> {
            @Override
            protected Integer compute() {
                return runs.incrementAndGet();
            }
        }
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocking = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                blocking.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(blocking.await(30, TimeUnit.SECONDS));
        RotaTask<Integer> task = pool.submit(new Counted());
        assertTrue(task.cancel(false));
        assertTrue(task.isCancelled());
        release.countDown();
        assertThrows(CancellationException.class, task::join);
        assertThrows(CancellationException.class, task::get);
        assertEquals(7, pool.submit(() -> 7).get(30, TimeUnit.SECONDS), "the pool ran on past it");
        assertEquals(0, runs.get());
    }

    /**
     * cancel() of a task whose compute() is running succeeds, as ForkJoinTask's does: its joiners are
     * answered at once, and the outcome of the run, when it ends, is dropped.
     */
    @Test
    void cancelOfARunningTaskAnswersItsJoinersAndDropsItsOutcome() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        class Slow extends RotaTask<Integer> {
            @Override
            protected Integer compute() {
                running.countDown();
                try {
                    finish.await();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    Thread.currentThread().interrupt();
                } finally {
                    returned.countDown();
                }
                return 42;
            }
        }
        RotaTask<Integer> task = pool.submit(new Slow());
        assertTrue(running.await(30, TimeUnit.SECONDS));
        assertTrue(task.cancel(true), "a running task is cancelled");
        assertTrue(task.isCancelled());
        assertThrows(CancellationException.class, task::join);
        assertThrows(CancellationException.class, () -> task.get(30, TimeUnit.SECONDS));
        finish.countDown();
        assertTrue(returned.await(30, TimeUnit.SECONDS));
        assertFalse(interrupted.get(), "cancel(true) interrupted the run");
        assertTrue(task.isCancelled(), "the run's result replaced the cancellation");
        assertThrows(CancellationException.class, task::join);
    }

    /**
     * A task runs at most once, even when two threads run it at the same time (a task submitted
     * twice, or forked and then invoked): the second run returns without calling compute(), and the
     * outcome that join() reports is the one run's and never changes once the task is done.
     */
    @Test
    void aTaskRunByTwoThreadsAtOnceComputesOnce() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RotaTask<String> task = new RotaTask<>() {
            @Override
            protected String compute() {
                if (runs.incrementAndGet() > 1) {
                    return "second run";
                }
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "first run";
            }
        };
        Thread first = new Thread(task, "first runner");
        first.start();
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        task.run();                                      // the first run is inside compute() now
        assertEquals(1, runs.get(), "compute() ran twice at once");
        assertFalse(task.isDone(), "the second run completed the task while the first still ran");
        release.countDown();
        assertEquals("first run", task.join());
        first.join(TimeUnit.SECONDS.toMillis(30));
        assertEquals("first run", task.join(), "the outcome changed after the task was done");
        assertEquals(1, runs.get());
    }

    /** The same through a pool: a task submitted twice is computed once; the other run returns at once. */
    @Test
    void aTaskSubmittedTwiceComputesOnce() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        RotaTask<Integer> task = new RotaTask<>() {
            @Override
            protected Integer compute() {
                int run = runs.incrementAndGet();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return run;
            }
        };
        long completedBefore = pool.completedTasks();
        pool.submit(task);
        pool.submit(task);
        // Two workers: one runs compute(), the other takes the second entry. Either it computes too
        // (the bug) or its run returns at once and counts as completed while the first still waits.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (runs.get() < 2 && pool.completedTasks() == completedBefore && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertEquals(1, runs.get(), "the task submitted twice ran compute() twice at once");
        assertEquals(completedBefore + 1, pool.completedTasks(), "the second entry's run returned at once");
        release.countDown();
        assertEquals(1, task.join());
        assertEquals(1, runs.get());
    }

    @Test
    void joinAndInvokeFromOutsideThePool() throws Exception {
        Fib external = new Fib(20);
        pool.execute(external);
        assertEquals(Fib.slow(20), external.join());           // a plain thread waits
        assertEquals(Fib.slow(22), new Fib(22).invoke());      // runs here; its forks go to the common pool
        assertEquals(Fib.slow(18), pool.submit(new Fib(18)).get(30, TimeUnit.SECONDS));
    }

    @Test
    void forkOutsideAnyPoolUsesTheCommonPool() {
        Fib task = new Fib(16);
        task.fork();
        assertEquals(Fib.slow(16), task.join());
        RotaPool.commonPool().shutdown();
        assertTrue(!RotaPool.commonPool().isShutdown(), "the common pool ignores shutdown");
        RotaPool.commonPool().close();
        assertEquals(5, RotaPool.commonPool().invoke(new Fib(5)));
    }

    @Test
    void shutdownNowCancelsForkedTasksItReturns() throws Exception {
        RotaPool one = oneWorkerHeldUntilShutdownNow();
        RotaTask<Long> queued = one.submit(new Fib(10));
        List<Runnable> returned = one.shutdownNow();
        assertTrue(returned.contains(queued));
        assertTrue(queued.isCancelled());
        assertThrows(CancellationException.class, queued::join);
        assertTrue(one.awaitTermination(30, TimeUnit.SECONDS));
    }

    /**
     * shutdownNow returns the tasks that never started: not a RotaTask the user cancelled while it
     * was queued (as a delayed task the user cancelled is not returned either), nor one that ran
     * meanwhile through another call (an invoke() of a task also submitted). Both the pool's and a
     * group's.
     */
    @Test
    void shutdownNowReturnsNoTaskThatIsDoneAlready() throws Exception {
        RotaPool one = oneWorkerHeldUntilShutdownNow();
        TaskGroup g = one.group("g", 100);
        for (ExecutorService executor : List.of(g, one)) {
            RotaTask<Long> cancelled = new Fib(10);
            RotaTask<Long> ran = new Fib(10);
            RotaTask<Long> queued = new Fib(10);
            executor.execute(cancelled);
            executor.execute(ran);
            executor.execute(queued);
            assertTrue(cancelled.cancel(false));
            assertEquals(Fib.slow(10), ran.invoke());    // runs here: the worker is held
            List<Runnable> returned = executor.shutdownNow();
            assertFalse(returned.contains(cancelled), executor + " returned a task the user cancelled: " + returned);
            assertFalse(returned.contains(ran), executor + " returned a task that ran: " + returned);
            assertTrue(returned.contains(queued), executor + " returned " + returned);
            assertTrue(queued.isCancelled(), "a joiner of " + queued + " would wait for ever");
            assertEquals(Fib.slow(10), ran.join(), "the outcome of the task that ran");
        }
        assertTrue(one.awaitTermination(30, TimeUnit.SECONDS));
    }

    /**
     * A RotaTask given to {@code submit(task, result)} runs inside the future that call returns: a
     * cancel of that future before it runs means the task will never run through it, so the task is
     * cancelled too, and its joiners are answered instead of waiting for ever.
     */
    @Test
    void cancellingTheFutureOfSubmitWithAResultCancelsTheTaskInside() throws Exception {
        RotaPool one = oneWorkerHeldUntilShutdownNow();
        TaskGroup g = one.group("g", 100);
        for (ExecutorService executor : List.of(g, one)) {
            RotaTask<Long> task = new Fib(10);
            Future<String> future = executor.submit(task, "done");
            assertTrue(future.cancel(false));
            assertTrue(task.isCancelled(), "a joiner of the task inside " + future + " would wait for ever");
            assertThrows(CancellationException.class, task::join);
        }
        one.shutdownNow();
        assertTrue(one.awaitTermination(30, TimeUnit.SECONDS));
    }

    /**
     * A RotaTask given to {@code schedule} runs inside the delayed future: when that future is
     * cancelled before the task ran, by the user or by shutdownNow, the task is cancelled too, and
     * its joiners are answered instead of waiting for ever.
     */
    @Test
    void cancellingTheFutureOfAScheduledRotaTaskCancelsTheTask() throws Exception {
        RotaPool one = oneWorkerHeldUntilShutdownNow();
        RotaTask<Long> byUser = new Fib(10);
        ScheduledFuture<?> future = one.schedule(byUser, 1, TimeUnit.HOURS);
        assertTrue(future.cancel(false));
        assertTrue(byUser.isCancelled(), "a joiner of the task inside " + future + " would wait for ever");
        assertThrows(CancellationException.class, byUser::join);

        RotaTask<Long> byShutdownNow = new Fib(10);
        one.schedule(byShutdownNow, 1, TimeUnit.HOURS);
        one.shutdownNow();
        assertTrue(byShutdownNow.isCancelled(), "a joiner of the task inside a delayed future would wait for ever");
        assertTrue(one.awaitTermination(30, TimeUnit.SECONDS));
    }

    /**
     * shutdownNow hands back the future of {@code submit(task, result)} as a task that never started,
     * and cancels the RotaTask inside it as it cancels one submitted as itself: its joiners are
     * answered, and so are the future's.
     */
    @Test
    void shutdownNowCancelsARotaTaskInsideTheFutureOfSubmitWithAResult() throws Exception {
        RotaPool one = oneWorkerHeldUntilShutdownNow();
        TaskGroup g = one.group("g", 100);
        for (ExecutorService executor : List.of(g, one)) {
            RotaTask<Long> task = new Fib(10);
            Future<String> future = executor.submit(task, "done");
            List<Runnable> returned = executor.shutdownNow();
            assertTrue(returned.contains((Runnable) future), executor + " returned " + returned);
            assertTrue(task.isCancelled(), "a joiner of the task inside " + future + " would wait for ever");
            assertTrue(future.isCancelled(), "a get() of " + future + " would wait for ever");
        }
        assertTrue(one.awaitTermination(30, TimeUnit.SECONDS));
    }

    /**
     * The future of {@code submit(task, result)} reports the outcome of the RotaTask inside it, as
     * the task itself does: the result when compute() returned, what compute() threw (the same
     * object) as the cause of an ExecutionException, a cancellation when the task was cancelled.
     */
    @Test
    void theFutureOfSubmitWithAResultReportsTheTasksOutcome() throws Exception {
        RuntimeException thrown = new UnsupportedOperationException("nope");
        TaskGroup group = pool.group("submitters", 100);
        for (ExecutorService executor : List.of(pool, group, group.submitOnly())) {
            Future<String> failed = executor.submit(new Throwing<Integer>(thrown), "done");
            ExecutionException e = assertThrows(ExecutionException.class, () -> failed.get(30, TimeUnit.SECONDS),
                    "submit(task, result) through " + executor);
            assertSame(thrown, e.getCause(), "what compute() threw, through " + executor);

            RotaTask<Long> cancelled = new Fib(10);
            cancelled.cancel(false);
            Future<String> ofCancelled = executor.submit(cancelled, "done");
            assertThrows(CancellationException.class, () -> ofCancelled.get(30, TimeUnit.SECONDS),
                    "the task was cancelled, through " + executor);
            assertTrue(ofCancelled.isCancelled(), ofCancelled.toString());

            assertEquals("done", executor.submit(new Fib(10), "done").get(30, TimeUnit.SECONDS));
        }
    }

    /**
     * A RotaTask runs once: when another call runs it already (an invoke() here), the run inside the
     * future of {@code submit(task, result)} does not compute it again, and that future completes
     * only once the task has, with its outcome. That run does not wait for the task either: the
     * worker is free again while the task still runs elsewhere.
     */
    @Test
    void theFutureOfSubmitWithAResultCompletesWithTheTaskRunningElsewhere() throws Exception {
        RotaPool one = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicInteger computed = new AtomicInteger();
        class Held extends RotaTask<Integer> {
            @Override
            protected Integer compute() {
                computed.incrementAndGet();
                inside.countDown();
                try {
                    finish.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 7;
            }
        }
        RotaTask<Integer> task = new Held();
        Thread invoker = new Thread(task::invoke, "invoker");
        try {
            invoker.start();
            Liveness.await(inside, "the invoke never began");
            Future<String> future = one.submit(task, "done");
            Liveness.awaitCondition(() -> one.completedTasks() == 1, "the pool never ran the future");
            assertFalse(future.isDone(), "the future completed while its task still runs elsewhere: " + future);
            assertEquals(1, one.submit(() -> 1).get(30, TimeUnit.SECONDS), "the only worker is free");
            finish.countDown();
            assertEquals("done", future.get(30, TimeUnit.SECONDS));
            assertEquals(1, computed.get(), "compute() calls");
        } finally {
            finish.countDown();
            invoker.join();
            one.shutdownNow();
            Liveness.awaitTermination(one);
        }
    }

    /**
     * The run of the future of {@code submit(task, result)} may come while the task itself runs
     * further down the same thread's stack: here the task submits itself with a result, then joins a
     * task queued behind that future, and the join's help runs the future first. That run must
     * neither complete the future (the task has not returned) nor wait for the task (it never would).
     */
    @Test
    void theFutureOfSubmitWithAResultRunInsideItsOwnTasksJoinCompletesWithIt() throws Exception {
        try (RotaPool one = RotaPool.builder().workers(1).pinning(false).build()) {
            AtomicReference<Future<String>> again = new AtomicReference<>();
            AtomicBoolean doneBeforeTheTask = new AtomicBoolean();
            class SubmitsItself extends RotaTask<Integer> {
                @Override
                protected Integer compute() {
                    again.set(one.submit(this, "again"));          // queued on this worker's lane
                    RotaTask<Integer> behind = one.submit(new dev.rota.contract.Spares.Leaf());
                    int joined = behind.join();                    // helps: runs the future first
                    doneBeforeTheTask.set(again.get().isDone());
                    return joined;
                }
            }
            RotaTask<Integer> task = one.submit(new SubmitsItself());
            try {
                assertEquals(1, task.get(Liveness.SECONDS, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("the future's run waits for the task below it\n" + Liveness.threadDump(), e);
            }
            assertFalse(doneBeforeTheTask.get(), "the future completed before its task returned");
            assertEquals("again", again.get().get(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /**
     * A RotaTask given to {@code schedule} runs inside the delayed task, whose future reports the
     * RotaTask's outcome as a ScheduledThreadPoolExecutor's reports a Runnable's: null when compute()
     * returned, what compute() threw (the same object) as the cause of an ExecutionException, and a
     * cancellation when the task was cancelled.
     */
    @Test
    void theFutureOfAScheduledRotaTaskReportsTheTasksOutcome() throws Exception {
        RuntimeException thrown = new UnsupportedOperationException("nope");
        ScheduledFuture<?> failed = pool.schedule(new Throwing<Integer>(thrown), 1, TimeUnit.MILLISECONDS);
        ExecutionException e = assertThrows(ExecutionException.class, () -> failed.get(30, TimeUnit.SECONDS));
        assertSame(thrown, e.getCause(), "what compute() threw");

        RotaTask<Long> cancelled = new Fib(10);
        cancelled.cancel(false);
        ScheduledFuture<?> ofCancelled = pool.schedule(cancelled, 1, TimeUnit.MILLISECONDS);
        assertThrows(CancellationException.class, () -> ofCancelled.get(30, TimeUnit.SECONDS));
        assertTrue(ofCancelled.isCancelled(), ofCancelled.toString());

        RotaTask<Long> fib = new Fib(10);
        assertEquals(null, pool.schedule(fib, 1, TimeUnit.MILLISECONDS).get(30, TimeUnit.SECONDS));
        assertEquals(Fib.slow(10), fib.join());
    }

    /**
     * A RotaTask is done after its first run: scheduled periodically it would compute once and then
     * run as nothing for ever, its future never done. Both periodic forms refuse it, naming it, and
     * leave it unscheduled: it still runs once when submitted.
     */
    @Test
    void aRotaTaskCannotBePeriodic() throws Exception {
        RotaTask<Long> fib = new Fib(10);
        String atFixedRate = assertThrows(IllegalArgumentException.class,
                () -> pool.scheduleAtFixedRate(fib, 0, 1, TimeUnit.MILLISECONDS)).getMessage();
        assertTrue(atFixedRate.contains(fib.toString()) && atFixedRate.contains("once"), atFixedRate);
        assertThrows(IllegalArgumentException.class, () -> pool.scheduleWithFixedDelay(fib, 0, 1, TimeUnit.MILLISECONDS));
        assertFalse(fib.isDone());
        assertEquals(0, pool.defaultGroup().stats().rejectedTasks(), "bad input, not a refusal of the pool");
        assertEquals(Fib.slow(10), pool.submit(fib).get(Liveness.SECONDS, TimeUnit.SECONDS));
    }

    /**
     * A RotaTask is a Runnable, so code that holds the pool as an {@code ExecutorService} submits it
     * through {@code submit(Runnable)}: the future is the task itself, as ForkJoinPool returns a
     * ForkJoinTask it is given, so that its get() reports what compute() threw.
     */
    @Test
    void submitAsARunnableReturnsTheTaskItselfAndReportsItsException() throws Exception {
        RuntimeException thrown = new UnsupportedOperationException("nope");
        TaskGroup group = pool.group("submitters", 100);
        for (ExecutorService executor : List.of(pool, group, group.submitOnly())) {
            RotaTask<Integer> task = new Throwing<Integer>(thrown);
            Future<?> future = executor.submit((Runnable) task);
            assertSame(task, future, "submit through " + executor);
            ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
            assertInstanceOf(UnsupportedOperationException.class, e.getCause());
        }
    }

    /** A task submitted as a Runnable is among those shutdownNow cancels, so its joiner is answered. */
    @Test
    void shutdownNowCancelsATaskSubmittedAsARunnable() throws Exception {
        RotaPool one = oneWorkerHeldUntilShutdownNow();
        RotaTask<Long> queued = new Fib(10);
        ExecutorService executor = one;
        executor.submit(queued);
        List<Runnable> returned = one.shutdownNow();
        assertTrue(returned.contains(queued), "returned " + returned);
        assertTrue(queued.isCancelled(), "a joiner of " + queued + " would wait for ever");
        assertThrows(CancellationException.class, queued::join);
        assertTrue(one.awaitTermination(30, TimeUnit.SECONDS));
    }

    /**
     * A task that a group refuses (its queue full, or shut down) is not that group's: it may be
     * submitted elsewhere, and a join of it then must not lend the joiner's tickets to the group that
     * refused it. Here the refused task runs in a JDK executor, and a task of another group joins it.
     */
    @Test
    void aTaskRefusedByAFullGroupStaysAsItWas() throws Exception {
        refusedThenRunElsewhere(refusing -> refusing.setQueueCapacity(1));
    }

    @Test
    void aTaskRefusedByAShutDownGroupStaysAsItWas() throws Exception {
        refusedThenRunElsewhere(TaskGroup::shutdown);
    }

    /**
     * On a pool of one worker with no spare, a task of group "joiner" holds the worker while group
     * "refusing" holds a queued task (so it is active, and may be lent to) and is made to refuse by
     * {@code refuse}; the task it refuses runs in a JDK executor, and the joiner joins it there.
     */
    private static void refusedThenRunElsewhere(Consumer<TaskGroup> refuse) throws Exception {
        RotaPool one = RotaPool.builder().workers(1).pinning(false).maxSpareThreads(0).build();
        ExecutorService elsewhere = Executors.newSingleThreadExecutor();
        CountDownLatch finish = new CountDownLatch(1);
        try {
            TaskGroup refusing = one.group("refusing", 100);
            TaskGroup joiner = one.group("joiner", 100);
            class Waits extends RotaTask<Integer> {
                @Override
                protected Integer compute() {
                    try {
                        finish.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return 7;
                }
            }
            RotaTask<Integer> refused = new Waits();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch join = new CountDownLatch(1);
            CountDownLatch joining = new CountDownLatch(1);
            AtomicReference<Thread> joinerThread = new AtomicReference<>();
            Future<Integer> joined = joiner.submit(() -> {
                joinerThread.set(Thread.currentThread());
                started.countDown();
                join.await();
                joining.countDown();                     // its next wait is the join's
                return refused.join();
            });
            Liveness.await(started, "the joining task never started");
            refusing.execute(() -> { });                 // queued behind the joiner: refusing is active
            joiner.execute(() -> { });                   // and so is joiner, whose value a loan would split
            refuse.accept(refusing);
            assertThrows(RejectedExecutionException.class, () -> refusing.execute(refused));
            assertThrows(RejectedExecutionException.class, () -> refusing.submit(refused, 0));
            assertFalse(refused.isDone(), "a refused task must be left to run");
            elsewhere.execute(refused);
            join.countDown();
            Liveness.await(joining, "the joining task never went on to join");
            awaitWaiting(joinerThread.get());
            assertEquals(100, refusing.value(), 1e-9, "the join of a task the group refused lent to that group");
            assertEquals(100, joiner.value(), 1e-9, "the joiner's value");
            finish.countDown();
            assertEquals(7, joined.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            finish.countDown();
            one.shutdownNow();
            elsewhere.shutdown();
            Liveness.awaitTermination(one);
            Liveness.awaitTermination(elsewhere);
        }
    }

    /** Waits, within the liveness bound, until {@code thread} waits (in a join here), timed or not. */
    private static void awaitWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        Thread.State state;
        while ((state = thread.getState()) != Thread.State.WAITING && state != Thread.State.TIMED_WAITING
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING, "the joiner is " + state);
    }

    /** A pool of one worker, held by a task that only shutdownNow's interrupt ends: what is submitted waits. */
    private static RotaPool oneWorkerHeldUntilShutdownNow() throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        RotaPool one = RotaPool.builder().workers(1).build();
        one.execute(() -> {
            inside.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        return one;
    }

    /**
     * A timed get on a worker helps as join does: on a pool of one worker, the task waited on is
     * this worker's own fork, which nobody else could run before the deadline.
     */
    @Test
    void timedGetOnTheOnlyWorkerRunsItsOwnFork() throws Exception {
        try (RotaPool one = RotaPool.builder().workers(1).build()) {
            long value = one.submit(() -> {
                Fib child = new Fib(15);
                child.fork();
                return child.get(20, TimeUnit.SECONDS);
            }).get(30, TimeUnit.SECONDS);
            assertEquals(Fib.slow(15), value);
        }
    }

    /**
     * A timed get across groups waits as a managed block, as an untimed one does: a spare thread
     * keeps the only core busy, and it runs the other group's task before the deadline.
     */
    @Test
    void timedGetAcrossGroupsOnTheOnlyWorkerLetsASpareRunTheTask() throws Exception {
        try (RotaPool one = RotaPool.builder().workers(1).build()) {
            TaskGroup server = one.group("server", 100);
            TaskGroup client = one.group("client", 100);
            long value = client.submit(() -> server.submit(new Fib(15)).get(20, TimeUnit.SECONDS))
                    .get(30, TimeUnit.SECONDS);
            assertEquals(Fib.slow(15), value);
        }
    }

    /** True when {@code thread} is inside a wait of RotaTask (a join or a get), past reading the task's group. */
    static boolean waitsInAwaitDone(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(RotaTask.class.getName()) && frame.getMethodName().equals("awaitDone")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A join may begin before the task it waits for has a group: the task is handed to the joiner,
     * and submitted to another group only afterwards. The join must then wait for that group's run
     * as any join across groups does (a managed block, with a loan): on a pool of one worker, a join
     * that went on helping only its own group would hold the only worker against the task for ever.
     */
    @Test
    void aJoinBegunBeforeTheTaskIsSubmittedToAnotherGroupCompletes() throws Exception {
        RotaPool one = RotaPool.builder().workers(1).pinning(false).build();
        try {
            TaskGroup client = one.group("client", 100);
            TaskGroup server = one.group("server", 100);
            RotaTask<Long> later = new Fib(10);
            AtomicReference<Thread> joiner = new AtomicReference<>();
            Future<Long> joined = client.submit(() -> {
                joiner.set(Thread.currentThread());
                return later.join();                     // no group yet: not submitted
            });
            Liveness.awaitCondition(() -> joiner.get() != null && waitsInAwaitDone(joiner.get()),
                    "the client's task never began its join");
            server.execute(later);                       // queued on the only worker, which the join holds
            try {
                assertEquals(Fib.slow(10), joined.get(Liveness.SECONDS, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("the join holds the only worker, so the server's task never runs\n"
                        + Liveness.threadDump(), e);
            }
        } finally {
            one.shutdownNow();
            Liveness.awaitTermination(one);
        }
    }

    /**
     * A join whose group has nothing left to run on its worker, while the task it waits for runs on
     * a thread that stands in for nobody (a spare its worker has released, here) and waits in turn
     * for a task of another group queued on that worker: on a pool of one worker nobody else may run
     * that task. The join must let a spare run it (a managed block), not hold the worker polling.
     */
    @Test
    void aJoinOnTheOnlyWorkerLetsOtherGroupsRunWhatItsTaskWaitsFor() throws Exception {
        RotaPool one = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch unblock = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        try {
            TaskGroup client = one.group("client", 100);
            TaskGroup server = one.group("server", 100);
            CountDownLatch computing = new CountDownLatch(1);
            class WaitsForServer extends RotaTask<Integer> {
                @Override
                protected Integer compute() {
                    computing.countDown();
                    try {
                        go.await();                      // not a managed block: no spare comes for this
                        return server.submit(() -> 7).get();
                    } catch (InterruptedException | ExecutionException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            RotaTask<Integer> joined = new WaitsForServer();
            AtomicReference<Thread> joiner = new AtomicReference<>();
            Future<Integer> outer = client.submit(() -> {
                joiner.set(Thread.currentThread());
                RotaPool.managedBlock(new dev.rota.contract.LatchBlocker(unblock)); // a spare stands in
                return joined.join();
            });
            Liveness.awaitCondition(() -> one.spareThreads() > 0, "no spare stood in for the blocked worker");
            client.execute(joined);                      // the spare runs it
            Liveness.await(computing, "the spare never ran the joined task");
            unblock.countDown();                         // the worker goes on, to the join; the spare is released
            Liveness.awaitCondition(() -> joiner.get() != null && waitsInAwaitDone(joiner.get()),
                    "the worker never began its join");
            go.countDown();                              // the server's task is queued on the only worker
            try {
                assertEquals(7, outer.get(Liveness.SECONDS, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("the join holds the only worker against the server's task\n"
                        + Liveness.threadDump(), e);
            }
        } finally {
            unblock.countDown();
            go.countDown();
            one.shutdownNow();
            Liveness.awaitTermination(one);
        }
    }

    /**
     * The same with the joined task running outside the pool (invoked by another thread), which waits
     * for a task of another group: the join on the only worker must let a spare run that task.
     */
    @Test
    void aJoinOnTheOnlyWorkerOfATaskRunningOutsideLetsOtherGroupsRun() throws Exception {
        RotaPool one = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch go = new CountDownLatch(1);
        Thread invoker = null;
        try {
            TaskGroup client = one.group("client", 100);
            TaskGroup server = one.group("server", 100);
            CountDownLatch computing = new CountDownLatch(1);
            class WaitsForServer extends RotaTask<Integer> {
                @Override
                protected Integer compute() {
                    computing.countDown();
                    try {
                        go.await();
                        return server.submit(() -> 7).get();
                    } catch (InterruptedException | ExecutionException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            RotaTask<Integer> joined = new WaitsForServer();
            invoker = new Thread(joined::invoke, "invoker");
            invoker.start();
            Liveness.await(computing, "the invoke never began");
            AtomicReference<Thread> joiner = new AtomicReference<>();
            Future<Integer> outer = client.submit(() -> {
                joiner.set(Thread.currentThread());
                return joined.join();
            });
            Liveness.awaitCondition(() -> joiner.get() != null && waitsInAwaitDone(joiner.get()),
                    "the worker never began its join");
            go.countDown();
            try {
                assertEquals(7, outer.get(Liveness.SECONDS, TimeUnit.SECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("the join holds the only worker against the server's task\n"
                        + Liveness.threadDump(), e);
            }
        } finally {
            go.countDown();
            one.shutdownNow();                           // returns the server's task without running it
            if (invoker != null) {
                invoker.interrupt();                     // whose get() would wait for ever then
                invoker.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
            }
            Liveness.awaitTermination(one);
        }
    }

    @Test
    void timedGetTimesOutAndNamesTheTask() {
        CountDownLatch never = new CountDownLatch(1);
        class Stuck extends RotaTask<Integer> {
            @Override
            protected Integer compute() {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 1;
            }
        }
        RotaTask<Integer> stuck = pool.submit(new Stuck());
        TimeoutException e = assertThrows(TimeoutException.class, () -> stuck.get(10, TimeUnit.MILLISECONDS));
        assertTrue(e.getMessage().contains("Stuck"), e.getMessage());
        assertThrows(TimeoutException.class, () -> stuck.get(0, TimeUnit.SECONDS), "zero only looks");
        assertThrows(NullPointerException.class, () -> stuck.get(1, null));
        never.countDown();
        assertEquals(1, stuck.join());
    }
}
