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
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.ZI_Result;

/**
 * S7 of SpareThreads: a block that found no spare (the bound is one, and the one spare is busy)
 * registers a request while the spare comes free (its worker's block ended before it took the
 * assignment, so the release puts it on the idle list). Whatever the order, the request is served
 * by that spare, which is then not idle as well: a request left waiting beside an idle spare is
 * what blocked every thread for good. And the same request racing a spare that leaves after its
 * keep-alive (S4 and S7): either the request gets that spare before it leaves, or it is served by a
 * spare started in the place the leaving one gives back; it never waits while a place is free.
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

    /**
     * S4 and S7 when the spare comes free by leaving: the one spare (the bound is one), idle, reaches
     * its keep-alive (zero here) and leaves, taking itself off the idle list and then giving its place
     * back, while a block that found no spare registers its request, which looks at the idle list
     * and the count. The request is served by the leaving spare if it took it off the idle list
     * first (the spare then stays for that assignment, and leaves once the block has ended it), else
     * by a spare started in the place given back, by whichever of the two sides looks last. The
     * actor {@code leavingSpare} runs the spare's own loop; no thread is started. r1: who served the
     * request (0 nobody, 1 the leaving spare, 2 a new one); r2: spares counted once both are done;
     * r3: spares on the idle list then.
     */
    @JCStressTest
    @Outcome(id = "2, 1, 0", expect = ACCEPTABLE, desc = "a spare started in the place given back serves the request")
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the request took the spare before it left; it left once the block ended")
    @Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "the request waits while the place the spare gave back is free")
    @Outcome(expect = FORBIDDEN, desc = "a spare left behind, counted twice, or past the bound")
    @State
    public static class RequestRacingSpareLeaving {
        final Engine engine = new Engine("jcstress", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true, 1, 0L, new StrideScheduler(), Engine.DEFAULT_QUANTUM_NANOS, 1);
        final SpareThreads spares = engine.spares();
        final SpareThreads.Spare leaving;
        SpareThreads.Request request;

        public RequestRacingSpareLeaving() {
            spares.startThreadsWith(thread -> {});       // no thread runs: the actors play their parts
            leaving = spares.standIn(engine.worker(0));
            leaving.release();                           // not taken: back on the idle list (S5)
            if (spares.idleSpares() != 1 || spares.count() != 1) {
                throw new IllegalStateException("set-up: idle " + spares.idleSpares() + ", count " + spares.count());
            }
        }

        @Actor
        public void leavingSpare() {
            leaving.run();                               // its loop: leaves at once, or first stands in (S4)
        }

        @Actor
        public void blockFindsNoSpare() {
            request = spares.request(engine.worker(0));
            if (request.servedBy == leaving) {           // served here, by this thread: the block ends now
                spares.endRequest(request);              // so that the leaving spare's stand-in ends too
            }
        }

        @Arbiter
        public void after(III_Result r) {
            SpareThreads.Spare served = request.servedBy;
            r.r1 = served == null ? 0 : served == leaving ? 1 : 2;
            r.r2 = spares.count();
            r.r3 = spares.idleSpares();
        }
    }
}
