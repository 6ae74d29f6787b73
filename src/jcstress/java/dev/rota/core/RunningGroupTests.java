package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * A group's shutdownNow interrupting a thread that is just leaving that group's work: the
 * interrupt may land only while the thread still runs the group, so that {@link RunningGroup#exit}
 * clears it; it must never land afterwards, on whatever the thread runs next. The same holds for a
 * thread that leaves the group for another ({@link RunningGroup#switchTo}, a task of another group
 * run inside a waiting one).
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.RunningGroupTests.*'}
 */
public final class RunningGroupTests {
    private RunningGroupTests() {}

    /**
     * r1: the interrupter found the runner's thread (and so may have interrupted it); r2: the runner
     * was interrupted right after exit; r3: it is interrupted once both are done.
     */
    @JCStressTest
    @Outcome(id = "false, false, false", expect = ACCEPTABLE, desc = "the interrupter came before the runner was known")
    @Outcome(id = "true, false, false", expect = ACCEPTABLE, desc = "interrupted in time, or found the group gone")
    @Outcome(id = ".*, true, .*", expect = FORBIDDEN, desc = "exit did not clear an interrupt meant for the group")
    @Outcome(id = ".*, false, true", expect = FORBIDDEN, desc = "an interrupt landed after the thread left the group")
    @State
    public static class InterruptRacingExit {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group group = engine.defaultGroup();
        final RunningGroup running = new RunningGroup();
        volatile Thread runner;
        boolean found;
        boolean interruptedAfterExit;

        public InterruptRacingExit() {
            running.enter(group);
        }

        @Actor
        public void runner() {
            runner = Thread.currentThread();
            running.exit(group);
            interruptedAfterExit = Thread.currentThread().isInterrupted();
        }

        @Actor
        public void interrupter() {
            Thread thread = runner;
            if (thread != null) {
                found = true;
                running.interruptIf(group, thread);
            }
        }

        @Arbiter
        public void after(ZZZ_Result r) {
            r.r1 = found;
            r.r2 = interruptedAfterExit;
            r.r3 = runner.isInterrupted();
        }
    }

    /**
     * r1: the switch returned the group left; r2: the runner is interrupted once both are done,
     * after it took down, right after the switch, whatever had landed by then.
     */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "interrupted in time, found the group gone, or came first")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "an interrupt for the group left landed after the switch")
    @Outcome(id = "false, .*", expect = FORBIDDEN, desc = "the switch did not return the group left")
    @State
    public static class InterruptRacingSwitch {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group left = engine.defaultGroup();
        final Group entered = engine.dispatcher().newGroup("entered", engine.dispatcher().baseCurrency(), 100,
                Group.UNBOUNDED, 16);
        final RunningGroup running = new RunningGroup();
        volatile Thread runnerThread;
        boolean returnedLeft;

        public InterruptRacingSwitch() {
            running.enter(left);
        }

        @Actor
        public void runner() {
            runnerThread = Thread.currentThread();
            returnedLeft = running.switchTo(entered) == left;
            Thread.interrupted();
        }

        @Actor
        public void interrupter() {
            Thread thread = runnerThread;
            if (thread != null) {
                running.interruptIf(left, thread);
            }
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = returnedLeft;
            r.r2 = runnerThread.isInterrupted();
        }
    }
}
