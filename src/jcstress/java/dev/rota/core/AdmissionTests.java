package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.J_Result;
import org.openjdk.jcstress.infra.results.IJ_Result;

/**
 * The {@link Admission} protocol (A1–A4): one read-modify-write per reservation, a cached limit,
 * closing in the same word, and a pending count read consumers-first.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.AdmissionTests.*'}
 */
public final class AdmissionTests {
    private AdmissionTests() {}

    /** A3: two submitters race for the last free place of a queue of capacity 1: exactly one gets it. */
    @JCStressTest
    @Outcome(id = {"0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "one accepted, the other refused as full")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "both accepted: the bound is exceeded")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "both refused with a free place")
    @State
    public static class TwoReserversForOnePlace {
        final Admission admission = new Admission(1);

        @Actor
        public void first(II_Result r) {
            r.r1 = admission.admit();
        }

        @Actor
        public void second(II_Result r) {
            r.r2 = admission.admit();
        }
    }

    /**
     * A3 with the cached limit: the queue (capacity 1) is full, and a consumer takes its task while
     * a submitter reserves. A refusal is allowed only if the take came later; an acceptance only if
     * it came first. r1: the reservation's result; r2: pending afterwards.
     */
    @JCStressTest
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the take came first: accepted into the freed place")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "refused as full, then the task was taken")
    @Outcome(id = "0, 2", expect = FORBIDDEN, desc = "accepted, yet the take is not counted")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "refused, yet its reservation stands")
    @State
    public static class ReserveRacingTake {
        final Admission admission = new Admission(1);

        public ReserveRacingTake() {
            admission.admit();                         // the queued task
        }

        @Actor
        public void consumer() {
            admission.taken(1);
        }

        @Actor
        public void submitter(II_Result r) {
            r.r1 = admission.admit();
        }

        @Arbiter
        public void after(II_Result r) {
            r.r2 = (int) admission.pending();
        }
    }

    /**
     * A2: a reservation racing close. r1: the result (0 accepted, 2 closed); r2: pending after both.
     * An accepted task is pending; a refused one has left nothing behind.
     */
    @JCStressTest
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "reserved before the close")
    @Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "refused: the close came first")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "accepted but not counted: a shutdown would miss it")
    @Outcome(id = "2, 1", expect = FORBIDDEN, desc = "refused but counted: the group never terminates")
    @State
    public static class ReserveRacingClose {
        final Admission admission = new Admission(Group.UNBOUNDED);

        @Actor
        public void submitter(II_Result r) {
            r.r1 = admission.admit();
        }

        @Actor
        public void closer() {
            admission.close();
        }

        @Arbiter
        public void after(II_Result r) {
            r.r2 = (int) admission.pending();
        }
    }

    /**
     * The withdrawal half of G3: a submitter refused as full withdraws while a stopper closes and
     * then looks at what is pending (one task is queued). Either the submitter's withdrawal sees the
     * close (it is refused as CLOSED and asks the dispatcher to look again) or the stopper's look no
     * longer counts the reservation; never neither, which would leave a shut-down group that nothing
     * terminates. r1: the submitter's result (1 full, 2 closed); r2: pending as the stopper saw it.
     */
    @JCStressTest
    @Outcome(id = {"2, 1", "2, 2"}, expect = ACCEPTABLE, desc = "the submitter saw the close: it asks for another look")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the stopper saw the withdrawal")
    @Outcome(id = "1, 2", expect = FORBIDDEN, desc = "neither saw the other: termination is missed")
    @State
    public static class WithdrawRacingClose {
        final Admission admission = new Admission(1);

        public WithdrawRacingClose() {
            admission.admit();                           // the queued task: the next admission is refused
        }

        @Actor
        public void submitter(IJ_Result r) {
            r.r1 = admission.admit();
        }

        @Actor
        public void stopper(IJ_Result r) {
            admission.close();
            r.r2 = admission.pending();
        }
    }

    /**
     * A1 and A4: pending is never negative, though a worker may count the take of a task reserved
     * after the observer began to look. One actor is a submitter whose task a worker takes at once
     * (reserve, then count the take); the other reads pending.
     */
    @JCStressTest
    @Outcome(id = {"0", "1"}, expect = ACCEPTABLE, desc = "a consistent count")
    @Outcome(id = "-1", expect = FORBIDDEN, desc = "taken read after admitted: a take counted without its reservation")
    @State
    public static class PendingNeverNegative {
        final Admission admission = new Admission(Group.UNBOUNDED);

        @Actor
        public void submitterThenWorker() {
            admission.admit();
            admission.taken(1);
        }

        @Actor
        public void observer(J_Result r) {
            r.r1 = admission.pending();
        }
    }
}
