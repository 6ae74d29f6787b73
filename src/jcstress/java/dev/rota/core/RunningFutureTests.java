package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.rota.schedule.BlockingFutureTask;
import java.util.concurrent.ForkJoinPool;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZZZ_Result;

/**
 * A {@code cancel(true)} of a future racing its thread's nested run: the interrupt the cancel owes
 * reaches the future's own code exactly once, whether the canceller finds the thread in that code
 * (before the nested run or after it) or misses it and the thread takes the debt after the nested
 * run ({@link RunningFuture}, {@link InterruptOnCancel#takeOwedInterrupt}). The runner goes through
 * the slot's own steps, those of every nested run on a worker or spare.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.RunningFutureTests.*'}
 */
public final class RunningFutureTests {
    private RunningFutureTests() {}

    /**
     * A future that interrupts its runner through a {@link RunningFuture} slot, as a group's
     * future does on a worker.
     */
    static final class SlotFuture extends BlockingFutureTask<Void> {
        final RunningFuture slot = new RunningFuture();
        volatile Thread runner;

        SlotFuture() {
            super(() -> { }, null);
        }

        @Override
        protected boolean interruptsItsRunner() {
            return true;
        }

        @Override
        protected void interruptRunner() {
            Thread thread = runner;
            if (thread != null) {
                slot.interruptIf(this, thread);
            }
        }

        @Override
        protected void block(ForkJoinPool.ManagedBlocker blocker, boolean timed) {
            throw new UnsupportedOperationException("not waited on here");
        }
    }

    /**
     * The runner is in the future's code, leaves it for a nested task and comes back. r1: the
     * interrupt landed in the code before the nested task; r2: the runner took the debt after it
     * (and would interrupt itself); r3: the interrupt landed in the code after it. Each is read on the
     * runner's thread before its actor returns, since that thread runs the next state's actor next.
     * r4: the debt is still owed once both are done, which is right only for a cancel that found the
     * code over. Exactly one of the four.
     */
    @JCStressTest
    @Outcome(id = "true, false, false, false", expect = ACCEPTABLE, desc = "interrupted in the code before the nested task")
    @Outcome(id = "false, true, false, false", expect = ACCEPTABLE, desc = "missed during the nested task, taken after it")
    @Outcome(id = "false, false, true, false", expect = ACCEPTABLE, desc = "interrupted in the code after the nested task")
    @Outcome(id = "false, false, false, true", expect = ACCEPTABLE, desc = "the cancel came after the code was over")
    @Outcome(id = "false, false, false, false", expect = FORBIDDEN, desc = "the cancel's interrupt was taken and lost")
    @Outcome(expect = FORBIDDEN, desc = "the code was interrupted twice for one cancel")
    @State
    public static class CancelRacingNestedRun {
        final SlotFuture future = new SlotFuture();
        boolean beforeNested;
        boolean takenAfterNested;
        boolean afterNested;

        public CancelRacingNestedRun() {
            future.slot.enter(future);
        }

        @Actor
        public void runner() {
            future.runner = Thread.currentThread();
            InterruptOnCancel left = future.slot.leaveForNested(); // as Worker.runHelped starts a nested task
            beforeNested = Thread.interrupted();
            future.slot.returnFromNested(left);          // the nested task has returned
            takenAfterNested = future.takeOwedInterrupt(); // as Engine.afterHelpedTask does first
            future.slot.switchTo(null);                  // the code ends: no interrupt can land after this
            afterNested = Thread.interrupted();          // read here: this thread runs the next state's actor next
        }

        @Actor
        public void canceller() {
            future.cancel(true);
        }

        @Arbiter
        public void after(ZZZZ_Result r) {
            r.r1 = beforeNested;
            r.r2 = takenAfterNested;
            r.r3 = afterNested;
            r.r4 = future.takeOwedInterrupt();
        }
    }

    /**
     * As {@link CancelRacingNestedRun}, but the runner stays in the future's code, after the nested
     * task, until the cancel has returned: the cancel then always comes while the code runs, so its
     * interrupt must reach the code, and a debt still owed once both are done means a canceller that
     * found the thread in the code and interrupted nothing (the debt recorded after the look for the
     * runner rather than before). r1 to r4 as there.
     */
    @JCStressTest
    @Outcome(id = "true, false, false, false", expect = ACCEPTABLE, desc = "interrupted in the code before the nested task")
    @Outcome(id = "false, true, false, false", expect = ACCEPTABLE, desc = "missed during the nested task, taken after it")
    @Outcome(id = "false, false, true, false", expect = ACCEPTABLE, desc = "interrupted in the code after the nested task")
    @Outcome(id = "false, false, false, true", expect = FORBIDDEN, desc = "the cancel found the code and interrupted nothing")
    @Outcome(id = "false, false, false, false", expect = FORBIDDEN, desc = "the cancel's interrupt was taken and lost")
    @Outcome(expect = FORBIDDEN, desc = "the code was interrupted twice for one cancel")
    @State
    public static class CancelDuringTheCode {
        final SlotFuture future = new SlotFuture();
        volatile boolean cancelReturned;
        boolean beforeNested;
        boolean takenAfterNested;
        boolean afterNested;

