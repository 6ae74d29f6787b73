package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.RejectedExecutionException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * A submission racing shutdown: the task is rejected, or accepted and then run or returned; never
 * dropped. Workers are not started, so an accepted task can only be queued (to run) or returned.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.ShutdownTests.*'}
 */
public final class ShutdownTests {
    private ShutdownTests() {}

    static boolean submit(Engine engine) {
        try {
            engine.execute(() -> {});
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** r1: accepted; r2: returned by shutdownNow. Accepted tasks must come back. */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "accepted, then returned by shutdownNow")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "rejected")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "accepted but neither run nor returned: task lost")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "rejected yet returned: a task the caller never gave")
    @State
    public static class SubmitRacingShutdownNow {
        final Engine engine = ParkingTests.oneWorkerEngine();
        boolean accepted;

        @Actor
        public void submitter() {
            accepted = submit(engine);
        }

        @Actor
        public void stopper(II_Result r) {
            r.r2 = engine.shutdownNow().size();
        }

        @Arbiter
        public void after(II_Result r) {
            r.r1 = accepted ? 1 : 0;
        }
    }

    /**
     * r1: accepted; r2: a worker would exit now. After shutdown() a worker may exit only when every
     * accepted task has been taken, so an accepted, still-queued task keeps the workers.
     */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "accepted: the workers stay to run it")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "rejected: the workers may exit")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "accepted, yet the workers would exit: task stranded")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "rejected, yet something is queued")
    @State
    public static class SubmitRacingShutdown {
        final Engine engine = ParkingTests.oneWorkerEngine();
        boolean accepted;

        @Actor
        public void submitter() {
            accepted = submit(engine);
        }

        @Actor
        public void closer() {
            engine.shutdown();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = accepted;
            r.r2 = engine.mayWorkerExit();
        }
    }
}
