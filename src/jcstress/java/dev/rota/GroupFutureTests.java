package dev.rota;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * A waiter claiming a group's future to run it itself (no spare could stand in for it) racing a
 * shutdownNow that drained the future from its queue: exactly one of them has it, so the future is
 * either run by its waiter or handed back as never started, never both and never neither. And the
 * submitter's mark that the group accepted the future racing such a drain.
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
}
