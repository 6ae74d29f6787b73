package dev.rota;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;
import org.openjdk.jcstress.infra.results.IZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Completion of a {@link RotaTask} racing a waiter, a joiner, cancel, and a second run; a
 * completion from outside ({@code complete}, {@code completeExceptionally}) racing the run, another
 * such completion, cancel, a waiter and a joiner; and the cancel of the future of
 * {@code submit(task, result)} racing that future's run.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.RotaTaskTests.*'}
 */
public final class RotaTaskTests {
    private RotaTaskTests() {}

    static final class FortyTwo extends RotaTask<Integer> {
        @Override
        protected Integer compute() {
            return 42;
        }
    }

    /** r1: the waiter decided to wait; r2: the completion notified it. */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "the waiter saw the task done and did not wait")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "saw it done; a notification went out anyway")
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "the waiter waits and is notified")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "lost wake-up: waits for a completion that never notifies")
    @State
    public static class CompletionRacingWaiter {
        final FortyTwo task = new FortyTwo();
        boolean wouldWait;

        @Actor
        public void completer() {
            task.run();
        }

        @Actor
        public void waiter() {
            synchronized (task) {
                wouldWait = task.prepareToWait();
            }
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = wouldWait;
            synchronized (task) {
                r.r2 = task.wakeups > 0;
            }
        }
    }

    /** r1: the result join reports (-1 for cancelled); r2: cancel's answer (1 true). */
    @JCStressTest
    @Outcome(id = "42, 0", expect = ACCEPTABLE, desc = "completed first; cancel failed")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "cancelled first; the result is discarded")
    @Outcome(id = "42, 1", expect = FORBIDDEN, desc = "cancel claimed success yet the task completed normally")
    @Outcome(id = "-1, 0", expect = FORBIDDEN, desc = "cancelled although cancel failed")
    @State
    public static class CompletionRacingCancel {
        final FortyTwo task = new FortyTwo();
        boolean cancelled;

        @Actor
        public void runner() {
            task.run();
        }

        @Actor
        public void canceller() {
            cancelled = task.cancel(false);
        }

        @Arbiter
        public void after(II_Result r) {
            r.r1 = task.isCancelled() ? -1 : task.join();
            r.r2 = cancelled ? 1 : 0;
        }
    }

    /** Counts its computations. */
    static final class Counted extends RotaTask<Integer> {
        int computed;

        @Override
        protected Integer compute() {
            return ++computed;
        }
    }

    /**
     * A run of a task racing a shutdownNow that drained another copy of it from a queue (a task
     * submitted twice): r1: computations; r2: whether shutdownNow returns it as never started.
     */
    @JCStressTest
    @Outcome(id = "1, false", expect = ACCEPTABLE, desc = "ran first; not returned")
    @Outcome(id = "0, true", expect = ACCEPTABLE, desc = "returned as never started, and never computed")
    @Outcome(id = "1, true", expect = FORBIDDEN, desc = "returned as never started, yet it computed")
    @Outcome(id = "0, false", expect = FORBIDDEN, desc = "lost: neither run nor returned")
    @State
    public static class RunRacingDrainedCancel {
        final Counted task = new Counted();
        boolean returned;

        @Actor
        public void runner() {
            task.run();
        }

        @Actor
        public void drainer() {
            returned = task.cancelUnstarted();
        }

        @Arbiter
        public void after(IZ_Result r) {
            r.r1 = task.computed;
            r.r2 = returned;
        }
    }

    /**
     * The result's publication: a joiner that sees the task done reads the result its one run wrote
     * before the status CAS (the volatile status: release/acquire). r1: the result join reports, 0 for
     * none seen, -1 when the task was not done yet.
     */
    @JCStressTest
    @Outcome(id = "42", expect = ACCEPTABLE, desc = "done, and its result seen")
    @Outcome(id = "-1", expect = ACCEPTABLE, desc = "not done yet when the joiner looked")
    @Outcome(id = "0", expect = FORBIDDEN, desc = "done, yet the result written before the status is not seen")
    @State
    public static class JoinRacingCompletion {
        final FortyTwo task = new FortyTwo();

        @Actor
        public void runner() {
            task.run();
        }

        @Actor
        public void joiner(I_Result r) {
            if (!task.isDone()) {
                r.r1 = -1;
                return;
            }
            Integer result = task.join();
            r.r1 = result == null ? 0 : result;
        }
    }

    /** Counts its computations across threads, and returns the count it made. */
    static final class CountedAcrossThreads extends RotaTask<Integer> {
        final AtomicInteger computed = new AtomicInteger();

        @Override
        protected Integer compute() {
            return computed.incrementAndGet();
        }
    }

    /**
     * The started claim: a task run by two threads at once (submitted twice, or forked and then
     * invoked) computes once, and join reports that computation's result, never one a losing run
     * wrote after the winner published. r1: computations; r2: the result join reports.
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "one run computed, the other returned at once")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "computed twice: both runs passed the claim")
    @Outcome(expect = FORBIDDEN, desc = "join reports a result other than the one computation's")
    @State
    public static class TwoRunsRacing {
        final CountedAcrossThreads task = new CountedAcrossThreads();

        @Actor
        public void first() {
            task.run();
        }

        @Actor
        public void second() {
            task.run();
        }

        @Arbiter
        public void after(II_Result r) {
            r.r1 = task.computed.get();
            r.r2 = task.join();
        }
    }

    /**
     * The future of {@code submit(task, result)}: its cancel, which cancels the RotaTask in it unless
     * that task has started, races the future's own run of the task. Whatever the order, the task
     * ends done, so that a join of it returns. r1: computations; r2: the task's state (0 pending,
     * 1 completed normally, 2 cancelled); r3: the future's cancel succeeded (1) or not (0).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "ran to its end first; the cancel failed")
    @Outcome(id = "0, 2, 1", expect = ACCEPTABLE, desc = "cancelled before it started: the task is cancelled too")
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "cancelled while the task ran: the task completes, its joiners get its result")
    @Outcome(id = ".*, 0, .*", expect = FORBIDDEN, desc = "the task never completes: a join of it waits for ever")
    @Outcome(id = "1, 2, .*", expect = FORBIDDEN, desc = "computed, yet cancelled by a cancel that claimed it unstarted")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class FutureCancelRacingItsRun {
        final Counted task = new Counted();
        final GroupFuture<Void> future = new GroupFuture<>(task, null, null);
        boolean cancelled;

        @Actor
        public void runner() {
            future.run();
        }

        @Actor
        public void canceller() {
            cancelled = future.cancel(false);
        }

        @Arbiter
        public void after(III_Result r) {
            r.r1 = task.computed;
            r.r2 = task.isCancelled() ? 2 : task.isCompletedNormally() ? 1 : 0;
            r.r3 = cancelled ? 1 : 0;
        }
    }

    /**
     * An action given to {@code whenDone} racing the task's completion (the future of
     * {@code submit(task, result)} completes that way): it runs exactly once, after the completion,
     * whether the adder saw the task done or the completer found the action.
     * r1: times the action ran; r2: whether the task was done when it ran (1 yes).
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "ran once, after the completion")
    @Outcome(id = "0, .*", expect = FORBIDDEN, desc = "lost: the action never ran")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "ran twice")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "ran before the task was done")
    @State
    public static class WhenDoneRacingCompletion {
        final FortyTwo task = new FortyTwo();
        final AtomicInteger runs = new AtomicInteger();
        volatile boolean doneWhenRun;

        @Actor
        public void completer() {
            task.run();
        }

        @Actor
        public void adder() {
            task.whenDone(() -> {
                doneWhenRun = task.isDone();
                runs.incrementAndGet();
            });
        }

        @Arbiter
        public void after(II_Result r) {
            r.r1 = runs.get();
            r.r2 = doneWhenRun ? 1 : 0;
        }
    }

    // ---- completion from outside compute() ----------------------------------------------------

    /**
     * {@code complete(7)} racing the run that computes 42: exactly one outcome wins, and join
     * reports the winner's value, never the loser's. r1: what join reports; r2: complete's answer.
     */
    @JCStressTest
    @Outcome(id = "42, 0", expect = ACCEPTABLE, desc = "the run completed first; complete changed nothing")
    @Outcome(id = "7, 1", expect = ACCEPTABLE, desc = "complete won; the run's result is dropped")
    @Outcome(expect = FORBIDDEN, desc = "join reports an outcome other than the one the winner wrote")
    @State
    public static class CompleteRacingRun {
        final FortyTwo task = new FortyTwo();
        boolean completed;

        @Actor
        public void runner() {
            task.run();
        }

        @Actor
        public void completer() {
            completed = task.complete(7);
        }

        @Arbiter
        public void after(II_Result r) {
            r.r1 = task.join();
            r.r2 = completed ? 1 : 0;
        }
    }

    /**
     * Two completions from outside at once, with different values: one wins, and join reports its
     * value, never the value the loser held (the loser writes nothing). r1: join; r2, r3: the answers.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the first completer won")
    @Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "the second completer won")
    @Outcome(expect = FORBIDDEN, desc = "both or neither won, or join reports the loser's value")
    @State
    public static class TwoCompletesRacing {
        final FortyTwo task = new FortyTwo();
        boolean first;
        boolean second;

        @Actor
        public void one() {
            first = task.complete(1);
        }

        @Actor
        public void two() {
            second = task.complete(2);
        }

        @Arbiter
        public void after(III_Result r) {
            r.r1 = task.join();
            r.r2 = first ? 1 : 0;
            r.r3 = second ? 1 : 0;
        }
    }

    /** {@code completeExceptionally} racing cancel. r1: 1 failed, 2 cancelled; r2, r3: the answers. */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the failure was given first; cancel failed")
    @Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "cancelled first; the failure changed nothing")
    @Outcome(expect = FORBIDDEN, desc = "the outcome and the answers disagree")
    @State
    public static class CompleteExceptionallyRacingCancel {
        final FortyTwo task = new FortyTwo();
        final IllegalStateException failure = new IllegalStateException();
        boolean failed;
        boolean cancelled;

        @Actor
        public void completer() {
            failed = task.completeExceptionally(failure);
        }

        @Actor
        public void canceller() {
            cancelled = task.cancel(false);
        }

        @Arbiter
        public void after(III_Result r) {
            r.r1 = task.isCancelled() ? 2 : task.getException() == failure ? 1 : 0;
            r.r2 = failed ? 1 : 0;
            r.r3 = cancelled ? 1 : 0;
        }
    }

    /**
     * The given value's publication: a joiner that sees the task done reads the value written before
     * the status CAS. r1: what join reports, 0 for none seen, -1 when not done yet.
     */
    @JCStressTest
    @Outcome(id = "7", expect = ACCEPTABLE, desc = "done, and the given value seen")
    @Outcome(id = "-1", expect = ACCEPTABLE, desc = "not done yet when the joiner looked")
    @Outcome(id = "0", expect = FORBIDDEN, desc = "done, yet the value given before the status is not seen")
    @State
    public static class JoinRacingComplete {
        final FortyTwo task = new FortyTwo();

        @Actor
        public void completer() {
            task.complete(7);
        }

        @Actor
        public void joiner(I_Result r) {
            if (!task.isDone()) {
                r.r1 = -1;
                return;
            }
            Integer result = task.join();
            r.r1 = result == null ? 0 : result;
        }
    }

    /** As {@link CompletionRacingWaiter}, for {@code complete}: r1: the waiter waits; r2: it was notified. */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "the waiter saw the task done and did not wait")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "saw it done; a notification went out anyway")
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "the waiter waits and is notified")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "lost wake-up: waits for a completion that never notifies")
    @State
    public static class CompleteRacingWaiter {
        final FortyTwo task = new FortyTwo();
        boolean wouldWait;

        @Actor
        public void completer() {
            task.complete(7);
        }

        @Actor
        public void waiter() {
            synchronized (task) {
                wouldWait = task.prepareToWait();
            }
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = wouldWait;
            synchronized (task) {
                r.r2 = task.wakeups > 0;
            }
        }
    }

    /**
     * As {@link WhenDoneRacingCompletion}, for {@code complete}: the future of
     * {@code submit(task, result)} completes through whenDone when the task is completed from outside.
     * r1: times the action ran; r2: whether the task was done when it ran (1 yes).
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "ran once, after the completion")
    @Outcome(id = "0, .*", expect = FORBIDDEN, desc = "lost: the action never ran")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "ran twice")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "ran before the task was done")
    @State
    public static class WhenDoneRacingComplete {
        final FortyTwo task = new FortyTwo();
        final AtomicInteger runs = new AtomicInteger();
        volatile boolean doneWhenRun;

        @Actor
        public void completer() {
            task.complete(7);
        }

        @Actor
        public void adder() {
            task.whenDone(() -> {
                doneWhenRun = task.isDone();
                runs.incrementAndGet();
            });
        }

        @Arbiter
        public void after(II_Result r) {
            r.r1 = runs.get();
            r.r2 = doneWhenRun ? 1 : 0;
        }
    }
}
