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
}
