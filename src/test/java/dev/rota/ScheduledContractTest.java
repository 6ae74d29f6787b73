package dev.rota;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.rota.schedule.DelaySchedulerPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The {@link ScheduledExecutorService} contract as ScheduledThreadPoolExecutor keeps it with its
 * default policies, run against:
 * <ul>
 *   <li>{@code ScheduledThreadPoolExecutor(2)}, the reference;
 *   <li>{@code ForkJoinPool(2)}, a control (a ScheduledExecutorService since JDK 25);
 *   <li>{@link DelaySchedulerPool}, a thread pool plus Rota's DelayScheduler, so the contract covers
 *       the scheduler before RotaPool adopts it;
 *   <li>RotaPool, loaded by name and skipped while it is absent or not yet a
 *       ScheduledExecutorService.
 * </ul>
 * Where the JDK pools differ, each pool's own documented behaviour is asserted and the difference
 * is named at the assertion ({@link Kind}). Time is asserted only as lower bounds ("not before its
 * delay") and liveness ("within 30 s").
 */
class ScheduledContractTest {

    private static final long LIVENESS_SECONDS = 30;
    private static final int WORKERS = 2;
    private static final String ROTA_POOL_CLASS = "dev.rota.RotaPool";

    /** Which implementation a factory builds, for the few places where they may differ. */
    enum Kind {
        STPE,
        /**
         * ForkJoinPool: shutdownNow() returns an empty list (it cancels pending tasks instead); its
         * futures are ForkJoinTasks, not RunnableScheduledFutures (no isPeriodic()); get() may throw
         * a copy of the task's exception that has the original as its cause; cancel() of a task
         * already cancelled returns true.
         */
        FORK_JOIN,
        /** DelaySchedulerPool and RotaPool: STPE's behaviour, plus cancelled shutdownNow() tasks and messages. */
        ROTA
    }

    record PoolFactory(String name, Kind kind, Supplier<ScheduledExecutorService> create) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<PoolFactory> pools() {
        return List.of(
                new PoolFactory("ScheduledThreadPoolExecutor(2)", Kind.STPE,
                        () -> new ScheduledThreadPoolExecutor(WORKERS)),
                new PoolFactory("ForkJoinPool(2)", Kind.FORK_JOIN, () -> new ForkJoinPool(WORKERS)),
                new PoolFactory("DelaySchedulerPool(2)", Kind.ROTA, () -> new DelaySchedulerPool(WORKERS)),
                new PoolFactory("RotaPool(2)", Kind.ROTA, ScheduledContractTest::reflectiveRotaPool));
    }

    private final List<ExecutorService> opened = new ArrayList<>();

    private ScheduledExecutorService open(PoolFactory factory) {
        ScheduledExecutorService pool = factory.create().get();
        opened.add(pool);
        return pool;
    }

    @AfterEach
    void shutDownEveryPool() throws InterruptedException {
        for (ExecutorService pool : opened) {
            pool.shutdownNow();
        }
        for (ExecutorService pool : opened) {
            assertTrue(pool.awaitTermination(LIVENESS_SECONDS, SECONDS), pool + " did not terminate");
        }
    }

    // ---- one-shot tasks ----------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void delayedTaskRunsNoEarlierThanItsDelay(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        AtomicLong ranAt = new AtomicLong();
        long start = System.nanoTime();
        ScheduledFuture<?> future = pool.schedule(() -> ranAt.set(System.nanoTime()), 50, MILLISECONDS);
        assertNull(future.get(LIVENESS_SECONDS, SECONDS));
        assertTrue(ranAt.get() - start >= MILLISECONDS.toNanos(50), "ran before its delay elapsed");
        assertTrue(future.isDone());
        assertFalse(future.isCancelled());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void delayedCallableReturnsItsValue(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        assertEquals("value", pool.schedule(() -> "value", 10, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void zeroAndNegativeDelaysRunAsSoonAsPossible(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        assertEquals(0, pool.schedule(() -> 0, 0, SECONDS).get(LIVENESS_SECONDS, SECONDS));
        assertEquals(1, pool.schedule(() -> 1, -1, DAYS).get(LIVENESS_SECONDS, SECONDS));
        assertEquals(2, pool.schedule(() -> 2, Long.MIN_VALUE, NANOSECONDS).get(LIVENESS_SECONDS, SECONDS));
        CountDownLatch periodicRan = new CountDownLatch(1);
        pool.scheduleAtFixedRate(periodicRan::countDown, -5, 1, HOURS);
        assertTrue(periodicRan.await(LIVENESS_SECONDS, SECONDS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void cancelledPendingTaskNeverRuns(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> keep = pool.schedule(ran::incrementAndGet, 100, MILLISECONDS);
        ScheduledFuture<?> interruptible = pool.schedule(ran::incrementAndGet, 100, MILLISECONDS);
        assertTrue(keep.cancel(false));
        assertTrue(interruptible.cancel(true));
        // Future.cancel returns false for a task already cancelled; ForkJoinTask.cancel returns
        // whether the task "is now cancelled", so true again.
        assertEquals(factory.kind() == Kind.FORK_JOIN, keep.cancel(false), "second cancel");
        assertTrue(keep.isCancelled() && keep.isDone());
        assertThrows(CancellationException.class, interruptible::get);
        pool.schedule(() -> { }, 200, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS);
        assertEquals(0, ran.get());
    }

    // ---- periodic tasks ----------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void fixedRateRunsRepeatedlyWithoutOverlapAndNoEarlierThanEachPeriod(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        int runs = 8;
        long periodNanos = MILLISECONDS.toNanos(2);
        long[] starts = new long[runs];
        AtomicInteger count = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(runs);
        long scheduledAt = System.nanoTime();
        ScheduledFuture<?> future = pool.scheduleAtFixedRate(() -> {
            if (running.incrementAndGet() > 1) {
                overlapped.set(true);
            }
            int k = count.getAndIncrement();
            if (k < runs) {
                starts[k] = System.nanoTime();
            }
            sleep(3);   // longer than the period: the next run is due before this one ends
            running.decrementAndGet();
            done.countDown();
        }, 0, periodNanos, NANOSECONDS);
        assertTrue(done.await(LIVENESS_SECONDS, SECONDS), "ran " + count.get() + " times");
        future.cancel(false);
        assertFalse(overlapped.get(), "two runs of one periodic task overlapped");
        for (int k = 0; k < runs; k++) {
            assertTrue(starts[k] - scheduledAt >= k * periodNanos, "run " + k + " started early");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void fixedDelayWaitsAfterEachRunEnds(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        int runs = 5;
        long delayNanos = MILLISECONDS.toNanos(5);
        long[] starts = new long[runs];
        long[] ends = new long[runs];
        AtomicInteger count = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(runs);
        ScheduledFuture<?> future = pool.scheduleWithFixedDelay(() -> {
            int k = count.getAndIncrement();
            if (k < runs) {
                starts[k] = System.nanoTime();
                sleep(2);
                ends[k] = System.nanoTime();
            }
            done.countDown();
        }, 0, delayNanos, NANOSECONDS);
        assertTrue(done.await(LIVENESS_SECONDS, SECONDS), "ran " + count.get() + " times");
        future.cancel(false);
        for (int k = 1; k < runs; k++) {
            assertTrue(starts[k] - ends[k - 1] >= delayNanos, "run " + k + " did not wait the delay");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void periodicTaskThatThrowsStopsAndReportsTheCause(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        AtomicInteger count = new AtomicInteger();
        IllegalStateException boom = new IllegalStateException("third run fails");
        ScheduledFuture<?> future = pool.scheduleAtFixedRate(() -> {
            if (count.incrementAndGet() == 3) {
                throw boom;
            }
        }, 0, 1, MILLISECONDS);
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> future.get(LIVENESS_SECONDS, SECONDS));
        assertCausedBy(boom, failure, factory.kind());
        assertTrue(future.isDone());
        assertFalse(future.isCancelled());
        // Runs never overlap, so the failing run was the last: a task due many periods later finds
        // the count unchanged.
        pool.schedule(() -> { }, 30, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS);
        assertEquals(3, count.get());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void periodicFutureGetBlocksUntilCancelled(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        CountDownLatch ranThrice = new CountDownLatch(3);
        ScheduledFuture<?> future = pool.scheduleWithFixedDelay(ranThrice::countDown, 0, 1, MILLISECONDS);
        assertTrue(ranThrice.await(LIVENESS_SECONDS, SECONDS));
        assertThrows(TimeoutException.class, () -> future.get(20, MILLISECONDS));
        assertFalse(future.isDone());
        assertTrue(future.cancel(false));
        assertThrows(CancellationException.class, future::get);
        assertTrue(future.isCancelled());
        assertTrue(future.isDone());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void periodicTaskCancelledDuringARunRunsNoMore(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        AtomicInteger count = new AtomicInteger();
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        CountDownLatch published = new CountDownLatch(1);
        self.set(pool.scheduleAtFixedRate(() -> {
            await(published);
            if (count.incrementAndGet() == 3) {
                self.get().cancel(false);
            }
        }, 0, 1, MILLISECONDS));
        published.countDown();
        assertThrows(CancellationException.class, () -> self.get().get(LIVENESS_SECONDS, SECONDS));
        pool.schedule(() -> { }, 30, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS);
        assertEquals(3, count.get());
    }

    // ---- arguments and futures ---------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void nonPositivePeriodIsRejected(PoolFactory factory) {
        ScheduledExecutorService pool = open(factory);
        Runnable command = () -> { };
        List<IllegalArgumentException> errors = List.of(
                assertThrows(IllegalArgumentException.class, () -> pool.scheduleAtFixedRate(command, 1, 0, SECONDS)),
                assertThrows(IllegalArgumentException.class, () -> pool.scheduleAtFixedRate(command, 1, -1, SECONDS)),
                assertThrows(IllegalArgumentException.class, () -> pool.scheduleWithFixedDelay(command, 1, 0, SECONDS)),
                assertThrows(IllegalArgumentException.class, () -> pool.scheduleWithFixedDelay(command, 1, -7, SECONDS)));
        if (factory.kind() == Kind.ROTA) {   // the JDK pools throw without a message
            List<String> values = List.of(": 0 ", ": -1 ", ": 0 ", ": -7 ");
            for (int i = 0; i < errors.size(); i++) {
                String message = String.valueOf(errors.get(i).getMessage());
                assertTrue(message.contains(values.get(i)), "message names the value: " + message);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void nullCommandOrUnitIsRejected(PoolFactory factory) {
        ScheduledExecutorService pool = open(factory);
        Runnable command = () -> { };
        Callable<String> callable = () -> "x";
        assertThrows(NullPointerException.class, () -> pool.schedule((Runnable) null, 1, SECONDS));
        assertThrows(NullPointerException.class, () -> pool.schedule((Callable<?>) null, 1, SECONDS));
        assertThrows(NullPointerException.class, () -> pool.schedule(command, 1, null));
        assertThrows(NullPointerException.class, () -> pool.schedule(callable, 1, null));
        assertThrows(NullPointerException.class, () -> pool.scheduleAtFixedRate(null, 1, 1, SECONDS));
        assertThrows(NullPointerException.class, () -> pool.scheduleAtFixedRate(command, 1, 1, null));
        assertThrows(NullPointerException.class, () -> pool.scheduleWithFixedDelay(null, 1, 1, SECONDS));
        assertThrows(NullPointerException.class, () -> pool.scheduleWithFixedDelay(command, 1, 1, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void futuresReportDelayOrderAndPeriodicity(PoolFactory factory) {
        ScheduledExecutorService pool = open(factory);
        ScheduledFuture<?> inAMinute = pool.schedule(() -> { }, 60, SECONDS);
        ScheduledFuture<?> inTenSeconds = pool.schedule(() -> { }, 10, SECONDS);
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(() -> { }, 1, 1, HOURS);
        long delay = inAMinute.getDelay(MILLISECONDS);
        assertTrue(delay > 0 && delay <= 60_000, "delay " + delay);
        assertTrue(inTenSeconds.compareTo(inAMinute) < 0);
        assertTrue(inAMinute.compareTo(inTenSeconds) > 0);
        assertEquals(0, inAMinute.compareTo(inAMinute));
        if (factory.kind() != Kind.FORK_JOIN) {   // ForkJoinPool's futures have no isPeriodic()
            assertFalse(((RunnableScheduledFuture<?>) inAMinute).isPeriodic());
            assertTrue(((RunnableScheduledFuture<?>) periodic).isPeriodic());
        }
    }

    // ---- shutdown ----------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void shutdownCancelsPeriodicTasksButStillRunsDelayedOneShots(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        AtomicInteger periodicRuns = new AtomicInteger();
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(periodicRuns::incrementAndGet, 0, 1, MILLISECONDS);
        ScheduledFuture<?> laterPeriodic = pool.scheduleWithFixedDelay(() -> { }, 1, 1, HOURS);
        ScheduledFuture<String> oneShot = pool.schedule(() -> "still ran", 100, MILLISECONDS);
        awaitCondition(() -> periodicRuns.get() >= 2, "periodic task running");

        pool.shutdown();

        assertTrue(pool.isShutdown());
        assertThrows(RejectedExecutionException.class, () -> pool.schedule(() -> { }, 1, SECONDS));
        assertThrows(RejectedExecutionException.class, () -> pool.scheduleAtFixedRate(() -> { }, 1, 1, SECONDS));
        assertEquals("still ran", oneShot.get(LIVENESS_SECONDS, SECONDS));
        assertTrue(pool.awaitTermination(LIVENESS_SECONDS, SECONDS), "terminates after the delayed one-shot");
        assertTrue(periodic.isCancelled(), "periodic task cancelled by shutdown");
        assertTrue(laterPeriodic.isCancelled(), "never-started periodic task cancelled by shutdown");
        int runs = periodicRuns.get();
        sleep(20);
        assertEquals(runs, periodicRuns.get(), "a periodic task ran after termination");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void shutdownNowReturnsPendingTasksThatNeverRun(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> a = pool.schedule(ran::incrementAndGet, 1, HOURS);
        ScheduledFuture<?> b = pool.schedule(() -> ran.incrementAndGet(), 2, HOURS);
        ScheduledFuture<?> c = pool.scheduleAtFixedRate(ran::incrementAndGet, 3, 1, HOURS);
        List<ScheduledFuture<?>> pending = List.of(a, b, c);

        List<Runnable> returned = pool.shutdownNow();

        assertTrue(pool.awaitTermination(LIVENESS_SECONDS, SECONDS));
        if (factory.kind() == Kind.FORK_JOIN) {
            // ForkJoinPool documents that shutdownNow() returns an empty list; it cancels instead.
            assertEquals(List.of(), returned);
        } else {
            // STPE: "the element will be identical to the returned ScheduledFuture".
            assertEquals(3, returned.size(), "returned " + returned);
            for (ScheduledFuture<?> future : pending) {
                assertTrue(returned.stream().anyMatch(r -> r == future), future + " returned");
            }
        }
        if (factory.kind() != Kind.STPE) {
            // STPE leaves the returned tasks uncancelled (running one after shutdownNow cancels it);
            // ForkJoinPool and Rota cancel them, so waiters on their futures wake up.
            for (ScheduledFuture<?> future : pending) {
                assertTrue(future.isCancelled(), future + " cancelled");
            }
        }
        returned.forEach(Runnable::run);   // after shutdownNow, running a returned task does nothing
        assertEquals(0, ran.get());
        assertThrows(RejectedExecutionException.class, () -> pool.schedule(() -> { }, 1, SECONDS));
    }

    // ---- volume ------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void tenThousandTasksWithRandomDelaysEachRunExactlyOnce(PoolFactory factory) throws Exception {
        ScheduledExecutorService pool = open(factory);
        int tasks = 10_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        AtomicInteger early = new AtomicInteger();
        CountDownLatch allRan = new CountDownLatch(tasks);
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < tasks; i++) {
            int id = i;
            long delayNanos = random.nextLong(MILLISECONDS.toNanos(50) + 1);
            long notBefore = System.nanoTime() + delayNanos;
            pool.schedule(() -> {
                if (System.nanoTime() - notBefore < 0) {
                    early.incrementAndGet();
                }
                runs.incrementAndGet(id);
                allRan.countDown();
            }, delayNanos, NANOSECONDS);
        }
        assertTrue(allRan.await(LIVENESS_SECONDS, SECONDS), allRan.getCount() + " tasks never ran");
        pool.shutdown();
        assertTrue(pool.awaitTermination(LIVENESS_SECONDS, SECONDS));
        for (int i = 0; i < tasks; i++) {
            assertEquals(1, runs.get(i), "runs of task " + i);
        }
        assertEquals(0, early.get(), "tasks ran before their delay");
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** ForkJoinPool may rethrow a copy of the task's exception with the original as its cause. */
    private static void assertCausedBy(Throwable original, ExecutionException thrown, Kind kind) {
        Throwable cause = thrown.getCause();
        if (kind != Kind.FORK_JOIN) {
            assertSame(original, cause);
            return;
        }
        assertTrue(cause != null && cause.getClass() == original.getClass(), "cause " + cause);
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t == original) {
                return;
            }
        }
        fail("the task's own exception is not in the cause chain of " + thrown);
    }

    private static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + SECONDS.toNanos(LIVENESS_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + LIVENESS_SECONDS + " s: " + what);
            }
            sleep(1);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(LIVENESS_SECONDS, SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@code RotaPool.builder().workers(2).build()}, looked up by name so that this suite compiles
     * and runs before RotaPool exists or schedules; skipped (not failed) until it does.
     */
    private static ScheduledExecutorService reflectiveRotaPool() {
        Class<?> poolClass;
        try {
            poolClass = Class.forName(ROTA_POOL_CLASS);
        } catch (ClassNotFoundException absent) {
            Assumptions.abort(ROTA_POOL_CLASS + " is not on the class path yet");
            throw new AssertionError("unreachable");
        }
        Assumptions.assumeTrue(ScheduledExecutorService.class.isAssignableFrom(poolClass),
                ROTA_POOL_CLASS + " does not implement ScheduledExecutorService yet");
        try {
            Object builder = call(null, poolClass.getMethod("builder"));
            builder = call(builder, builder.getClass().getMethod("workers", int.class), WORKERS);
            return (ScheduledExecutorService) call(builder, builder.getClass().getMethod("build"));
        } catch (NoSuchMethodException e) {
            throw new AssertionError("RotaPool lacks builder().workers(int).build()", e);
        }
    }

    private static Object call(Object target, Method method, Object... arguments) {
        try {
            method.setAccessible(true);   // the builder may be a non-public nested class
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw new AssertionError(method.getName() + " threw", e.getCause());
        } catch (IllegalAccessException e) {
            throw new AssertionError("cannot call " + method, e);
        }
    }
}
