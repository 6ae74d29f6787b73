package dev.rota;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rota.contract.Blockers;
import dev.rota.contract.ContractTest;
import dev.rota.contract.ExecutorFactory;
import dev.rota.contract.ExecutorFactory.QueuedTaskFate;
import dev.rota.contract.LateCancellations;
import dev.rota.contract.Liveness;
import dev.rota.contract.RunCounter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.function.Executable;

/**
 * The {@link ExecutorService} contract as ForkJoinPool and ThreadPoolExecutor keep it, run against
 * RotaPool and against those two JDK pools as references (see {@link ExecutorFactory#all()}).
 *
 * <p>Every pool has {@link ExecutorFactory#WORKERS two} workers; tests that need queued tasks first
 * occupy both workers with {@link Blockers}. Where the JDK pools themselves differ (what
 * {@code shutdownNow()} does with queued tasks) the test asserts each pool's documented behaviour,
 * chosen by {@link QueuedTaskFate}, plus the invariant they share. Waits are bounded by
 * {@link Liveness#SECONDS}; nothing asserts speed. Every pool a test opens is shut down and awaited
 * after it.
 */
class ExecutorContractTest {

    private static final int WORKERS = ExecutorFactory.WORKERS;

    private final List<ExecutorService> opened = new ArrayList<>();
    /** Whatever reaches the worker threads' handler in tests that do not install their own. */
    private final Queue<Throwable> uncaught = new ConcurrentLinkedQueue<>();

    private ExecutorService open(ExecutorFactory factory) {
        return open(factory, (thread, error) -> uncaught.add(error));
    }

    private ExecutorService open(ExecutorFactory factory, Thread.UncaughtExceptionHandler handler) {
        ExecutorService pool = factory.create(handler);
        opened.add(pool);
        return pool;
    }

    /** Stops what a test left running; repeating shutdownNow() is the business of its own test, not of this cleanup. */
    @AfterEach
    void shutDownEveryPool() throws InterruptedException {
        for (ExecutorService pool : opened) {
            if (!pool.isTerminated()) {
                Liveness.within("shutdownNow() in cleanup", pool::shutdownNow);
            }
        }
        for (ExecutorService pool : opened) {
            Liveness.awaitTermination(pool);
        }
    }

    private static <T> T getWithin(Future<T> future) throws Exception {
        return future.get(Liveness.SECONDS, SECONDS);
    }

