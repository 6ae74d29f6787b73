package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZI_Result;

/**
 * {@link Engine#isQuiescent()} racing a worker that runs the pool's last task and parks (Q1): an
 * answer of true must come after the task, with the task's plain write visible. The worker's thread
 * is never started; one actor plays its duty cycle ({@link Worker#runOneTask()}, then
 * {@link Worker#prepareToPark()}), the other asks.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.QuiescenceTests.*'}
 */
public final class QuiescenceTests {
    private QuiescenceTests() {}

    /** r1: the pool was found quiescent; r2: the task's write, read after the answer. */
    @JCStressTest
    @Outcome(id = "false, 0", expect = ACCEPTABLE, desc = "asked while the task was queued or running")
    @Outcome(id = "false, 1", expect = ACCEPTABLE, desc = "asked before the worker parked, read after the task")
    @Outcome(id = "true, 1", expect = ACCEPTABLE, desc = "asked after the worker ran the task and parked")
    @Outcome(id = "true, 0", expect = FORBIDDEN, desc = "quiescent, yet the task's write is not seen")
    @State
    public static class LastTaskRacingQuiescence {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Worker worker = engine.worker(0);
        int written;                                     // plain: visible only through Q1

        public LastTaskRacingQuiescence() {
            engine.execute(() -> written = 1);
        }

        @Actor
        public void worker() {
            if (!worker.runOneTask()) {
                throw new IllegalStateException("set-up: no task found");
            }
            worker.prepareToPark();
        }

        @Actor
        public void asker(ZI_Result r) {
            r.r1 = engine.isQuiescent();
            r.r2 = written;
        }
    }
}
