package dev.rota;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.IZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Completion of a {@link RotaTask} racing a waiter and racing cancel.
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
}
