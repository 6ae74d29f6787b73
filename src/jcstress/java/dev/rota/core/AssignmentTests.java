package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZI_Result;

/**
 * S5: a blocked worker's release racing the spare taking its assignment. Exactly one of them ends
 * the assignment; a spare that takes it sees the worker it was assigned, and the assignment ends
 * free either way once the spare is done.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.AssignmentTests.*'}
 */
public final class AssignmentTests {
    private AssignmentTests() {}

    /** r1: the release took it back; r2: the spare took it; r3: the phase afterwards. */
    @JCStressTest
    @Outcome(id = "true, false, 0", expect = ACCEPTABLE, desc = "released before the spare woke: the release ends it")
    @Outcome(id = "false, true, 0", expect = ACCEPTABLE, desc = "the spare took it and ended it after its work")
    @Outcome(id = "true, true, .*", expect = FORBIDDEN, desc = "ended twice")
    @Outcome(id = "false, false, .*", expect = FORBIDDEN, desc = "ended by nobody: a participant that never exits")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "left in a phase other than FREE")
    @State
    public static class ReleaseRacingTake {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Worker worker = engine.worker(0);
        final Assignment assignment = new Assignment();
        boolean tookBack;
        Worker taken;

        public ReleaseRacingTake() {
            assignment.assign(worker);
        }

        @Actor
        public void blockedWorker() {
            tookBack = assignment.release();
        }

        @Actor
        public void spare() {
            taken = assignment.take();
            if (taken != null) {
                assignment.done();
            }
        }

        @Arbiter
        public void after(ZZI_Result r) {
            r.r1 = tookBack;
            r.r2 = taken == worker;
            r.r3 = assignment.phase();
        }
    }
}
