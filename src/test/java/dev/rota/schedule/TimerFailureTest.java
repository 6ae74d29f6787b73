package dev.rota.schedule;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A timer thread that dies of an Error (out of memory, say) strands no task: what it held is run by
 * a replacement timer or, where none can be started, cancelled, so that every future completes and a
 * shut-down scheduler still reaches idle (its pool terminates). The failure reaches the dying
 * thread's uncaught exception handler.
 *
 * <p>Failures are injected where the timer calls out: the sink's callbacks, which run on the timer
 * thread, and the factory that makes timer threads, whose start fails as a JVM out of native
 * threads makes it fail.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TimerFailureTest {
    private static final long LIVENESS_SECONDS = 30;

    /** Makes daemon timer threads, records them and what killed them; refuses to start one on demand. */
    private static final class TimerThreads implements ThreadFactory {
        final List<Thread> made = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> uncaught = new AtomicReference<>();
        /** Starts refused, counted down per refusal; 0: every start succeeds. */
        final AtomicInteger refusals = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                    ? new Thread(task, "refused-timer") {
                        @Override
                        public void start() {
                            throw new OutOfMemoryError("unable to create native thread: injected");
                        }
                    }
                    : new Thread(task, "timer-" + made.size());
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, failure) -> uncaught.set(failure));
            made.add(thread);
            return thread;
        }

        Thread first() {
            return made.getFirst();
        }
    }

    /** Holds due tasks unrun; its timer-thread callbacks throw {@link #death} on demand. */
    private static final class FailingSink implements DueTaskSink {
        final OutOfMemoryError death = new OutOfMemoryError("the timer dies: injected");
        final LinkedBlockingQueue<Runnable> handed = new LinkedBlockingQueue<>();
        final CountDownLatch idle = new CountDownLatch(1);
        final CountDownLatch timerStarting = new CountDownLatch(1);
        /** When set, the first timer waits in timerStarted() until it opens, then dies. */
        volatile CountDownLatch dieAtStartWhen;
        /** While true, every timer dies as it starts. */
        volatile boolean everyTimerDies;
        /** A command whose cancellation by the timer kills it. */
        volatile Runnable dieOnCancelOf;
        /** How many due tasks to hold before refusing the rest. */
        volatile int accept = Integer.MAX_VALUE;
        /** When set, submitDue throws it, checked or not. */
        volatile Throwable submitFailure;

        @Override
        public void timerStarted() {
            CountDownLatch die = dieAtStartWhen;
            dieAtStartWhen = null;
            timerStarting.countDown();
            if (everyTimerDies) {
                throw death;
            }
            if (die != null) {
                DelaySchedulerTest.awaitQuietly(die);
                throw death;
            }
        }

        @Override
        public boolean submitDue(Runnable task) {
            if (submitFailure != null) {
                FailingSink.<RuntimeException>sneakyThrow(submitFailure);
            }
            if (accept <= 0) {
                return false;
            }
            accept--;
            handed.add(task);
            return true;
        }

        @Override
        public void commandCancelled(Runnable command) {
            if (command == dieOnCancelOf && Thread.currentThread().getName().startsWith("timer-")) {
                throw death;
            }
        }

        @Override
        public void schedulerIdle() {
            idle.countDown();
        }

        @SuppressWarnings("unchecked")
        private static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
            throw (E) t;
        }

        Runnable awaitHanded() throws InterruptedException {
            Runnable task = handed.poll(LIVENESS_SECONDS, SECONDS);
            if (task == null) {
                fail("no task handed to the sink within " + LIVENESS_SECONDS + " s");
            }
            return task;
        }
    }

    /**
     * After shutdown() the scheduler waits for its one-shot tasks' deadlines, and nothing calls
     * schedule again to start a timer: a timer that dies then, with no replacement to be had, must
     * not leave the tasks in the heap, or they never complete and the pool never terminates.
     */
    @Test
    void aTimerThatDiesAfterShutdownWithNoReplacementCancelsItsTasksAndReportsIdle() throws Exception {
        FailingSink sink = new FailingSink();
        CountDownLatch die = new CountDownLatch(1);
        sink.dieAtStartWhen = die;
        TimerThreads threads = new TimerThreads();
        DelayScheduler scheduler = new DelayScheduler(sink, "dying-timer", threads);
        try {
            ScheduledFuture<?> oneShot = scheduler.schedule(() -> { }, 1, HOURS);
            assertTrue(sink.timerStarting.await(LIVENESS_SECONDS, SECONDS), "the timer never started");
            scheduler.shutdown();
            assertEquals(1, sink.idle.getCount(), "idle while a one-shot task waits");
            threads.refusals.set(1);

            die.countDown();

            assertTrue(sink.idle.await(LIVENESS_SECONDS, SECONDS),
                    "a shut-down scheduler whose timer died keeps its tasks for ever: " + scheduler);
            assertTrue(oneShot.isCancelled(), "the task the dead timer held is still pending");
            assertEquals(0, scheduler.pendingCount());
            threads.first().join(SECONDS.toMillis(LIVENESS_SECONDS));
            assertSame(sink.death, threads.uncaught.get(), "the timer's death reached its uncaught exception handler");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * Before shutdown too: the tasks of a timer that died with no replacement to be had complete
     * (cancelled) rather than wait for a schedule call that may never come; the next schedule call
     * starts a new timer, which runs its task.
     */
    @Test
    void aTimerThatDiesWithNoReplacementCancelsItsTasksAndTheNextScheduleStartsAnother() throws Exception {
        FailingSink sink = new FailingSink();
        CountDownLatch die = new CountDownLatch(1);
        sink.dieAtStartWhen = die;
        TimerThreads threads = new TimerThreads();
        DelayScheduler scheduler = new DelayScheduler(sink, "dying-timer", threads);
        try {
            ScheduledFuture<?> due = scheduler.schedule(() -> { }, 0, NANOSECONDS);
            ScheduledFuture<?> later = scheduler.schedule(() -> { }, 1, HOURS);
            ScheduledFuture<?> periodic = scheduler.scheduleAtFixedRate(() -> { }, 1, 1, HOURS);
            assertTrue(sink.timerStarting.await(LIVENESS_SECONDS, SECONDS), "the timer never started");
            threads.refusals.set(1);

            die.countDown();

            for (ScheduledFuture<?> future : List.of(due, later, periodic)) {
                assertThrows(CancellationException.class, () -> future.get(LIVENESS_SECONDS, SECONDS),
                        "a task of a dead timer that could not be replaced");
            }
            assertEquals(0, scheduler.pendingCount());
            threads.first().join(SECONDS.toMillis(LIVENESS_SECONDS));
            assertFalse(threads.first().isAlive());

            ScheduledFuture<?> after = scheduler.schedule(() -> { }, 0, NANOSECONDS);
            Runnable handed = sink.awaitHanded();
            assertSame(after, handed, "the next schedule call's task, handed over by a new timer");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * A periodic task that the timer handed over before it died goes back to the heap after its run:
     * a timer must be there to hand it over again. Here the dead timer held nothing else, so no
     * replacement was started when it died; the task's re-arming starts one.
     */
    @Test
    void aPeriodicTaskHandedOverBeforeItsTimerDiedIsHandedOverAgainByANewTimer() throws Exception {
        FailingSink sink = new FailingSink();
        TimerThreads threads = new TimerThreads();
        DelayScheduler scheduler = new DelayScheduler(sink, "dying-timer", threads);
        try {
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> periodic = scheduler.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, MILLISECONDS);
            Runnable handed = sink.awaitHanded();
            assertSame(periodic, handed);
            sink.accept = 0;                             // the next due task is refused, and its cancel kills the timer
            Runnable fatal = () -> { };
            sink.dieOnCancelOf = fatal;
            ScheduledFuture<?> refused = scheduler.schedule(fatal, 0, NANOSECONDS);
            assertThrows(CancellationException.class, () -> refused.get(LIVENESS_SECONDS, SECONDS));
            threads.first().join(SECONDS.toMillis(LIVENESS_SECONDS));
            assertFalse(threads.first().isAlive(), "the timer did not die");
            assertSame(sink.death, threads.uncaught.get());
            sink.accept = Integer.MAX_VALUE;

            handed.run();                                // the run of the hand-off: back to the heap

            assertEquals(1, runs.get());
            assertSame(periodic, sink.awaitHanded(), "the periodic task was not handed over again");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * A sink that throws refuses the task (DueTaskSink's contract), and the timer cancels it. One that
     * throws what the timer does not catch (a checked exception thrown sneakily) kills the timer in
     * the middle of its hand-off: the task it was passing on is then cancelled all the same.
     */
    @Test
    void aDueTaskWhoseHandOffKilledTheTimerIsCancelled() throws Exception {
        FailingSink sink = new FailingSink();
        Throwable checked = new java.io.IOException("the sink fails: injected");
        sink.submitFailure = checked;
        TimerThreads threads = new TimerThreads();
        DelayScheduler scheduler = new DelayScheduler(sink, "dying-timer", threads);
        try {
            ScheduledFuture<?> due = scheduler.schedule(() -> { }, 0, NANOSECONDS);
            threads.first().join(SECONDS.toMillis(LIVENESS_SECONDS));
            assertFalse(threads.first().isAlive(), "the timer did not die");
            assertSame(checked, threads.uncaught.get());

            assertThrows(CancellationException.class, () -> due.get(LIVENESS_SECONDS, SECONDS),
                    "the task whose hand-off killed the timer");
            assertEquals(0, scheduler.pendingCount());
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * A sink that throws an Error or a RuntimeException on a hand-off (out of memory, say) does not
     * kill the timer: the task's future fails with what the sink threw, a periodic task leaves the
     * hand-off set, and the timer hands the next task over.
     */
    @Test
    void aDueTaskTheSinkThrowsOnFailsWithWhatItThrew() throws Exception {
        FailingSink sink = new FailingSink();
        TimerThreads threads = new TimerThreads();
        DelayScheduler scheduler = new DelayScheduler(sink, "failing-sink", threads);
        try {
            for (Throwable thrown : List.of(new OutOfMemoryError("no room to queue: injected"),
                    new IllegalStateException("the sink fails: injected"))) {
                sink.submitFailure = thrown;
                ScheduledFuture<?> oneShot = scheduler.schedule(() -> { }, 0, NANOSECONDS);
                ScheduledFuture<?> periodic = scheduler.scheduleAtFixedRate(() -> { }, 0, 1, HOURS);
                for (ScheduledFuture<?> future : List.of(oneShot, periodic)) {
                    ExecutionException failed = assertThrows(ExecutionException.class,
                            () -> future.get(LIVENESS_SECONDS, SECONDS));
                    assertSame(thrown, failed.getCause(), "why the task never ran");
                }
                // The batch's hand-off count falls after its last task, which may be after get() returned.
                DelaySchedulerTest.awaitCondition(() -> scheduler.pendingCount() == 0, "the failed tasks left the scheduler");
                assertEquals(0, scheduler.handedOverCount(), "a failed periodic hand-off left behind");
            }
            sink.submitFailure = null;
            ScheduledFuture<?> next = scheduler.schedule(() -> { }, 0, NANOSECONDS);
            assertSame(next, sink.awaitHanded());
            assertEquals(1, threads.made.size(), "the timer died of a failed hand-off");
            assertEquals(null, threads.uncaught.get());
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * A failure that kills every timer as it starts is not met with new timers for ever: after
     * {@link DelayScheduler#MAX_TIMER_DEATHS_IN_A_ROW} replacements die with no task handed over, the
     * tasks are cancelled, as where no thread can be started. The next schedule call tries again.
     */
    @Test
    void timersThatKeepDyingAreReplacedOnlySoOftenAndTheirTasksCancelled() throws Exception {
        FailingSink sink = new FailingSink();
        CountDownLatch bothScheduled = new CountDownLatch(1);
        sink.dieAtStartWhen = bothScheduled;             // else the deaths could end before the second call,
        TimerThreads threads = new TimerThreads();       // which would then start timers of its own
        DelayScheduler scheduler = new DelayScheduler(sink, "dying-timer", threads);
        try {
            ScheduledFuture<?> due = scheduler.schedule(() -> { }, 0, NANOSECONDS);
            ScheduledFuture<?> later = scheduler.schedule(() -> { }, 1, HOURS);
            sink.everyTimerDies = true;                  // the replacements die at once
            bothScheduled.countDown();                   // the first timer dies now
            for (ScheduledFuture<?> future : List.of(due, later)) {
                assertThrows(CancellationException.class, () -> future.get(LIVENESS_SECONDS, SECONDS),
                        "a task of timers that keep dying");
            }
            assertEquals(0, scheduler.pendingCount());
            for (Thread thread : threads.made) {
                thread.join(SECONDS.toMillis(LIVENESS_SECONDS));
            }
            assertEquals(1 + DelayScheduler.MAX_TIMER_DEATHS_IN_A_ROW, threads.made.size(),
                    "the first timer and its replacements");
            assertSame(sink.death, threads.uncaught.get());

            sink.everyTimerDies = false;
            ScheduledFuture<?> after = scheduler.schedule(() -> { }, 0, NANOSECONDS);
            assertSame(after, sink.awaitHanded(), "the next schedule call's task, handed over by a new timer");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** The public constructor's handler, the pool's, gets the Error a timer dies of; a new timer takes over. */
    @Test
    void aTimersDeathGoesToTheHandlerTheSchedulerWasGiven() throws Exception {
        FailingSink sink = new FailingSink();
        sink.dieAtStartWhen = new CountDownLatch(0);
        AtomicReference<Throwable> reported = new AtomicReference<>();
        CountDownLatch handled = new CountDownLatch(1);
        DelayScheduler scheduler = new DelayScheduler(sink, "handled-timer", (thread, failure) -> {
            reported.set(failure);
            handled.countDown();
        });
        try {
            ScheduledFuture<?> task = scheduler.schedule(() -> { }, 0, NANOSECONDS);
            assertTrue(handled.await(LIVENESS_SECONDS, SECONDS), "the handler heard nothing");
            assertSame(sink.death, reported.get());
            assertSame(task, sink.awaitHanded(), "the replacement timer hands the task over");
        } finally {
            scheduler.shutdownNow();
        }
    }
}
