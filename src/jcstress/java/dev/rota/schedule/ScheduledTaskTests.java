package dev.rota.schedule;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IZZ_Result;

/**
 * A one-shot delayed task's early {@code run()} (its future is a Runnable: T1 and T5 of
 * {@link ScheduledTask}) racing the scheduler's {@link DelayScheduler#shutdownNow()}, which cancels
 * every pending task and returns those that never started: a task whose command ran is never
 * returned as never started, and one returned is cancelled and never runs.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.schedule\.ScheduledTaskTests.*'}
 */
public final class ScheduledTaskTests {
    private ScheduledTaskTests() {}

    /** A sink that is never handed anything here: no timer thread runs. */
    static class NoSink implements DueTaskSink {
        @Override
        public boolean submitDue(Runnable task) {
            throw new AssertionError("no timer runs");
        }

        @Override
        public void schedulerIdle() {}
    }

    /**
     * r1: how many times the command ran; r2: shutdownNow returned the task as never started;
     * r3: the future is cancelled once both are done.
     */
    @JCStressTest
    @Outcome(id = "1, false, false", expect = ACCEPTABLE, desc = "the run came first and completed the task; not returned")
    @Outcome(id = "1, false, true", expect = ACCEPTABLE, desc = "cancelled while its command ran: started, so not returned")
    @Outcome(id = "0, true, true", expect = ACCEPTABLE, desc = "cancelled and returned before the run, which did nothing")
    @Outcome(id = "1, true, .*", expect = FORBIDDEN, desc = "returned as never started, yet its command ran")
    @Outcome(id = "0, false, .*", expect = FORBIDDEN, desc = "neither run nor returned: lost")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class EarlyRunRacingShutdownNow {
        final DelayScheduler scheduler = new DelayScheduler(new NoSink(), "jcstress-timer", runnable -> new Thread(() -> {}));
        int runs;
        final Future<?> future = scheduler.schedule(() -> runs++, 1, TimeUnit.HOURS);
        List<Runnable> returned;

        @Actor
        public void user() {
            ((Runnable) future).run();                   // a one-shot may be run before it is due (T1)
        }

        @Actor
        public void stopper() {
            returned = scheduler.shutdownNow();
        }

        @Arbiter
        public void after(IZZ_Result r) {
            r.r1 = runs;
            r.r2 = returned.contains(future);
            r.r3 = future.isCancelled();
        }
    }
    /**
     * A command with a start claim of its own, as a pool's RotaTask has: it runs only if it takes
     * that claim, whichever call runs it.
     */
    static final class SelfClaimingCommand implements Runnable {
        final AtomicBoolean claimed = new AtomicBoolean();
        int runs;

        @Override
        public void run() {
            if (claimed.compareAndSet(false, true)) {
                runs++;
            }
        }
    }

    /** A sink whose shutdownNow claim of such a command is the command's own claim. */
    static final class ClaimingSink extends NoSink {
        @Override
        public CommandClaim claimUnstartedCommand(Runnable command) {
            return ((SelfClaimingCommand) command).claimed.compareAndSet(false, true)
                    ? CommandClaim.CLAIMED : CommandClaim.TAKEN_ELSEWHERE;
        }
    }

    /**
     * As above, for a command with a start claim of its own: that claim alone decides (the
     * future's start claim does not), so the task is returned exactly when its command never runs.
     * r1: how many times the command ran; r2: returned as never started; r3: the future is done.
     */
    @JCStressTest
    @Outcome(id = "1, false, true", expect = ACCEPTABLE, desc = "the run took the command's claim: not returned, the future completes with it")
    @Outcome(id = "0, true, true", expect = ACCEPTABLE, desc = "shutdownNow took the command's claim: returned, never run")
    @Outcome(id = "1, true, .*", expect = FORBIDDEN, desc = "returned as never started, yet its command ran")
    @Outcome(id = "0, false, .*", expect = FORBIDDEN, desc = "neither run nor returned: lost")
    @Outcome(id = ".*, .*, false", expect = FORBIDDEN, desc = "the future is left pending")
    @State
    public static class EarlyRunOfSelfClaimingCommandRacingShutdownNow {
        final DelayScheduler scheduler = new DelayScheduler(new ClaimingSink(), "jcstress-timer", runnable -> new Thread(() -> {}));
        final SelfClaimingCommand command = new SelfClaimingCommand();
        final Future<?> future = scheduler.schedule(command, 1, TimeUnit.HOURS);
        List<Runnable> returned;

        @Actor
        public void user() {
            ((Runnable) future).run();
        }

        @Actor
        public void stopper() {
            returned = scheduler.shutdownNow();
        }

        @Arbiter
        public void after(IZZ_Result r) {
            r.r1 = command.runs;
            r.r2 = returned.contains(future);
            r.r3 = future.isDone();
        }
    }
}