    /** A pool may rethrow a copy of the task's exception (ForkJoinPool does): accept one that wraps the original. */
    private static void assertCausedBy(Throwable original, ExecutionException thrown) {
        Throwable cause = thrown.getCause();
        assertTrue(cause != null && cause.getClass() == original.getClass(),
                "cause should be a " + original.getClass().getSimpleName() + ", was " + cause);
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t == original) {
                return;
            }
        }
        fail("the task's own exception is not in the cause chain of " + thrown);
    }

    private static Callable<String> failing(RuntimeException error) {
        return () -> {
            throw error;
        };
    }

    @Nested
    class Completion {

        @ContractTest
        void executeRunsTheTask(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            CountDownLatch ran = new CountDownLatch(1);

            pool.execute(ran::countDown);

            Liveness.await(ran, "executed task");
        }

        @ContractTest
        void submitRunnableCompletesWithNull(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            RunCounter counter = new RunCounter(1);

            Future<?> future = pool.submit(counter.task(0));

            assertNull(getWithin(future));
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
            counter.assertEachRanOnce();
        }

        @ContractTest
        void submitRunnableWithResultGivesThatResult(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            Future<String> future = pool.submit(() -> { }, "given");

            assertEquals("given", getWithin(future));
        }

        @ContractTest
        void submitCallableGivesItsValue(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            Future<Integer> future = pool.submit(() -> 6 * 7);

            assertEquals(42, getWithin(future));
        }

        @ContractTest
        void callableExceptionReachesItsFutureAsExecutionException(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            IllegalStateException error = new IllegalStateException("callable failed");

            Future<String> future = pool.submit(failing(error));

            assertCausedBy(error, assertThrows(ExecutionException.class, () -> getWithin(future)));
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
        }

        @ContractTest
        void runnableExceptionReachesItsFutureAsExecutionException(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            IllegalStateException error = new IllegalStateException("runnable failed");

            Future<?> future = pool.submit((Runnable) () -> {
                throw error;
            });

            assertCausedBy(error, assertThrows(ExecutionException.class, () -> getWithin(future)));
        }

        @ContractTest
        void submittedTaskExceptionDoesNotReachTheUncaughtHandler(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            Future<String> future = pool.submit(failing(new IllegalStateException("kept in the future")));
            assertThrows(ExecutionException.class, () -> getWithin(future));
            pool.shutdown();
            Liveness.awaitTermination(pool);

            assertEquals(List.of(), List.copyOf(uncaught));
        }
    }

    @Nested
    class NullTasks {

        @ContractTest
        void executeNull(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            assertThrows(NullPointerException.class, () -> pool.execute(null));
        }

        @ContractTest
        void submitNullRunnable(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            assertThrows(NullPointerException.class, () -> pool.submit((Runnable) null));
        }

        @ContractTest
        void submitNullRunnableWithResult(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            assertThrows(NullPointerException.class, () -> pool.submit((Runnable) null, "result"));
        }

        @ContractTest
        void submitNullCallable(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            assertThrows(NullPointerException.class, () -> pool.submit((Callable<String>) null));
        }

        @ContractTest
        void invokeAllNullCollection(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            assertAll(
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAll(null)),
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAll(null, 1, SECONDS)));
        }

        @ContractTest
        void invokeAllNullElement(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            List<Callable<String>> tasks = Arrays.asList(() -> "a", null);
            assertAll(
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAll(tasks)),
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAll(tasks, 1, SECONDS)));
        }

        @ContractTest
        void invokeAnyNullCollection(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            assertAll(
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAny(null)),
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAny(null, 1, SECONDS)));
        }

        /** The null comes first: AbstractExecutorService may return a result before it looks at later elements. */
        @ContractTest
        void invokeAnyNullElement(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            List<Callable<String>> tasks = Arrays.asList(null, () -> "a");
            assertAll(
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAny(tasks)),
                    () -> assertThrows(NullPointerException.class, () -> pool.invokeAny(tasks, 1, SECONDS)));
        }

        @ContractTest
        void poolStillRunsTasksAfterRefusingNulls(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            assertThrows(NullPointerException.class, () -> pool.execute(null));
            assertThrows(NullPointerException.class, () -> pool.invokeAll(Arrays.asList(() -> "a", null)));

            assertEquals("after", getWithin(pool.submit(() -> "after")));
        }
    }

    @Nested
    class InvokeAll {

        @ContractTest
        void returnsCompletedFuturesInTaskOrder(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int value = i;
                tasks.add(() -> value);
            }

            List<Future<Integer>> futures = pool.invokeAll(tasks);

            assertEquals(tasks.size(), futures.size());
            for (int i = 0; i < futures.size(); i++) {
                assertTrue(futures.get(i).isDone(), "future " + i + " done");
                assertEquals(i, futures.get(i).get());
            }
        }

        @ContractTest
        void reportsEachExceptionInItsOwnFuture(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            IllegalStateException error = new IllegalStateException("second task failed");

            List<Future<String>> futures = pool.invokeAll(List.of(() -> "first", failing(error), () -> "third"));

            assertEquals("first", futures.get(0).get());
            assertCausedBy(error, assertThrows(ExecutionException.class, () -> futures.get(1).get()));
            assertEquals("third", futures.get(2).get());
        }

        @ContractTest
        void timedReturnsEveryResultWhenTasksFinishInTime(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            List<Future<String>> futures = pool.invokeAll(List.of(() -> "a", () -> "b", () -> "c"),
                    Liveness.SECONDS, SECONDS);

            assertEquals(List.of("a", "b", "c"), futures.stream().map(Future::resultNow).toList());
        }

        /**
         * Three blockers on two workers never finish by themselves: after the timeout all three
         * futures are cancelled and every one that started is interrupted. (The queued one may
         * still start, on a worker freed by the first cancellation, before its own cancel.)
         */
        @ContractTest
        void timedCancelsTasksUnfinishedAtTheTimeout(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(0);

            List<Future<String>> futures = pool.invokeAll(
                    List.of(blockers.callable(), blockers.callable(), blockers.callable()), 100, MILLISECONDS);

            assertEquals(3, futures.size());
            for (Future<String> future : futures) {
                assertTrue(future.isDone() && future.isCancelled(), "unfinished task cancelled: " + future);
            }
            pool.shutdown();
            Liveness.awaitTermination(pool);
            assertEquals(0, blockers.finished(), "no blocker was released");
            assertEquals(blockers.started(), blockers.interrupted(), "every started blocker was interrupted");
        }

        @ContractTest
        void interruptedCallerGetsInterruptedExceptionAndTasksAreCancelled(ExecutorFactory factory)
                throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(0);

            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class,
                    () -> pool.invokeAll(List.of(blockers.callable(), blockers.callable())));

            assertFalse(Thread.interrupted(), "the interrupt was consumed by the InterruptedException");
            pool.shutdown();
            Liveness.awaitTermination(pool);
            assertEquals(0, blockers.finished(), "no blocker was released");
            assertEquals(blockers.started(), blockers.interrupted(), "every started blocker was interrupted");
        }

        @ContractTest
        void emptyListGivesEmptyList(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            assertEquals(List.of(), pool.invokeAll(List.<Callable<String>>of()));
            assertEquals(List.of(), pool.invokeAll(List.<Callable<String>>of(), 1, SECONDS));
        }
    }

    @Nested
    class InvokeAny {

        @ContractTest
        void returnsTheResultOfASuccessfulTask(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            String result = pool.invokeAny(List.of(failing(new IllegalStateException("no")), () -> "yes"));

            assertEquals("yes", result);
        }

        /** The fast task returns only once the slow one runs, so the slow one must be stopped by an interrupt. */
        @ContractTest
        void interruptsTheOthersOnceOneSucceeds(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers slow = new Blockers(1);
            Callable<String> fast = () -> {
                slow.awaitStarted();
                return "fast";
            };

            String result = pool.invokeAny(List.of(slow.callable(), fast));

            assertEquals("fast", result);
            slow.awaitInterrupted();
            assertEquals(0, slow.finished());
        }

        @ContractTest
        void allFailingGivesExecutionException(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            IllegalStateException first = new IllegalStateException("first");
            IllegalStateException second = new IllegalStateException("second");

            ExecutionException thrown = assertThrows(ExecutionException.class,
                    () -> pool.invokeAny(List.of(failing(first), failing(second))));

            Throwable cause = thrown.getCause();
            assertTrue(cause instanceof IllegalStateException, "cause is one task's exception: " + cause);
        }

        @ContractTest
        void timedThrowsTimeoutExceptionWhenNoTaskFinishes(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(0);

            assertThrows(TimeoutException.class,
                    () -> pool.invokeAny(List.of(blockers.callable(), blockers.callable()), 100, MILLISECONDS));

            pool.shutdown();
            Liveness.awaitTermination(pool);
            assertEquals(blockers.started(), blockers.interrupted(), "every started blocker was interrupted");
        }

        @ContractTest
        void emptyCollectionIsIllegal(ExecutorFactory factory) {
            ExecutorService pool = open(factory);
            assertAll(
                    () -> assertThrows(IllegalArgumentException.class,
                            () -> pool.invokeAny(List.<Callable<String>>of())),
                    () -> assertThrows(IllegalArgumentException.class,
                            () -> pool.invokeAny(List.<Callable<String>>of(), 1, SECONDS)));
        }
    }

    @Nested
    class Shutdown {

        @ContractTest
        void runsEveryTaskAcceptedBeforeShutdown(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(WORKERS);
            RunCounter queued = new RunCounter(50);
            for (int i = 0; i < WORKERS; i++) {
                pool.execute(blockers.runnable());
            }
            blockers.awaitStarted();
            for (int i = 0; i < queued.tasks(); i++) {
                pool.execute(queued.task(i));
            }

            pool.shutdown();

            assertTrue(pool.isShutdown());
            assertFalse(pool.isTerminated(), "blockers still hold the workers");
            blockers.release();
            Liveness.awaitTermination(pool);
            assertTrue(pool.isTerminated());
            assertEquals(WORKERS, blockers.finished());
            queued.assertEachRanOnce();
        }

        @ContractTest
        void idlePoolTerminatesOnShutdown(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            assertEquals("warm", getWithin(pool.submit(() -> "warm")));

            pool.shutdown();

            Liveness.awaitTermination(pool);
            assertTrue(pool.isShutdown());
            assertTrue(pool.isTerminated());
        }

        @ContractTest
        void rejectsEverySubmissionAfterShutdown(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            pool.shutdown();
            assertRejectsEverything(pool);
        }

        @ContractTest
        void rejectsEverySubmissionAfterShutdownNow(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            pool.shutdownNow();
            assertRejectsEverything(pool);
        }

        /** Both JDK pools throw RejectedExecutionException from every entry point once shut down (callers outside the pool). */
        private void assertRejectsEverything(ExecutorService pool) throws InterruptedException {
            RunCounter rejected = new RunCounter(6);
            List<Executable> submissions = List.of(
                    () -> pool.execute(rejected.task(0)),
                    () -> pool.submit(rejected.task(1)),
                    () -> pool.submit(rejected.task(2), "result"),
                    () -> pool.submit(Executors.callable(rejected.task(3))),
                    () -> pool.invokeAll(List.of(Executors.callable(rejected.task(4)))),
                    () -> pool.invokeAny(List.of(Executors.callable(rejected.task(5)))));
            for (Executable submission : submissions) {
                assertThrows(RejectedExecutionException.class, submission);
            }
            Liveness.awaitTermination(pool);
            assertEquals(0, rejected.total(), "a rejected task ran");
        }
    }

    @Nested
    class ShutdownNow {

        @ContractTest
        void interruptsRunningTasks(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(WORKERS);
            pool.execute(blockers.runnable());
            pool.execute(blockers.sleeper());
            blockers.awaitStarted();

            pool.shutdownNow();

            blockers.awaitInterrupted();
            Liveness.awaitTermination(pool);
            assertTrue(pool.isShutdown());
            assertTrue(pool.isTerminated());
            assertEquals(0, blockers.finished());
        }

        @ContractTest
        void shutdownNowTwiceIsHarmless(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(1);
            pool.execute(blockers.runnable());
            blockers.awaitStarted();

            List<Runnable> first = Liveness.within("first shutdownNow()", pool::shutdownNow);
            List<Runnable> second = Liveness.within("second shutdownNow()", pool::shutdownNow);

            assertEquals(List.of(), first, "nothing was queued");
            assertEquals(List.of(), second);
            Liveness.awaitTermination(pool);
            assertEquals(1, blockers.interrupted());
        }

        @ContractTest
        void shutdownNowAfterTerminationReturnsNothing(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            assertEquals("warm", getWithin(pool.submit(() -> "warm")));
            pool.shutdown();
            Liveness.awaitTermination(pool);

            assertEquals(List.of(), Liveness.within("shutdownNow() after termination", pool::shutdownNow));
            assertEquals(List.of(), Liveness.within("shutdownNow() again", pool::shutdownNow));
            assertTrue(pool.isTerminated());
        }

        /**
         * The pools differ in what happens to accepted tasks that never started: ThreadPoolExecutor
         * returns them from shutdownNow() (as ExecutorService documents); ForkJoinPool (JDK 19+)
         * returns an empty list and cancels them. Either way none is lost and none runs twice:
         * accepted == ran + returned + cancelled. Running the returned tasks ourselves must then
         * complete exactly the futures that neither ran nor were cancelled.
         */
        @ContractTest
        void accountsForEveryAcceptedTask(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(WORKERS);
            RunCounter queued = new RunCounter(100);
            for (int i = 0; i < WORKERS; i++) {
                pool.execute(blockers.runnable());
            }
            blockers.awaitStarted();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < queued.tasks(); i++) {
                futures.add(pool.submit(queued.task(i)));
            }

            List<Runnable> returned = pool.shutdownNow();

            assertAccountedFor(factory, pool, queued, futures, returned);
            assertEquals(WORKERS, blockers.interrupted());
        }

        /** Once the pool terminated: accepted == ran + returned + cancelled, and no task ran twice. */
        private static void assertAccountedFor(ExecutorFactory factory, ExecutorService pool, RunCounter queued,
                                               List<Future<?>> futures, List<Runnable> returned)
                throws InterruptedException {
            Liveness.awaitTermination(pool);
            long ranInPool = queued.total();
            if (factory.queuedTaskFate() == QueuedTaskFate.CANCELLED) {
                LateCancellations.settle(pool, () -> queued.tasks() - ranInPool
                        - futures.stream().filter(Future::isCancelled).count());
                assertEquals(ranInPool, queued.total(), "tasks ran after termination");
            }
            long cancelled = futures.stream().filter(Future::isCancelled).count();
            String counts = "accepted " + queued.tasks() + ", ran " + ranInPool + ", returned " + returned.size()
                    + ", cancelled " + cancelled;
            assertEquals(queued.tasks(), ranInPool + returned.size() + cancelled, counts);
            if (factory.queuedTaskFate() == QueuedTaskFate.RETURNED) {
                assertEquals(0, cancelled, counts);
            } else {
                assertEquals(List.of(), returned, counts);
            }
            for (Runnable task : returned) {
                task.run();
            }
            queued.assertEachRanAtMostOnce();
            assertEquals(cancelled, queued.neverRan(), "only the cancelled tasks never ran; " + counts);
            for (Future<?> future : futures) {
                assertTrue(future.isDone(), "every future is done once the returned tasks ran; " + counts);
            }
        }

        /** As above, for tasks a worker submitted (into its own queue, in ForkJoinPool and RotaPool). */
        @ContractTest
        void accountsForEveryTaskSubmittedByAWorker(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(WORKERS);
            RunCounter queued = new RunCounter(100);
            List<Future<?>> futures = Collections.synchronizedList(new ArrayList<>());
            Runnable blocker = blockers.runnable();
            pool.execute(() -> {
                for (int i = 0; i < queued.tasks(); i++) {
                    futures.add(pool.submit(queued.task(i)));
                }
                blocker.run();
            });
            pool.execute(blockers.runnable());
            blockers.awaitStarted();

            List<Runnable> returned = pool.shutdownNow();

            assertAccountedFor(factory, pool, queued, futures, returned);
            assertEquals(WORKERS, blockers.interrupted());
        }

        /** ThreadPoolExecutor returns the very Runnables given to execute(), each once; ForkJoinPool an empty list. */
        @ContractTest
        void returnsTheExecutedRunnablesThemselves(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(WORKERS);
            RunCounter queued = new RunCounter(100);
            for (int i = 0; i < WORKERS; i++) {
                pool.execute(blockers.runnable());
            }
            blockers.awaitStarted();
            for (int i = 0; i < queued.tasks(); i++) {
                pool.execute(queued.task(i));
            }

            List<Runnable> returned = pool.shutdownNow();

            Liveness.awaitTermination(pool);
            if (factory.queuedTaskFate() == QueuedTaskFate.CANCELLED) {
                assertEquals(List.of(), returned);
                queued.assertEachRanAtMostOnce();
                return;
            }
            Map<Runnable, Boolean> seen = new IdentityHashMap<>();
            for (Runnable task : returned) {
                assertTrue(task instanceof RunCounter.CountedTask counted && counted.counter() == queued,
                        "returned something that was never executed: " + task);
                assertNull(seen.put(task, true), "returned twice: " + task);
                assertEquals(0, queued.runs(((RunCounter.CountedTask) task).id()), "returned but ran: " + task);
            }
            assertEquals(queued.tasks(), queued.total() + returned.size(),
                    "accepted == ran + returned; ran " + queued.total() + ", returned " + returned.size());
        }
    }

    @Nested
    class Termination {

        @ContractTest
        void awaitTerminationIsFalseBeforeShutdown(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            assertFalse(pool.awaitTermination(10, MILLISECONDS));
            assertFalse(pool.isShutdown());
            assertFalse(pool.isTerminated());
        }

        @ContractTest
        void awaitTerminationIsFalseWhileATaskRuns(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(1);
            pool.execute(blockers.runnable());
            blockers.awaitStarted();
            pool.shutdown();

            assertFalse(pool.awaitTermination(50, MILLISECONDS));
            assertFalse(pool.isTerminated());

            blockers.release();
            Liveness.awaitTermination(pool);
            assertEquals(1, blockers.finished());
        }

        /**
         * Once terminated, awaitTermination returns true at once, on an interrupted thread too, as
         * ThreadPoolExecutor's and ForkJoinPool's do: it has nothing to wait for, so there is no wait
         * for the interrupt to end, and the interrupt stays for the caller to handle.
         */
        @ContractTest
        void awaitTerminationOnceTerminatedIsTrueEvenWhenInterrupted(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            pool.shutdown();
            Liveness.awaitTermination(pool);

            Thread.currentThread().interrupt();
            try {
                assertTrue(pool.awaitTermination(1, SECONDS));
                assertTrue(pool.awaitTermination(0, SECONDS));
                assertTrue(Thread.currentThread().isInterrupted(), "the caller's interrupt was taken");
            } finally {
                Thread.interrupted();
            }
        }

        @ContractTest
        void closeWaitsForRunningTasksThenTerminates(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(1);
            pool.execute(blockers.runnable());
            blockers.awaitStarted();
            AtomicReference<Throwable> closeFailure = new AtomicReference<>();
            Thread closer = Thread.ofPlatform().name("closer").start(() -> {
                try {
                    pool.close();
                } catch (Throwable t) {
                    closeFailure.set(t);
                }
            });

            Liveness.awaitCondition(pool::isShutdown, "close() to shut the pool down");
            assertTrue(closer.isAlive(), "close() returned while a task still ran");
            assertFalse(pool.isTerminated());
            blockers.release();
            closer.join(SECONDS.toMillis(Liveness.SECONDS));

            assertFalse(closer.isAlive(), "close() still waiting after the task finished");
            assertNull(closeFailure.get());
            assertTrue(pool.isTerminated());
            assertEquals(1, blockers.finished(), "close() let the running task finish");
        }

        @ContractTest
        void closeTwiceIsHarmless(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            assertEquals("warm", getWithin(pool.submit(() -> "warm")));

            pool.close();
            pool.close();

            assertTrue(pool.isTerminated());
        }
    }

    @Nested
    class Cancellation {

        @ContractTest
        void cancelWithInterruptStopsARunningTask(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(1);
            Future<String> future = pool.submit(blockers.callable());
            blockers.awaitStarted();

            assertTrue(future.cancel(true));

            blockers.awaitInterrupted();
            assertTrue(future.isCancelled());
            assertTrue(future.isDone());
            assertThrows(CancellationException.class, future::get);
        }

        @ContractTest
        void cancelWithoutInterruptLetsARunningTaskFinish(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(1);
            Future<String> future = pool.submit(blockers.callable());
            blockers.awaitStarted();

            assertTrue(future.cancel(false));
            blockers.release();
            pool.shutdown();
            Liveness.awaitTermination(pool);

            assertTrue(future.isCancelled());
            assertEquals(1, blockers.finished());
            assertEquals(0, blockers.interrupted());
        }

        @ContractTest
        void cancelledQueuedTaskNeverRuns(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Blockers blockers = new Blockers(WORKERS);
            RunCounter queued = new RunCounter(2);
            for (int i = 0; i < WORKERS; i++) {
                pool.execute(blockers.runnable());
            }
            blockers.awaitStarted();
            Future<?> cancelled = pool.submit(queued.task(0));
            Future<?> kept = pool.submit(queued.task(1));

            assertTrue(cancelled.cancel(false));
            blockers.release();
            assertNull(getWithin(kept));
            pool.shutdown();
            Liveness.awaitTermination(pool);

            assertTrue(cancelled.isCancelled());
            assertEquals(0, queued.runs(0), "the cancelled task ran");
            assertEquals(1, queued.runs(1));
        }
    }

    @Nested
    class WorkerThreads {

        @ContractTest
        void workersAreDaemonThreads(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            assertTrue(getWithin(pool.submit(() -> Thread.currentThread().isDaemon())));
        }

        @ContractTest
        void workerThreadsEndOnceThePoolTerminated(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            Set<Thread> workers = ConcurrentHashMap.newKeySet();
            Blockers blockers = new Blockers(WORKERS);
            for (int i = 0; i < WORKERS; i++) {
                pool.execute(() -> {
                    workers.add(Thread.currentThread());
                    blockers.runnable().run();
                });
            }
            blockers.awaitStarted();
            blockers.release();

            pool.close();

            assertTrue(pool.isTerminated());
            assertEquals(WORKERS, workers.size(), "two blockers held two distinct workers");
            Liveness.awaitCondition(() -> workers.stream().noneMatch(Thread::isAlive), "worker threads to end");
        }

        /** Both JDK pools clear a worker's interrupt status before it runs the next task. */
        @ContractTest
        void interruptLeftByATaskDoesNotReachTheNextTask(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            int rounds = 200;
            LongAdder sawInterrupt = new LongAdder();
            CountDownLatch checked = new CountDownLatch(rounds);

            for (int i = 0; i < rounds; i++) {
                pool.execute(() -> Thread.currentThread().interrupt());
                pool.execute(() -> {
                    if (Thread.currentThread().isInterrupted()) {
                        sawInterrupt.increment();
                    }
                    checked.countDown();
                });
            }

            Liveness.await(checked, "tasks checking their interrupt status");
            assertEquals(0, sawInterrupt.sum(), "tasks that started with an interrupt meant for an earlier task");
        }
    }

    @Nested
    class UncaughtExceptions {

        /**
         * Runtime exceptions and errors alike: TPE replaces the dying worker, FJP keeps it; either way
         * the handler sees the very throwable and work goes on.
         */
        @ContractTest
        void executeExceptionReachesTheWorkersHandlerAndThePoolCarriesOn(ExecutorFactory factory) throws Exception {
            BlockingQueue<Map.Entry<Thread, Throwable>> handled = new LinkedBlockingQueue<>();
            ExecutorService pool = open(factory, (thread, error) -> handled.add(Map.entry(thread, error)));
            int failures = 5;
            List<Throwable> errors = new ArrayList<>();
            RunCounter after = new RunCounter(100);

            for (int i = 0; i < failures; i++) {
                Throwable error = i % 2 == 0
                        ? new IllegalStateException("escaped execute #" + i)
                        : new AssertionError("error escaped execute #" + i);
                errors.add(error);
                pool.execute(() -> {
                    if (error instanceof Error e) {
                        throw e;
                    }
                    throw (RuntimeException) error;
                });
            }
            Map<Throwable, Boolean> seen = Collections.synchronizedMap(new IdentityHashMap<>());
            for (int i = 0; i < failures; i++) {
                Map.Entry<Thread, Throwable> entry = handled.poll(Liveness.SECONDS, SECONDS);
                assertTrue(entry != null, "handler saw only " + i + " of " + failures + " exceptions");
                assertNotSame(Thread.currentThread(), entry.getKey(), "handler runs for the worker thread");
                assertTrue(errors.stream().anyMatch(e -> e == entry.getValue()),
                        "handler got the task's own exception, not " + entry.getValue());
                assertNull(seen.put(entry.getValue(), true), "handler saw it twice: " + entry.getValue());
            }
            for (int i = 0; i < after.tasks(); i++) {
                pool.execute(after.task(i));
            }
            pool.shutdown();
            Liveness.awaitTermination(pool);

            after.assertEachRanOnce();
        }
    }

    @Nested
    class Volume {

        @ContractTest
        void hundredThousandTasksEachRunOnce(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            RunCounter counter = new RunCounter(100_000);

            for (int i = 0; i < counter.tasks(); i++) {
                pool.execute(counter.task(i));
            }
            pool.shutdown();
            Liveness.awaitTermination(pool);

            counter.assertEachRanOnce();
        }

        @ContractTest
        void tasksFromSeveralSubmittersEachRunOnce(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            int submitters = 3;
            int perSubmitter = 30_000;
            RunCounter counter = new RunCounter(submitters * perSubmitter);
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < submitters; s++) {
                int first = s * perSubmitter;
                threads.add(Thread.ofPlatform().name("submitter-" + s).start(() -> {
                    for (int i = first; i < first + perSubmitter; i++) {
                        pool.execute(counter.task(i));
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join(SECONDS.toMillis(Liveness.SECONDS));
                assertFalse(thread.isAlive(), thread.getName() + " still submitting");
            }
            pool.shutdown();
            Liveness.awaitTermination(pool);

            counter.assertEachRanOnce();
        }
    }

    @Nested
    class NestedSubmission {

        @ContractTest
        void tasksSubmittedFromATaskRun(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            RunCounter children = new RunCounter(1_000);
            CountDownLatch allRan = new CountDownLatch(children.tasks());

            pool.execute(() -> {
                for (int i = 0; i < children.tasks(); i++) {
                    Runnable child = children.task(i);
                    pool.execute(() -> {
                        child.run();
                        allRan.countDown();
                    });
                }
            });

            Liveness.await(allRan, "children submitted by a task");
            children.assertEachRanOnce();
        }

        @ContractTest
        void recursiveFanOutRunsEveryTask(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);
            int depth = 12;
            int tasks = (1 << (depth + 1)) - 1;
            LongAdder ran = new LongAdder();
            CountDownLatch allRan = new CountDownLatch(tasks);

            pool.execute(new FanOut(pool, depth, ran, allRan));

            Liveness.await(allRan, "binary tree of tasks");
            assertEquals(tasks, ran.sum());
        }

        /** The waiting task holds one of the two workers; the subtask needs the other (or the waiter's help). */
        @ContractTest
        void taskWaitingForItsOwnSubtaskDoesNotDeadlock(ExecutorFactory factory) throws Exception {
            ExecutorService pool = open(factory);

            Future<String> outer = pool.submit(() -> {
                Future<String> inner = pool.submit(() -> "inner");
                return "outer+" + inner.get(Liveness.SECONDS, SECONDS);
            });

            assertEquals("outer+inner", outer.get(2 * Liveness.SECONDS, SECONDS));
        }
    }

    /** A task that, above depth 0, submits two children one level down. */
    private record FanOut(ExecutorService pool, int depth, LongAdder ran, CountDownLatch allRan) implements Runnable {
        @Override
        public void run() {
            if (depth > 0) {
                pool.execute(new FanOut(pool, depth - 1, ran, allRan));
                pool.execute(new FanOut(pool, depth - 1, ran, allRan));
            }
            ran.increment();
            allRan.countDown();
        }
    }
}
