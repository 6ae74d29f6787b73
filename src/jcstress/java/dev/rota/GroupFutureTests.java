package dev.rota;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IZZ_Result;
import org.openjdk.jcstress.infra.results.IZ_Result;
import org.openjdk.jcstress.infra.results.ZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * A waiter claiming a group's future to run it itself (no spare could stand in for it) racing a
 * shutdownNow that drained the future from its queue: exactly one of them has it, so the future is
 * either run by its waiter or handed back as never started, never both and never neither. The
 * submitter's mark that the group accepted the future racing such a drain. A cancel(true) racing
 * the end of a run outside the pool, whose interrupt must land before run() returns. And two runs
 * of one future at once, of which exactly one calls the task.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.GroupFutureTests.*'}
 */
public final class GroupFutureTests {
    private GroupFutureTests() {}

    /** r1: the waiter's claim succeeded; r2: the drain hands the future back. */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the waiter claimed it first and runs it")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "drained first: handed back, the waiter waits")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "run by its waiter and handed back as never started")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "neither runs it: the task is lost")
    @State
    public static class WaiterClaimRacingDrain {
        final GroupFuture<Integer> future = new GroupFuture<>(() -> 42, null);

        public WaiterClaimRacingDrain() {
            GroupFuture.acceptedAsItself(future, null);  // queued as itself, in its own group (null here)
        }

        @Actor
        public void waiter(ZZ_Result r) {
            r.r1 = future.claimForWaiter();
        }

        @Actor
        public void drain(ZZ_Result r) {
            r.r2 = GroupFuture.settleDrained(future);
        }
    }

    /**
     * A waiter running the future of {@code submit(task, result)} with a RotaTask in place racing a
     * drain of it: the task's started claim decides, and the waiter may claim the future (which only
     * reads it not done) after the drain has claimed the task, but before the drain has cancelled
     * the future. r1: how many times the task computed; r2: the drain hands the future back; r3:
     * the future is done afterwards.
     */
    @JCStressTest
    @Outcome(id = "1, false, true", expect = ACCEPTABLE, desc = "the waiter's run computed the task; not handed back")
    @Outcome(id = "0, true, true", expect = ACCEPTABLE, desc = "the drain claimed the task: handed back, never computed")
    @Outcome(id = "0, false, .*", expect = FORBIDDEN, desc = "neither computed nor handed back: the task is lost")
    @Outcome(id = "1, true, .*", expect = FORBIDDEN, desc = "computed, and handed back as never started")
    @Outcome(id = ".*, .*, false", expect = FORBIDDEN, desc = "the future is left pending: its waiters wait for ever")
    @State
    public static class WaiterRunRacingDrainOfRotaTaskFuture {
        static final class Counted extends RotaTask<Integer> {
            int computed;

            @Override
            protected Integer compute() {
                return ++computed;
            }
        }

        final Counted task = new Counted();
        final GroupFuture<String> future = new GroupFuture<>(task, "done", null);
        boolean returned;

        public WaiterRunRacingDrainOfRotaTaskFuture() {
            GroupFuture.acceptedAsItself(future, null);  // queued as itself, in its own group (null here)
        }

        @Actor
        public void waiter() {
            if (future.claimForWaiter()) {
                future.run();
            }
        }

        @Actor
        public void drain() {
            returned = GroupFuture.settleDrained(future);
        }

        @Arbiter
        public void after(IZZ_Result r) {
            r.r1 = task.computed;
            r.r2 = returned;
            r.r3 = future.isDone();
        }
    }

