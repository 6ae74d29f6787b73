package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZI_Result;

/**
 * S7 of SpareThreads: a block that found no spare (the bound is one, and the one spare is busy)
 * registers a request while the spare comes free (its worker's block ended before it took the
 * assignment, so the release puts it on the idle list). Whatever the order, the request is served
 * by that spare, which is then not idle as well: a request left waiting beside an idle spare is
 * what blocked every thread for good.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.SpareRequestTests.*'}
 */
public final class SpareRequestTests {
    private SpareRequestTests() {}

    /** r1: the request was served by the spare; r2: spares left on the idle list. */
    @JCStressTest
    @Outcome(id = "true, 0", expect = ACCEPTABLE, desc = "the spare that came free serves the request")
    @Outcome(id = "false, 1", expect = FORBIDDEN, desc = "the request waits beside an idle spare")
    @Outcome(id = "true, 1", expect = FORBIDDEN, desc = "the spare serves the request and idles too")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class RequestRacingSpareComingFree {
        final Engine engine = new Engine("jcstress", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true, 1, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS, new StrideScheduler(), Engine.DEFAULT_QUANTUM_NANOS, 1);
        final SpareThreads spares = engine.spares();
        final SpareThreads.Spare spare;
        SpareThreads.Request request;

        public RequestRacingSpareComingFree() {
            spares.startThreadsWith(thread -> {});       // no thread runs: the actors play its parts
            spare = spares.standIn(engine.worker(0));
        }

        @Actor
        public void blockEnds() {
            spare.release();                             // not taken yet: the release frees the spare (S5)
        }

        @Actor
        public void blockFindsNoSpare() {
            request = spares.request(engine.worker(0));
        }

        @Arbiter
        public void after(ZI_Result r) {
            r.r1 = request.servedBy == spare;           // the arbiter runs after both actors
            r.r2 = spares.idleSpares();
        }
    }
}
