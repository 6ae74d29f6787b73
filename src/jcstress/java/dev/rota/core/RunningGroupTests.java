package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZ_Result;

/**
 * A group's shutdownNow interrupting a thread that is just leaving that group's work: the
 * interrupt may land only while the thread still runs the group, so that {@link RunningGroup#exit}
 * clears it; it must never land afterwards, on whatever the thread runs next.
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
}
