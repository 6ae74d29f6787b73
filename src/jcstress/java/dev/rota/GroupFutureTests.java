package dev.rota;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * A waiter claiming a group's future to run it itself (no spare could stand in for it) racing a
 * shutdownNow that drained the future from its queue: exactly one of them has it, so the future is
 * either run by its waiter or handed back as never started, never both and never neither.
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

        @Actor
        public void waiter(ZZ_Result r) {
            r.r1 = future.claimForWaiter();
        }

        @Actor
        public void drain(ZZ_Result r) {
            r.r2 = GroupFuture.settleDrained(future);
        }
    }
}
