package dev.rota.schedule;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * DelayScheduler against a plain two-thread sink. Time is asserted only as lower bounds ("not
 * before its delay") and liveness ("within 30 s"); both hold however slow the machine is.
 */
class DelaySchedulerTest {

    private static final long LIVENESS_SECONDS = 30;

    private ExecutorSink sink;
    private DelayScheduler scheduler;

    @BeforeEach
    void setUp() {
        sink = new ExecutorSink();
        scheduler = new DelayScheduler(sink, "test-delay-scheduler");
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        scheduler.shutdownNow();
        sink.stop();
    }

    // ---- one-shot tasks ----------------------------------------------------------------------

    @Test
    void shouldRunNoEarlierThanItsDelay() throws Exception {
        AtomicLong ranAt = new AtomicLong();
        long start = System.nanoTime();
        ScheduledFuture<?> future = scheduler.schedule(() -> ranAt.set(System.nanoTime()), 50, MILLISECONDS);
        assertNull(future.get(LIVENESS_SECONDS, SECONDS));
        assertTrue(ranAt.get() - start >= MILLISECONDS.toNanos(50), "ran before its delay elapsed");
        assertTrue(future.isDone());
        assertFalse(future.isCancelled());
    }

    @Test
    void shouldReturnTheCallablesValue() throws Exception {
        ScheduledFuture<String> future = scheduler.schedule(() -> "done", 10, MILLISECONDS);
        assertEquals("done", future.get(LIVENESS_SECONDS, SECONDS));
    }

    @Test
    void shouldRunZeroAndNegativeDelaysAsSoonAsPossible() throws Exception {
        List<ScheduledFuture<?>> futures = List.of(
                scheduler.schedule(() -> { }, 0, SECONDS),
                scheduler.schedule(() -> { }, -1, DAYS),
                scheduler.schedule(() -> { }, Long.MIN_VALUE, NANOSECONDS),
                scheduler.scheduleAtFixedRate(() -> { }, -5, 1, HOURS));
        for (int i = 0; i < 3; i++) {
            assertNull(futures.get(i).get(LIVENESS_SECONDS, SECONDS));
        }
        awaitCondition(() -> sink.submitted.get() == 4, "the periodic task with a negative delay ran");
    }

    @Test
    void shouldWakeTheTimerForATaskDueBeforeTheOneItSleepsTowards() throws Exception {
        scheduler.schedule(() -> { }, 1, HOURS);
        Thread timer = scheduler.timerThread();
        awaitCondition(() -> timer.getState() == Thread.State.TIMED_WAITING, "timer sleeps towards the 1 h task");
        assertEquals("early", scheduler.schedule(() -> "early", 10, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS));
    }

    @Test
    void shouldClampHugeDelaysInsteadOfOverflowing() throws Exception {
        ScheduledFuture<?> far = scheduler.schedule(() -> { }, Long.MAX_VALUE, DAYS);
        assertTrue(far.getDelay(DAYS) > 365L * 100, "about 146 years, not negative");
        assertEquals("soon", scheduler.schedule(() -> "soon", 1, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS));
        assertFalse(far.isDone());
    }

    // ---- periodic tasks ----------------------------------------------------------------------

    @Test
    void shouldRunAtFixedRateWithoutOverlapAndNoEarlierThanEachPeriod() throws Exception {
        int runs = 10;
        long periodNanos = MILLISECONDS.toNanos(2);
        long[] starts = new long[runs];
        AtomicInteger count = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(runs);
        long scheduledAt = System.nanoTime();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(() -> {
            if (running.incrementAndGet() > 1) {
                overlapped.set(true);
            }
            int k = count.getAndIncrement();
            if (k < runs) {
                starts[k] = System.nanoTime();
            }
            sleepQuietly(3);   // longer than the period: the next run is due before this one ends
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

    @Test
    void shouldWaitTheFixedDelayAfterEachRunEnds() throws Exception {
        int runs = 6;
        long delayNanos = MILLISECONDS.toNanos(5);
        long[] starts = new long[runs];
        long[] ends = new long[runs];
        AtomicInteger count = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(runs);
        ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(() -> {
            int k = count.getAndIncrement();
            if (k < runs) {
                starts[k] = System.nanoTime();
                sleepQuietly(2);
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

    @Test
    void shouldStopAPeriodicTaskThatThrowsAndReportTheCause() throws Exception {
        AtomicInteger count = new AtomicInteger();
        IllegalStateException boom = new IllegalStateException("third run fails");
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(() -> {
            if (count.incrementAndGet() == 3) {
                throw boom;
            }
        }, 0, 1, MILLISECONDS);
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> future.get(LIVENESS_SECONDS, SECONDS));
        assertSame(boom, failure.getCause());
        assertTrue(future.isDone());
        assertFalse(future.isCancelled());
        awaitCondition(() -> scheduler.pendingCount() == 0, "the failed task left the scheduler");
        assertEquals(3, count.get());
    }

    @Test
    void shouldBlockGetOfAPeriodicTaskUntilItIsCancelled() throws Exception {
        AtomicInteger count = new AtomicInteger();
        ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(count::incrementAndGet, 0, 1, MILLISECONDS);
        awaitCondition(() -> count.get() >= 3, "ran 3 times");
        assertThrows(TimeoutException.class, () -> future.get(20, MILLISECONDS));
        assertTrue(future.cancel(false));
        assertThrows(CancellationException.class, future::get);
        assertTrue(future.isCancelled());
        assertTrue(future.isDone());
        awaitCondition(() -> scheduler.pendingCount() == 0, "the cancelled task left the scheduler");
    }

    @Test
    void shouldNotRunAPeriodicTaskAgainAfterItCancelledItself() throws Exception {
        AtomicInteger count = new AtomicInteger();
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        CountDownLatch published = new CountDownLatch(1);
        self.set(scheduler.scheduleAtFixedRate(() -> {
            awaitQuietly(published);
            if (count.incrementAndGet() == 3) {
                self.get().cancel(false);
            }
        }, 0, 1, MILLISECONDS));
        published.countDown();
        assertThrows(CancellationException.class, () -> self.get().get(LIVENESS_SECONDS, SECONDS));
        // Runs never overlap, so the run that cancelled was the only one in progress: a later
        // one-shot due after many more periods finds the count unchanged.
        scheduler.schedule(() -> { }, 50, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS);
        assertEquals(3, count.get());
        awaitCondition(() -> scheduler.pendingCount() == 0, "scheduler drained");
    }

    @Test
    void shouldRemoveAPeriodicTaskCancelledBetweenRuns() throws Exception {
        AtomicInteger count = new AtomicInteger();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(count::incrementAndGet, 0, 1, HOURS);
        awaitCondition(() -> count.get() == 1 && future.getDelay(MINUTES) > 30, "first run done, next in 1 h");
        assertTrue(future.cancel(false));
        awaitCondition(() -> scheduler.pendingCount() == 0, "the cancelled task left the heap");
        assertEquals(1, count.get());
    }

    /**
     * run() is public, since a scheduled future is a Runnable; a user may call it. A periodic task
     * runs only when the timer has handed it over, once per hand-off: a run() of one that waits for
     * its deadline in the heap, or whose hand-off was already run, does nothing. Run, it would move
     * its deadline while in the heap (which breaks the heap's order) and then enter the heap again.
     */
    @Test
    void shouldIgnoreARunOfAPeriodicTaskThatWasNotHandedOver() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        RunnableScheduledFuture<?> waiting =                 // the head, with two tasks due after it
                (RunnableScheduledFuture<?>) scheduler.scheduleAtFixedRate(runs::incrementAndGet, 1, 1, HOURS);
        scheduler.schedule(() -> { }, 90, MINUTES);
        scheduler.schedule(() -> { }, 100, MINUTES);
        long delayBefore = waiting.getDelay(NANOSECONDS);

        try {
            waiting.run();
        } catch (RuntimeException e) {
            fail("a run() of a periodic task waiting in the heap threw; heap: " + scheduler.heapInvariantViolation(), e);
        }

        assertEquals(0, runs.get(), "a run() of a periodic task waiting in the heap ran it");
        assertTrue(waiting.getDelay(NANOSECONDS) <= delayBefore, "its deadline moved while in the heap");
        assertNull(scheduler.heapInvariantViolation());
        assertEquals(3, scheduler.pendingCount());
        assertFalse(waiting.isDone());

        HoldingSink holding = new HoldingSink();
        DelayScheduler own = new DelayScheduler(holding, "test-run-twice");
        try {
            AtomicInteger ownRuns = new AtomicInteger();
            own.scheduleAtFixedRate(ownRuns::incrementAndGet, 0, 1, HOURS);
            Runnable handed = holding.awaitTask();
            handed.run();                                   // the hand-off's run: back in the heap for 1 h
            assertEquals(1, ownRuns.get());
            handed.run();                                   // the same hand-off run again
            assertEquals(1, ownRuns.get(), "a second run() of one hand-off ran the task again");
            assertNull(own.heapInvariantViolation());
            awaitCondition(() -> own.pendingCount() == 1, "the timer done with its hand-off, the task in the heap once");
        } finally {
            own.shutdownNow();
        }
    }

    /**
     * After a normal run a periodic task goes back into the heap, which may have to grow for it and
     * find no memory. The task then has no next run to wait for: it ends, as one whose run threw
     * does, and its future reports why, rather than be neither in the heap nor done.
     */
    @Test
    void shouldEndAPeriodicTaskThatCannotReEnterTheHeapWithTheFailure() throws Exception {
        AtomicBoolean outOfMemory = new AtomicBoolean();
        OutOfMemoryError noRoom = new OutOfMemoryError("injected: the heap cannot grow");
        HoldingSink holding = new HoldingSink();
        DelayScheduler own = new DelayScheduler(holding, "test-heap-full", Thread.ofPlatform().daemon().factory(),
                length -> {
                    if (outOfMemory.get()) {
                        throw noRoom;
                    }
                    return new DeadlineHeap.Node[length];
                });
        try {
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> periodic = own.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, HOURS);
            Runnable handed = holding.awaitTask();
            for (int i = 0; i < DeadlineHeap.INITIAL_CAPACITY; i++) {
                own.schedule(() -> { }, 1, HOURS);      // the heap's array is full
            }
            outOfMemory.set(true);

            OutOfMemoryError escaped = null;
            try {
                handed.run();
            } catch (OutOfMemoryError e) {
                escaped = e;
            }

            assertEquals(1, runs.get());
            assertTrue(periodic.isDone(), "a periodic task that could not re-enter the heap is neither there nor done"
                    + (escaped != null ? "; its run threw " + escaped : ""));
            ExecutionException failure = assertThrows(ExecutionException.class, () -> periodic.get(0, SECONDS));
            assertSame(noRoom, failure.getCause());
            awaitCondition(() -> own.pendingCount() == DeadlineHeap.INITIAL_CAPACITY,
                    "the timer done with its hand-off, the heap as it was");
            assertNull(own.heapInvariantViolation());
        } finally {
            outOfMemory.set(false);
            own.shutdownNow();
        }
    }

    // ---- cancellation ------------------------------------------------------------------------

    @Test
    void shouldNeverRunACancelledPendingTask() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> first = scheduler.schedule(ran::incrementAndGet, 100, MILLISECONDS);
        ScheduledFuture<?> second = scheduler.schedule(ran::incrementAndGet, 100, MILLISECONDS);
        assertTrue(first.cancel(false));
        assertTrue(second.cancel(true));
        assertFalse(first.cancel(false), "a second cancel reports false");
        scheduler.schedule(() -> { }, 200, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS);
        assertEquals(0, ran.get());
        assertTrue(first.isCancelled() && first.isDone());
        assertThrows(CancellationException.class, second::get);
    }

    @Test
    void shouldLetACancelledHeadBeCollectedLongBeforeItsDeadline() throws Exception {
        WeakReference<Object> payload = scheduleHeadThenCancel();
        long deadline = System.nanoTime() + SECONDS.toNanos(LIVENESS_SECONDS);
        while (payload.get() != null) {
            assertTrue(System.nanoTime() < deadline, "a cancelled task due in an hour stayed reachable");
            System.gc();
            Thread.sleep(10);
        }
    }

    /** Schedules a task due in an hour, lets the timer wait towards it, cancels it; keeps nothing. */
    private WeakReference<Object> scheduleHeadThenCancel() throws InterruptedException {
        Object captured = new byte[1 << 20];
        ScheduledFuture<?> future = scheduler.schedule(() -> captured.hashCode(), 1, HOURS);
        Thread.sleep(50);   // the timer is (most likely) waiting towards this task now
        assertTrue(future.cancel(false));
        return new WeakReference<>(captured);
    }

    @Test
    void shouldForgetACancelledTaskAtOnce() {
        ScheduledFuture<?> future = scheduler.schedule(() -> { }, 1, HOURS);
        assertEquals(1, scheduler.pendingCount());
        assertTrue(future.cancel(false));
        assertEquals(0, scheduler.pendingCount(), "removed from the heap by cancel itself");
    }

    /**
     * run() of a one-shot task before its deadline (a user's, as FutureTask's run() allows) completes
     * it; the task then leaves the heap at once, as a cancelled one does: it holds nothing for the
     * rest of its delay, is no longer pending, and does not keep a shut-down scheduler from idle.
     */
    @Test
    void shouldTakeAOneShotRunBeforeItsDeadlineOutOfTheHeap() {
        AtomicInteger runs = new AtomicInteger();
        RunnableScheduledFuture<?> early =
                (RunnableScheduledFuture<?>) scheduler.schedule(runs::incrementAndGet, 1, HOURS);
        ScheduledFuture<?> later = scheduler.schedule(() -> { }, 2, HOURS);

        early.run();

        assertEquals(1, runs.get());
        assertTrue(early.isDone() && !early.isCancelled());
        assertEquals(1, scheduler.pendingCount(), "a one-shot run before its deadline still waits in the heap");
        assertNull(scheduler.heapInvariantViolation());
        scheduler.shutdown();
        assertTrue(later.cancel(false));
        assertEquals(1, sink.idleCalls.get(), "idle once the other task was cancelled");
    }

    @Test
    void shouldLetAOneShotRunBeforeItsDeadlineBeCollected() throws Exception {
        WeakReference<Object> payload = scheduleThenRunEarly();
        long deadline = System.nanoTime() + SECONDS.toNanos(LIVENESS_SECONDS);
        while (payload.get() != null) {
            assertTrue(System.nanoTime() < deadline, "a one-shot task due in an hour and run early stayed reachable");
            System.gc();
            Thread.sleep(10);
        }
    }

    /**
     * Schedules a Runnable due in an hour and runs it at once; keeps nothing. A Runnable: its task
     * keeps it after the run (a Callable's run drops it, as FutureTask's does).
     */
    private WeakReference<Object> scheduleThenRunEarly() {
        Object captured = new byte[1 << 20];
        Runnable command = () -> captured.hashCode();
        ScheduledFuture<?> future = scheduler.schedule(command, 1, HOURS);
        ((Runnable) future).run();
        assertTrue(future.isDone());
        return new WeakReference<>(captured);
    }

    @Test
    void shouldInterruptARunningTaskOnCancelTrue() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        ScheduledFuture<?> future = scheduler.schedule(() -> {
            started.countDown();
            try {
                Thread.sleep(SECONDS.toMillis(LIVENESS_SECONDS * 2));
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        }, 0, SECONDS);
        assertTrue(started.await(LIVENESS_SECONDS, SECONDS));
        assertTrue(future.cancel(true));
        assertTrue(interrupted.await(LIVENESS_SECONDS, SECONDS), "the running task was not interrupted");
    }

    @Test
    void shouldLeaveNothingBehindAfter100000ScheduledThenCancelledTasks() {
        AtomicInteger ran = new AtomicInteger();
        SplittableRandom random = new SplittableRandom(42);
        List<ScheduledFuture<?>> futures = new ArrayList<>(100_000);
        for (int i = 0; i < 100_000; i++) {
            long delayMillis = HOURS.toMillis(1) + random.nextInt(3_600_000);   // none comes due here
            futures.add(scheduler.schedule(ran::incrementAndGet, delayMillis, MILLISECONDS));
        }
        assertEquals(100_000, scheduler.pendingCount());
        assertTrue(scheduler.heapCapacity() >= 100_000);
        for (ScheduledFuture<?> future : futures) {
            assertTrue(future.cancel(false));
        }
        assertEquals(0, scheduler.pendingCount());
        assertEquals(DeadlineHeap.INITIAL_CAPACITY, scheduler.heapCapacity(), "the heap's array shrank back");
        assertEquals(0, ran.get());
    }

    // ---- arguments ---------------------------------------------------------------------------

    @Test
    void shouldRejectNonPositivePeriodsNamingTheValue() {
        IllegalArgumentException zeroRate = assertThrows(IllegalArgumentException.class,
                () -> scheduler.scheduleAtFixedRate(() -> { }, 0, 0, SECONDS));
        assertTrue(zeroRate.getMessage().contains("period must be positive: 0 SECONDS"), zeroRate.getMessage());
        IllegalArgumentException negativeDelay = assertThrows(IllegalArgumentException.class,
                () -> scheduler.scheduleWithFixedDelay(() -> { }, 0, -5, MILLISECONDS));
        assertTrue(negativeDelay.getMessage().contains("delay must be positive: -5 MILLISECONDS"),
                negativeDelay.getMessage());
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void shouldRejectNullCommandOrUnitNamingTheArgument() {
        Runnable command = () -> { };
        assertNpeNaming("command", () -> scheduler.schedule((Runnable) null, 1, SECONDS));
        assertNpeNaming("callable", () -> scheduler.schedule((java.util.concurrent.Callable<?>) null, 1, SECONDS));
        assertNpeNaming("unit", () -> scheduler.schedule(command, 1, null));
        assertNpeNaming("unit", () -> scheduler.schedule(() -> 1, 1, null));
        assertNpeNaming("command", () -> scheduler.scheduleAtFixedRate(null, 1, 1, SECONDS));
        assertNpeNaming("unit", () -> scheduler.scheduleAtFixedRate(command, 1, 1, null));
        assertNpeNaming("command", () -> scheduler.scheduleWithFixedDelay(null, 1, 1, SECONDS));
        assertNpeNaming("unit", () -> scheduler.scheduleWithFixedDelay(command, 1, 1, null));
        assertEquals(0, scheduler.pendingCount());
    }

    @Test
    void shouldReportDelayOrderAndPeriodicity() {
        ScheduledFuture<?> inAMinute = scheduler.schedule(() -> { }, 60, SECONDS);
        ScheduledFuture<?> inTenSeconds = scheduler.schedule(() -> { }, 10, SECONDS);
        ScheduledFuture<?> periodic = scheduler.scheduleWithFixedDelay(() -> { }, 1, 1, HOURS);
        long delay = inAMinute.getDelay(MILLISECONDS);
        assertTrue(delay > 0 && delay <= 60_000, "delay " + delay);
        assertTrue(inTenSeconds.compareTo(inAMinute) < 0);
        assertTrue(inAMinute.compareTo(inTenSeconds) > 0);
        assertEquals(0, inAMinute.compareTo(inAMinute));
        assertTrue(inTenSeconds.compareTo(fixedDelay(30, SECONDS)) < 0, "compares with a foreign Delayed");
        assertFalse(((RunnableScheduledFuture<?>) inAMinute).isPeriodic());
        assertTrue(((RunnableScheduledFuture<?>) periodic).isPeriodic());
    }

    /**
     * Against a foreign Delayed the order comes from the two delays, which may be anything a long
     * holds (a JDK task scheduled with Long.MAX_VALUE, one long overdue): their difference
     * overflows, so it must be compared, not subtracted.
     */
    @Test
    void shouldCompareWithAForeignDelayedWhoseDelayIsExtreme() {
        ScheduledFuture<?> inAnHour = scheduler.schedule(() -> { }, 1, HOURS);
        ScheduledFuture<?> alreadyDue = scheduler.schedule(() -> { }, -1, HOURS);
        Delayed farPast = constantDelay(Long.MIN_VALUE);
        Delayed farFuture = constantDelay(Long.MAX_VALUE);
        assertTrue(inAnHour.compareTo(farPast) > 0, "an hour from now sorts after a delay of Long.MIN_VALUE");
        assertTrue(inAnHour.compareTo(farFuture) < 0, "an hour from now sorts before a delay of Long.MAX_VALUE");
        awaitCondition(() -> alreadyDue.getDelay(NANOSECONDS) < -1, "a due task's delay below -1 ns");
        assertTrue(alreadyDue.compareTo(farFuture) < 0, "an overdue task sorts before a delay of Long.MAX_VALUE");
    }

    // ---- shutdown ----------------------------------------------------------------------------

    @Test
    void shouldCancelPeriodicTasksOnShutdownButStillRunDelayedOneShots() throws Exception {
        ScheduledFuture<?> periodic = scheduler.scheduleAtFixedRate(() -> { }, 1, 1, HOURS);
        ScheduledFuture<String> oneShot = scheduler.schedule(() -> "still ran", 50, MILLISECONDS);
        scheduler.shutdown();
        assertTrue(periodic.isCancelled(), "periodic task cancelled by shutdown");
        assertTrue(scheduler.isShutdown());
        assertThrows(RejectedExecutionException.class, () -> scheduler.schedule(() -> { }, 1, SECONDS));
        assertThrows(RejectedExecutionException.class, () -> scheduler.scheduleAtFixedRate(() -> { }, 1, 1, SECONDS));
        assertEquals("still ran", oneShot.get(LIVENESS_SECONDS, SECONDS));
        assertTrue(sink.idle.await(LIVENESS_SECONDS, SECONDS), "idle reported after the last task");
        assertTrue(scheduler.isIdle());
        Thread timer = scheduler.timerThread();
        timer.join(SECONDS.toMillis(LIVENESS_SECONDS));
        assertFalse(timer.isAlive(), "timer thread exits once shut down and idle");
        scheduler.shutdown();
        scheduler.shutdownNow();
        assertEquals(1, sink.idleCalls.get(), "idle is reported exactly once");
    }

    @Test
    void shouldNotRepeatAPeriodicRunThatWasInProgressAtShutdown() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger count = new AtomicInteger();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(() -> {
            count.incrementAndGet();
            running.countDown();
            awaitQuietly(release);
        }, 0, 1, MILLISECONDS);
        assertTrue(running.await(LIVENESS_SECONDS, SECONDS));
        scheduler.shutdown();
        release.countDown();
        assertThrows(CancellationException.class, () -> future.get(LIVENESS_SECONDS, SECONDS));
        assertEquals(1, count.get());
        assertTrue(sink.idle.await(LIVENESS_SECONDS, SECONDS));
        assertEquals(0, scheduler.pendingCount());
    }

    /**
     * A periodic task that came due and was handed to the sink, which has not run it yet (every
     * worker busy), is the pool's to run but still the scheduler's to end: shutdown() cancels it
     * with those of the heap, and the run the sink starts later does nothing.
     */
    @Test
    void shouldCancelOnShutdownAPeriodicTaskHandedToTheSinkButNotYetRun() throws Exception {
        HoldingSink holding = new HoldingSink();
        DelayScheduler own = new DelayScheduler(holding, "test-held-periodic");
        try {
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> periodic = own.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, HOURS);
            Runnable handed = holding.awaitTask();

            own.shutdown();

            assertTrue(periodic.isCancelled(), "a periodic task handed to the sink survived shutdown()");
            assertTrue(holding.idle.await(LIVENESS_SECONDS, SECONDS), "idle reported");
            handed.run();
            assertEquals(0, runs.get(), "the sink's run of a periodic task cancelled by shutdown() ran it");
        } finally {
            own.shutdownNow();
        }
    }

    /**
     * A burst of periodic tasks due at once, handed to a sink that holds them (every worker busy),
     * grows the hand-off set; once their runs have all claimed it, the set is made anew, so that its
     * table does not keep the burst's size for the pool's life. Each run still runs its task once.
     */
    @Test
    void shouldMakeTheHandOffSetAnewOnceABurstHasRun() throws Exception {
        HoldingSink holding = new HoldingSink();
        DelayScheduler own = new DelayScheduler(holding, "test-hand-off-burst");
        try {
            int burst = 4 * DelayScheduler.HAND_OFF_SHRINK_PEAK;
            AtomicInteger runs = new AtomicInteger();
            for (int i = 0; i < burst; i++) {
                own.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, HOURS);
            }
            List<Runnable> handed = new ArrayList<>();
            for (int i = 0; i < burst; i++) {
                handed.add(holding.awaitTask());
            }
            assertEquals(burst, own.handedOverCount());
            assertEquals(burst, own.handedOverPeak());
            Object grown = own.handOffSet();

            for (int i = 0; i < burst - 1; i++) {
                handed.get(i).run();
            }
            assertEquals(burst, own.handedOverPeak(), "not made anew while a hand-off is left");
            handed.get(burst - 1).run();

            assertEquals(0, own.handedOverCount());
            assertEquals(0, own.handedOverPeak(), "made anew once the last run claimed its hand-off");
            assertNotSame(grown, own.handOffSet(), "made anew once the last run claimed its hand-off");
            assertEquals(burst, runs.get());
        } finally {
            own.shutdownNow();
        }
    }

    @Test
    void shouldReportIdleAtOnceWhenShutDownWithNothingPending() {
        scheduler.shutdown();
        assertEquals(1, sink.idleCalls.get());
        assertNull(scheduler.timerThread(), "no timer thread before the first schedule call");
    }

    @Test
    void shouldReportIdleWhenTheLastPendingTaskIsCancelledAfterShutdown() {
        ScheduledFuture<?> oneShot = scheduler.schedule(() -> { }, 1, HOURS);
        scheduler.shutdown();
        assertEquals(0, sink.idleCalls.get());
        assertTrue(oneShot.cancel(false));
        assertEquals(1, sink.idleCalls.get());
        assertTrue(scheduler.isIdle());
    }

    /**
     * shutdown() takes the periodic tasks out of the heap under the lock and cancels them after it,
     * since cancelling wakes their waiters. Idle must wait for those cancellations: it lets the pool
     * terminate, and a periodic future still pending then would break "terminated: every
     * delayed task is done". Here the last one-shot task is cancelled, which empties the heap,
     * while shutdown() is still cancelling: the first periodic task it took (the heap's head, so the
     * first in its list) is cancelled and 99,999 are still to come.
     */
    @Test
    void shouldReportIdleOnlyOnceShutdownHasCancelledEveryPeriodicTask() throws Exception {
        int count = 100_000;
        List<ScheduledFuture<?>> periodic = new ArrayList<>(count);
        AtomicLong pendingAtIdle = new AtomicLong(-1);
        CountDownLatch idle = new CountDownLatch(1);
        DelayScheduler own = new DelayScheduler(new DueTaskSink() {
            @Override
            public boolean submitDue(Runnable task) {
                return false;                            // nothing comes due within the test
            }

            @Override
            public void schedulerIdle() {
                pendingAtIdle.set(periodic.stream().filter(f -> !f.isDone()).count());
                idle.countDown();
            }
        }, "test-idle-after-cancels");
        try {
            for (int i = 0; i < count; i++) {           // one thread, one delay: increasing deadlines
                periodic.add(own.scheduleAtFixedRate(() -> { }, 1, 1, HOURS));
            }
            ScheduledFuture<?> lastOneShot = own.schedule(() -> { }, 2, HOURS);
            Thread shutter = new Thread(own::shutdown, "shutter");
            shutter.start();
            spinUntil(() -> periodic.get(0).isCancelled(), "shutdown() cancelling the periodic tasks");
            assertTrue(lastOneShot.cancel(false));
            shutter.join(SECONDS.toMillis(LIVENESS_SECONDS));
            assertTrue(idle.await(LIVENESS_SECONDS, SECONDS), "idle reported");
            assertEquals(0, pendingAtIdle.get(), "periodic tasks shutdown() had not yet cancelled when idle was reported");
            Thread timer = own.timerThread();
            timer.join(SECONDS.toMillis(LIVENESS_SECONDS));
            assertFalse(timer.isAlive(), "the timer, shut down with an empty heap, exits before the hour it slept towards");
        } finally {
            own.shutdownNow();
        }
    }

    /**
     * Every shutdownNow() returns with every delayed task cancelled, not only the first: the pool
     * stops its queues after it, and may then report termination. A second caller, arriving while
     * the first is still cancelling the tasks it took from the heap, waits for them.
     */
    @Test
    void everyShutdownNowReturnsWithEveryPendingTaskCancelled() throws Exception {
        int count = 100_000;
        List<ScheduledFuture<?>> oneShots = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {               // one thread, one delay: increasing deadlines
            oneShots.add(scheduler.schedule(() -> { }, 1, HOURS));
        }
        AtomicReference<List<Runnable>> firstResult = new AtomicReference<>();
        Thread first = new Thread(() -> firstResult.set(scheduler.shutdownNow()), "first-shutdownNow");
        first.start();
        // The first caller cancels in deadline order, so the earliest task is cancelled first.
        spinUntil(() -> oneShots.get(0).isCancelled(), "the first shutdownNow() cancelling");

        assertEquals(List.of(), scheduler.shutdownNow(), "the second caller returns nothing");

        assertEquals(0, oneShots.stream().filter(f -> !f.isCancelled()).count(),
                "tasks not yet cancelled when the second shutdownNow() returned");
        first.join(SECONDS.toMillis(LIVENESS_SECONDS));
        assertEquals(count, firstResult.get().size());
    }

    /**
     * As above for shutdown(): every caller returns with every periodic task cancelled, not only the
     * first, as ScheduledThreadPoolExecutor's shutdown() does (its callers take one lock, and the
     * first cancels under it). A second caller, arriving while the first is still cancelling the
     * periodic tasks it took from the heap, waits for them: after its shutdown() a periodic future
     * that is not running reports cancelled, and get() on it throws at once.
     */
    @Test
    void everyShutdownReturnsWithEveryPeriodicTaskCancelled() throws Exception {
        int count = 100_000;
        List<ScheduledFuture<?>> periodic = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {               // one thread, one delay: increasing deadlines
            periodic.add(scheduler.scheduleAtFixedRate(() -> { }, 1, 1, HOURS));
        }
        Thread first = new Thread(scheduler::shutdown, "first-shutdown");
        first.start();
        // The first caller cancels in the heap's order, which is here the order of scheduling.
        spinUntil(() -> periodic.get(0).isCancelled(), "the first shutdown() cancelling");

        scheduler.shutdown();

        long notCancelled = periodic.stream().filter(f -> !f.isCancelled()).count();
        first.join(SECONDS.toMillis(LIVENESS_SECONDS));
        assertEquals(0, notCancelled, "periodic tasks not yet cancelled when the second shutdown() returned");
    }

    @Test
    void shouldReturnNeverStartedTasksExactlyOnceOnShutdownNow() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> a = scheduler.schedule(ran::incrementAndGet, 1, HOURS);
        ScheduledFuture<Integer> b = scheduler.schedule(ran::incrementAndGet, 2, HOURS);
        ScheduledFuture<?> c = scheduler.scheduleAtFixedRate(ran::incrementAndGet, 3, 1, HOURS);
        AtomicInteger startedRuns = new AtomicInteger();
        ScheduledFuture<?> started = scheduler.scheduleWithFixedDelay(startedRuns::incrementAndGet, 0, 1, HOURS);
        awaitCondition(() -> startedRuns.get() == 1 && started.getDelay(MINUTES) > 30, "first run done");

        List<Runnable> pending = scheduler.shutdownNow();

        assertEquals(List.of(a, b, c), pending, "never-started tasks, in deadline order, as the same futures");
        for (ScheduledFuture<?> future : List.of(a, b, c, started)) {
            assertTrue(future.isCancelled(), future + " cancelled");
        }
        assertEquals(List.of(), scheduler.shutdownNow(), "returned once only");
        pending.forEach(Runnable::run);
        assertEquals(0, ran.get(), "a returned task, already cancelled, does not run");
        assertEquals(1, sink.idleCalls.get());
        assertThrows(RejectedExecutionException.class, () -> scheduler.schedule(() -> { }, 1, SECONDS));
        Thread timer = scheduler.timerThread();
        timer.join(SECONDS.toMillis(LIVENESS_SECONDS));
        assertFalse(timer.isAlive());
    }

    /**
     * A one-shot command the sink says ran through another call (DueTaskSink.claimUnstartedCommand
     * TAKEN_ELSEWHERE: a pool's RotaTask its user invoked) is not returned by shutdownNow(), whether
     * taken from the heap or drained by the pool (settleDrained): its future completes as its own
     * run would have, not cancelled. A plain Runnable that never ran is returned.
     */
    @Test
    void aCommandThatRanElsewhereIsNotReturnedByShutdownNow() throws Exception {
        Runnable ranElsewhere = () -> { };
        Runnable queuedRanElsewhere = () -> { };
        ExecutorSink claimingSink = new ExecutorSink();
        DelayScheduler claiming = new DelayScheduler(new DueTaskSink() {
            @Override
            public boolean submitDue(Runnable task) {
                return claimingSink.submitDue(task);
            }

            @Override
            public void schedulerIdle() {
                claimingSink.schedulerIdle();
            }

            @Override
            public CommandClaim claimUnstartedCommand(Runnable command) {
                return command == ranElsewhere || command == queuedRanElsewhere
                        ? CommandClaim.TAKEN_ELSEWHERE : CommandClaim.BY_ITS_FUTURE;
            }
        }, "claiming-timer");
        try {
            ScheduledFuture<?> elsewhere = claiming.schedule(ranElsewhere, 1, HOURS);
            ScheduledFuture<?> queued = claiming.schedule(queuedRanElsewhere, 2, HOURS);
            ScheduledFuture<?> never = claiming.schedule(() -> { }, 3, HOURS);

            assertEquals(List.of(never), claiming.shutdownNow(), "only the task that never ran anywhere");
            assertNull(elsewhere.get(LIVENESS_SECONDS, SECONDS), "completes as its own run would have");
            assertTrue(never.isCancelled());
            // As a pool's drain of its queues settles one it holds: queued is done already, so it
            // stays as it was, and is not returned again.
            assertFalse(claiming.settleDrained((Runnable) queued), "settled by the heap's shutdownNow already");
            assertFalse(queued.isCancelled(), queued.toString());
            IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                    () -> claiming.settleDrained((Runnable) scheduler.schedule(() -> { }, 1, HOURS)));
            assertTrue(foreign.getMessage().contains("claiming-timer"), foreign.getMessage());
        } finally {
            claiming.shutdownNow();
            claimingSink.stop();
        }
    }

    /**
     * Tasks of two schedulers compared with each other (in a user's own queue) are ordered even at
     * equal deadlines: their sequence numbers, the tie-breaker, come from one count, so compareTo is
     * 0 only for a task and itself.
     */
    @Test
    void tasksOfTwoSchedulersNeverShareASequenceNumber() throws InterruptedException {
        ExecutorSink otherSink = new ExecutorSink();
        DelayScheduler other = new DelayScheduler(otherSink, "other-timer");
        try {
            ScheduledTask<?> mine = (ScheduledTask<?>) scheduler.schedule(() -> { }, 1, HOURS);
            ScheduledTask<?> theirs = (ScheduledTask<?>) other.schedule(() -> { }, 1, HOURS);
            assertNotEquals(mine.sequence(), theirs.sequence());
        } finally {
            other.shutdownNow();
            otherSink.stop();
        }
    }

    // ---- the sink ----------------------------------------------------------------------------

    @Test
    void shouldCancelADueTaskThatTheSinkRefuses() {
        sink.mode = ExecutorSink.Mode.REFUSE;
        ScheduledFuture<?> oneShot = scheduler.schedule(() -> { }, 0, SECONDS);
        ScheduledFuture<?> periodic = scheduler.scheduleAtFixedRate(() -> { }, 0, 1, SECONDS);
        assertThrows(CancellationException.class, () -> oneShot.get(LIVENESS_SECONDS, SECONDS));
        assertThrows(CancellationException.class, () -> periodic.get(LIVENESS_SECONDS, SECONDS));
        awaitCondition(() -> scheduler.pendingCount() == 0, "refused tasks left the scheduler");
    }

    /** A sink that throws on a hand-off: the task fails with what it threw (DueTaskSink), and the timer goes on. */
    @Test
    void shouldFailADueTaskWithWhatTheSinkThrewAndKeepGoing() throws Exception {
        sink.mode = ExecutorSink.Mode.THROW;
        ScheduledFuture<?> refused = scheduler.schedule(() -> { }, 0, SECONDS);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> refused.get(LIVENESS_SECONDS, SECONDS));
        assertEquals("sink broken on purpose", failed.getCause().getMessage());
        sink.mode = ExecutorSink.Mode.ACCEPT;
        assertEquals("after", scheduler.schedule(() -> "after", 0, SECONDS).get(LIVENESS_SECONDS, SECONDS));
    }

    // ---- the timer thread --------------------------------------------------------------------

    @Test
    void shouldStartOneNamedDaemonTimerLazily() {
        assertNull(scheduler.timerThread());
        scheduler.schedule(() -> { }, 1, HOURS);
        Thread timer = scheduler.timerThread();
        assertTrue(timer.isDaemon());
        assertEquals("test-delay-scheduler", timer.getName());
        scheduler.schedule(() -> { }, 2, HOURS);
        scheduler.scheduleAtFixedRate(() -> { }, 3, 1, HOURS);
        assertSame(timer, scheduler.timerThread(), "one timer thread, not one per task");
    }

    @Test
    void shouldNotSpinWhileNothingIsDue() throws Exception {
        ScheduledFuture<?> future = scheduler.schedule(() -> { }, 1, HOURS);
        Thread timer = scheduler.timerThread();
        awaitCondition(() -> timer.getState() == Thread.State.TIMED_WAITING, "timer waits for the 1 h task");
        assertAtMostTwoWakeupsOver(300);

        future.cancel(false);   // empty heap: an untimed wait
        scheduler.schedule(() -> { }, 0, SECONDS).get(LIVENESS_SECONDS, SECONDS);
        awaitCondition(() -> timer.getState() == Thread.State.WAITING, "timer waits with nothing to do");
        assertAtMostTwoWakeupsOver(300);
    }

    /** A spinning timer would wake thousands of times; a parked one wakes only spuriously, rarely. */
    private void assertAtMostTwoWakeupsOver(long millis) throws InterruptedException {
        long before = scheduler.timerWakeups();
        Thread.sleep(millis);
        long wakeups = scheduler.timerWakeups() - before;
        assertTrue(wakeups <= 2, "timer woke " + wakeups + " times with nothing due");
    }

    // ---- volume ------------------------------------------------------------------------------

    @Test
    void shouldRun10000TasksWithRandomDelaysExactlyOnce() throws Exception {
        int tasks = 10_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        AtomicInteger early = new AtomicInteger();
        CountDownLatch allRan = new CountDownLatch(tasks);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < tasks; i++) {
            int id = i;
            long delayNanos = random.nextLong(MILLISECONDS.toNanos(50) + 1);
            long notBefore = System.nanoTime() + delayNanos;
            scheduler.schedule(() -> {
                if (System.nanoTime() - notBefore < 0) {
                    early.incrementAndGet();
                }
                runs.incrementAndGet(id);
                allRan.countDown();
            }, delayNanos, NANOSECONDS);
        }
        assertTrue(allRan.await(LIVENESS_SECONDS, SECONDS), allRan.getCount() + " tasks never ran");
        // Any duplicate run would come from a task still held: wait until the scheduler is empty
        // and a later task has run, then count.
        awaitCondition(() -> scheduler.pendingCount() == 0, "scheduler drained");
        scheduler.schedule(() -> { }, 60, MILLISECONDS).get(LIVENESS_SECONDS, SECONDS);
        for (int i = 0; i < tasks; i++) {
            assertEquals(1, runs.get(i), "task " + i + " runs");
        }
        assertEquals(0, early.get(), "tasks ran before their delay");
    }

    @Test
    void shouldAccountForEveryTaskWhenSchedulingCancellingAndShutdownRace() throws Exception {
        int threads = 4;
        int tasksPerThread = 2_000;
        int tasks = threads * tasksPerThread;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        ScheduledFuture<?>[] futures = new ScheduledFuture<?>[tasks];
        boolean[] periodic = new boolean[tasks];
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> schedulers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t * tasksPerThread;
            SplittableRandom random = new SplittableRandom(100 + t);
            schedulers.add(Thread.ofPlatform().start(() -> {
                awaitQuietly(start);
                for (int id = first; id < first + tasksPerThread; id++) {
                    int task = id;
                    long delayMicros = random.nextLong(5_000);
                    periodic[id] = random.nextInt(4) == 0;
                    futures[id] = periodic[id]
                            ? scheduler.scheduleAtFixedRate(() -> runs.incrementAndGet(task), delayMicros, 500,
                                    TimeUnit.MICROSECONDS)
                            : scheduler.schedule(() -> runs.incrementAndGet(task), delayMicros, TimeUnit.MICROSECONDS);
                    if (random.nextInt(3) == 0) {
                        futures[random.nextInt(first, id + 1)].cancel(random.nextBoolean());
                    }
                }
            }));
        }
        start.countDown();
        for (Thread thread : schedulers) {
            thread.join();
        }
        scheduler.shutdown();
        assertTrue(sink.idle.await(LIVENESS_SECONDS, SECONDS), "scheduler never became idle");
        sink.drain();   // every task handed over has now finished

        assertEquals(1, sink.idleCalls.get());
        assertEquals(0, scheduler.pendingCount());
        for (int id = 0; id < tasks; id++) {
            ScheduledFuture<?> future = futures[id];
            assertTrue(future.isDone(), "task " + id + " neither ran nor was cancelled");
            if (periodic[id]) {
                assertTrue(future.isCancelled(), "periodic task " + id + " outlived shutdown");
            } else if (!future.isCancelled()) {
                assertEquals(1, runs.get(id), "one-shot task " + id + " completed normally");
            } else {
                assertTrue(runs.get(id) <= 1, "cancelled one-shot task " + id + " ran " + runs.get(id) + " times");
            }
        }
    }

    // ---- helpers -----------------------------------------------------------------------------

    private static void assertNpeNaming(String argument, Runnable call) {
        NullPointerException e = assertThrows(NullPointerException.class, call::run);
        assertEquals(argument, e.getMessage());
    }

    static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + SECONDS.toNanos(LIVENESS_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + LIVENESS_SECONDS + " s: " + what);
            }
            sleepQuietly(1);
        }
    }

    /** As awaitCondition, without sleeping between looks: for a window of milliseconds. */
    static void spinUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + SECONDS.toNanos(LIVENESS_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + LIVENESS_SECONDS + " s: " + what);
            }
            Thread.onSpinWait();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(LIVENESS_SECONDS, SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A Delayed whose delay never changes, whatever its value. */
    private static Delayed constantDelay(long nanos) {
        return new Delayed() {
            @Override
            public long getDelay(TimeUnit u) {
                return u.convert(nanos, NANOSECONDS);
            }

            @Override
            public int compareTo(Delayed o) {
                return Long.compare(nanos, o.getDelay(NANOSECONDS));
            }
        };
    }

    private static Delayed fixedDelay(long delay, TimeUnit unit) {
        long deadline = System.nanoTime() + unit.toNanos(delay);
        return new Delayed() {
            @Override
            public long getDelay(TimeUnit u) {
                return u.convert(deadline - System.nanoTime(), NANOSECONDS);
            }

            @Override
            public int compareTo(Delayed o) {
                return Long.compare(getDelay(NANOSECONDS), o.getDelay(NANOSECONDS));
            }
        };
    }

    /** A sink that accepts due tasks and keeps them, unrun, as a pool whose workers are all busy. */
    private static final class HoldingSink implements DueTaskSink {
        final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
        final CountDownLatch idle = new CountDownLatch(1);

        @Override
        public boolean submitDue(Runnable task) {
            tasks.add(task);
            return true;
        }

        @Override
        public void schedulerIdle() {
            idle.countDown();
        }

        Runnable awaitTask() throws InterruptedException {
            Runnable task = tasks.poll(LIVENESS_SECONDS, SECONDS);
            if (task == null) {
                fail("no task handed to the sink within " + LIVENESS_SECONDS + " s");
            }
            return task;
        }
    }
}