        public CancelDuringTheCode() {
            future.slot.enter(future);
        }

        @Actor
        public void runner() {
            future.runner = Thread.currentThread();
            InterruptOnCancel left = future.slot.leaveForNested();
            beforeNested = Thread.interrupted();
            future.slot.returnFromNested(left);
            takenAfterNested = future.takeOwedInterrupt();
            while (!cancelReturned) {
                Thread.onSpinWait();                     // still in the code: the cancel comes now or came before
            }
            future.slot.switchTo(null);
            afterNested = Thread.interrupted();
        }

        @Actor
        public void canceller() {
            future.cancel(true);
            cancelReturned = true;
        }

        @Arbiter
        public void after(ZZZZ_Result r) {
            r.r1 = beforeNested;
            r.r2 = takenAfterNested;
            r.r3 = afterNested;
            r.r4 = future.takeOwedInterrupt();
        }
    }

    /** A future that FutureTask's own cancel(true) interrupts, as a scheduled task's is; its code is the state's. */
    static final class PlainFuture extends BlockingFutureTask<Void> {
        PlainFuture(Runnable code) {
            super(code, null);
        }

        @Override
        protected void block(ForkJoinPool.ManagedBlocker blocker, boolean timed) {
            throw new UnsupportedOperationException("not waited on here");
        }
    }

    /**
     * A {@code cancel(true)} of a future that FutureTask interrupts (it does not interrupt its runner
     * itself) racing its code, which runs a nested task as {@code Worker.runHelped} does: a plain
     * future is never in the slot, so the interrupt lands whatever the thread runs, and one that lands
     * during the nested task is cleared at its end ({@link RunningFuture#returnFromNested}). The debt
     * the cancel records before it interrupts is then taken after the nested task
     * ({@code Engine.afterHelpedTask}), so the code is interrupted all the same. A cancel that wins
     * after the code has ended, before FutureTask records its result, interrupts nothing, and need
     * not: FutureTask's own window, which r1 leaves out. r1: the cancel succeeded and had returned
     * while the code still ran; r2: the code ran; r3: the interrupt landed in the code before the
     * nested task; r4: the debt was taken after it (and would interrupt the code); r5: the
     * interrupt landed after the nested task, in the code or before run() returned.
     */
    @JCStressTest
    @Outcome(id = "true, false, false, false, .*", expect = ACCEPTABLE, desc = "cancelled before the code ran (one that found run() begun interrupts it before it returns)")
    @Outcome(id = "true, true, true, .*, .*", expect = ACCEPTABLE, desc = "interrupted in the code before the nested task (the debt may be taken too)")
    @Outcome(id = "true, true, false, true, .*", expect = ACCEPTABLE, desc = "cleared at the nested task's end; the debt taken after it")
    @Outcome(id = "true, true, false, false, true", expect = ACCEPTABLE, desc = "interrupted after the nested task")
    @Outcome(id = "true, true, false, false, false", expect = FORBIDDEN, desc = "the interrupt was cleared by the nested task's end and its debt not found: lost")
    @Outcome(id = "false, true, .*, .*, .*", expect = ACCEPTABLE, desc = "the code ended before the cancel returned, or completed first (a losing cancel(true) may leave a debt)")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class FutureTaskCancelRacingNestedRun {
        final RunningFuture slot = new RunningFuture();  // the running thread's slot, which a plain future never enters
        final PlainFuture future = new PlainFuture(this::code);
        boolean cancelledWhileTheCodeRan;
        boolean ran;
        boolean beforeNested;
        boolean takenAfterNested;
        boolean afterNested;
        volatile boolean codeEnded;

        private void code() {
            ran = true;
            InterruptOnCancel left = slot.leaveForNested(); // as Worker.runHelped starts a nested task
            beforeNested = Thread.interrupted();         // the waiter's own, taken down before the nested task
            for (int i = 0; i < 16; i++) {
                Thread.onSpinWait();                     // the nested task
            }
            slot.returnFromNested(left);                 // clears the interrupts the nested task left
            takenAfterNested = future.takeOwedInterrupt(); // as Engine.afterHelpedTask does first
            afterNested = Thread.interrupted();
            codeEnded = true;
        }

        @Actor
        public void runner() {
            Thread.interrupted();                        // nothing left from an earlier round
            future.run();
            afterNested |= Thread.interrupted();         // FutureTask's interrupt lands before run() returns
        }

        @Actor
        public void canceller() {
            // Read after the cancel returned: false, the cancel won and interrupted while the code ran.
            cancelledWhileTheCodeRan = future.cancel(true) && !codeEnded;
        }

        @Arbiter
        public void after(ZZZZZ_Result r) {
            r.r1 = cancelledWhileTheCodeRan;
            r.r2 = ran;
            r.r3 = beforeNested;
            r.r4 = takenAfterNested;
            r.r5 = afterNested;
        }
    }
}