    /**
     * The submitter marking the future accepted racing a drain that already found it in the queue:
     * the drain hands it back either way, and no waiter may run it afterwards.
     * r1: the drain hands it back; r2: a waiter's claim, after both, succeeds.
     */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "handed back; no waiter runs it")
    @Outcome(id = "false, .*", expect = FORBIDDEN, desc = "drained but not handed back: lost")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "handed back, and a waiter may run it too")
    @State
    public static class AcceptanceRacingDrain {
        final GroupFuture<Integer> future = new GroupFuture<>(() -> 42, null);

        @Actor
        public void submitter() {
            GroupFuture.acceptedAsItself(future, null);
        }

        @Actor
        public void drain(ZZ_Result r) {
            r.r1 = GroupFuture.settleDrained(future);
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = future.claimForWaiter();
        }
    }

    /**
     * A cancel(true) racing the end of a run on a thread outside the pool, which the future
     * interrupts itself (as FutureTask would): the interrupt lands before run() returns, never
     * after, on whatever the thread does next. r1: the cancel succeeded; r2: the task's code ran;
     * r3: the runner was interrupted when run() returned; r4: it is interrupted once the cancel has
     * returned too (the runner waits for that, then clears its status for the next round). A cancel
     * that wins after the code has returned, before the run completes the future, may find the run
     * over and interrupt nobody, as FutureTask's may: no code is left to stop. That a cancel during
     * the code does interrupt it is {@link CancelDuringTheCode}'s to show.
     */
    @JCStressTest
    @Outcome(id = "false, true, false, false", expect = ACCEPTABLE, desc = "the run completed first: nothing to cancel")
    @Outcome(id = "true, false, false, false", expect = ACCEPTABLE, desc = "cancelled before the run, which did nothing")
    @Outcome(id = "true, false, true, true", expect = ACCEPTABLE, desc = "cancelled as the run began, interrupted in it")
    @Outcome(id = "true, true, true, true", expect = ACCEPTABLE, desc = "cancelled during the run, interrupted in it")
    @Outcome(id = "true, true, false, false", expect = ACCEPTABLE, desc = "cancelled after the code returned: nothing to stop")
    @Outcome(id = ".*, .*, false, true", expect = FORBIDDEN, desc = "the interrupt landed after run() returned")
    @State
    public static class CancelRacingRunEnd {
        volatile boolean ran;
        final GroupFuture<Integer> future = new GroupFuture<>(() -> {
            ran = true;
            return 42;
        }, null);
        volatile boolean cancelReturned;
        boolean cancelled;

        @Actor
        public void run(ZZZZ_Result r) {
            Thread.interrupted();                        // nothing left from an earlier round
            future.run();
            r.r3 = Thread.currentThread().isInterrupted();
            while (!cancelReturned) {
                Thread.onSpinWait();
            }
            r.r4 = Thread.currentThread().isInterrupted();
            Thread.interrupted();
        }

        @Actor
        public void cancel() {
            cancelled = future.cancel(true);
            cancelReturned = true;
        }

        @Arbiter
        public void after(ZZZZ_Result r) {
            r.r1 = cancelled;
            r.r2 = ran;
        }
    }

    /**
     * A cancel(true) that wins while the task's code runs, on a thread outside the pool: the code
     * sees the interrupt before it returns. The code runs until the cancel has returned, so a cancel
     * that finds the future running finds it in the code. r1: the code ran; r2: it saw the interrupt.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "cancelled before the run: the code never ran")
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "cancelled during the code, which saw the interrupt")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "cancelled during the code, which was never interrupted")
    @State
    public static class CancelDuringTheCode {
        volatile boolean cancelReturned;
        volatile boolean ran;
        volatile boolean sawInterrupt;
        final GroupFuture<Integer> future = new GroupFuture<>(() -> {
            ran = true;
            while (!cancelReturned) {
                Thread.onSpinWait();
            }
            sawInterrupt = Thread.currentThread().isInterrupted();
            return 42;
        }, null);

        @Actor
        public void run() {
            Thread.interrupted();                        // nothing left from an earlier round
            future.run();
            Thread.interrupted();
        }

        @Actor
        public void cancel() {
            future.cancel(true);
            cancelReturned = true;
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = ran;
            r.r2 = sawInterrupt;
        }
    }

    /**
     * Two runs of one future at once (a waiter runs it while a worker reaches its queued copy): one
     * holds the runner and calls the task, the other returns at once, and the runner is free after.
     * r1: how many times the task ran; r2: a later cancel(true) found the future done.
     */
    @JCStressTest
    @Outcome(id = "1, true", expect = ACCEPTABLE, desc = "one run called the task; the future is done")
    @Outcome(id = "0, .*", expect = FORBIDDEN, desc = "neither run called the task")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "both runs called the task")
    @Outcome(id = "1, false", expect = FORBIDDEN, desc = "the task ran but the future is not done")
    @State
    public static class TwoRunsAtOnce {
        final AtomicInteger calls = new AtomicInteger();
        final GroupFuture<Integer> future = new GroupFuture<>(calls::incrementAndGet, null);

        @Actor
        public void waiter() {
            future.run();
        }

        @Actor
        public void worker() {
            future.run();
        }

        @Arbiter
        public void after(IZ_Result r) {
            r.r1 = calls.get();
            r.r2 = !future.cancel(true);
        }
    }
}
