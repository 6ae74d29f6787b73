package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZI_Result;

/**
 * Q3 of {@link Engine#isQuiescent()}: a spare that stands in counts as a participant from its
 * assignment until its last task has finished (S3), so a pool whose every worker is PARKED, with
 * nothing queued, is still busy while a spare's task runs. The spare's thread is never started: one
 * actor runs its loop ({@link SpareThreads.Spare#run()}), which takes the one queued task; inside
 * that task, the worker's block ends ({@link SpareThreads.Spare#release()}) and the worker parks
 * ({@link Worker#prepareToPark()}), one order of what the blocked worker does meanwhile on its own
 * thread, and then the task finishes its work. The other actor asks.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.QuiescenceSpareTests.*'}
 */
public final class QuiescenceSpareTests {
    private QuiescenceSpareTests() {}

    /** r1: the pool was found quiescent; r2: the spare's task's last write, read after the answer. */
    @JCStressTest
    @Outcome(id = {"false, 0", "false, 1"}, expect = ACCEPTABLE, desc = "asked while the spare's task ran, or before its participation ended")
    @Outcome(id = "true, 1", expect = ACCEPTABLE, desc = "asked after the spare finished its task and left")
    @Outcome(id = "true, 0", expect = FORBIDDEN, desc = "quiescent while a spare's task still runs (every worker PARKED, nothing queued)")
    @State
    public static class SpareTaskRacingQuiescence {
        final Engine engine = new Engine("jcstress", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true, 1, 0L, new StrideScheduler(), Engine.DEFAULT_QUANTUM_NANOS, 1);
        final Worker worker = engine.worker(0);
        final SpareThreads.Spare spare;
        int written;                                     // plain: the task's last write

        public SpareTaskRacingQuiescence() {
            SpareThreads spares = engine.spares();
            spares.startThreadsWith(thread -> {});       // no thread runs: the actor plays the spare's loop
            spare = spares.standIn(worker);              // the worker blocks in a task; S3: the spare participates
            if (spare == null) {
                throw new IllegalStateException("set-up: no spare");
            }
            engine.execute(() -> {                       // the worker is ACTIVE (blocked): no wake-up
                spare.release();                         // the worker's block ends while this task runs...
                if (!worker.prepareToPark()) {           // ...and the worker finds nothing and parks
                    throw new IllegalStateException("the worker saw work");
                }
                for (int i = 0; i < 64; i++) {
                    Thread.onSpinWait();                 // the rest of the task's work
                }
                written = 1;
            });
        }

        @Actor
        public void spare() {
            spare.run();                                 // takes the assignment, runs the task, leaves (keep-alive 0)
        }

        @Actor
        public void asker(ZI_Result r) {
            r.r1 = engine.isQuiescent();
            r.r2 = written;
        }
    }
}
