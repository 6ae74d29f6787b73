package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZI_Result;
import org.openjdk.jcstress.infra.results.ZZI_Result;
import dev.rota.affinity.NoAffinity;

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

    /**
     * S5 when a spare is reused: the first worker's block ends before the spare takes its assignment,
     * the release returns the spare to the idle list, and a second worker assigns it at once. A
     * spare that read the first worker before the release and the phase after the second assignment
     * must not win that assignment in the first worker's name: it would stand in for nobody and end
     * at once, leaving the second worker blocked with no stand-in. r1: the release took it back;
     * r2: whom the spare took (0 nobody, 1 the first worker, 2 the second).
     */
    @JCStressTest
    @Outcome(id = "false, 1", expect = ACCEPTABLE, desc = "the spare took the first worker's assignment before the release")
    @Outcome(id = "true, 0", expect = ACCEPTABLE, desc = "released and reassigned before the spare looked (or it looked too early)")
    @Outcome(id = "true, 2", expect = ACCEPTABLE, desc = "the spare took the second worker's assignment")
    @Outcome(id = "true, 1", expect = FORBIDDEN, desc = "took the second assignment in the first worker's name: the second worker has no stand-in")
    @Outcome(id = "false, 0", expect = FORBIDDEN, desc = "ended by nobody: a participant that never exits")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class TakeRacingReassignment {
        final Engine engine = new Engine("jcstress", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"),
                false, null, true);
        final Worker first = engine.worker(0);
        final Worker second = engine.worker(1);
        final Assignment assignment = new Assignment();

        public TakeRacingReassignment() {
            assignment.assign(first);
        }

        @Actor
        public void blockedWorkers(ZI_Result r) {
            r.r1 = assignment.release();
            if (r.r1) {
                assignment.assign(second);               // the spare went back to the idle list: reused
            }
        }

        @Actor
        public void spare(ZI_Result r) {
            Worker taken = assignment.take();
            r.r2 = taken == null ? 0 : taken == first ? 1 : 2;
        }
    }
}
