package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.J_Result;
import org.openjdk.jcstress.infra.results.IJ_Result;

/**
 * The {@link Admission} protocol (A1–A4): one read-modify-write per reservation on a stripe, a limit
 * moved only under the lock, places lent to stripes and reclaimed from them while their submitters
 * reserve, closing in the same word as the count, a pending count read consumers-first, and the lane
 * owner's count of its takes, written with a release store (S2).
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
        final Admission admission = new Admission(1, 1);

        @Actor
        public void first(II_Result r) {
            r.r1 = admission.admit(0);
        }

        @Actor
        public void second(II_Result r) {
            r.r2 = admission.admit(0);
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
        final Admission admission = new Admission(1, 1);

        public ReserveRacingTake() {
            admission.admit(0);                         // the queued task
        }

        @Actor
        public void consumer() {
            admission.taken(0, 1);
        }

        @Actor
        public void submitter(II_Result r) {
            r.r1 = admission.admit(0);
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
        final Admission admission = new Admission(Group.UNBOUNDED, 2);

        @Actor
        public void submitter(II_Result r) {
            r.r1 = admission.admit(1);                    // close must reach every stripe, not just the first
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
     * A2 for a task admitted past the bound (a delayed task coming due) racing close, on a full
     * queue. r1: the result (0 accepted, 2 closed); r2: pending after both (one task was queued).
     */
    @JCStressTest
    @Outcome(id = "0, 2", expect = ACCEPTABLE, desc = "admitted past the bound before the close")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "refused: the close came first")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "accepted but not counted: a shutdown would miss it")
    @Outcome(id = "2, 2", expect = FORBIDDEN, desc = "refused but counted: the group never terminates")
    @State
    public static class PastBoundRacingClose {
        final Admission admission = new Admission(1, 1);

        public PastBoundRacingClose() {
            admission.admit(0);                         // the queue is full
        }

        @Actor
        public void timer(II_Result r) {
            r.r1 = admission.admitPastBound(0);
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
        final Admission admission = new Admission(1, 1);

        public WithdrawRacingClose() {
            admission.admit(0);                           // the queued task: the next admission is refused
        }

        @Actor
        public void submitter(IJ_Result r) {
            r.r1 = admission.admit(0);
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
        final Admission admission = new Admission(Group.UNBOUNDED, 1);

        @Actor
        public void submitterThenWorker() {
            admission.admit(0);
            admission.taken(0, 1);
        }

        @Actor
        public void observer(J_Result r) {
            r.r1 = admission.pending();
        }
    }

    /** A3 across stripes: two submitters on different stripes race for the one place of the queue. */
    @JCStressTest
    @Outcome(id = {"0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "one accepted, the other refused as full")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "both accepted: the bound is exceeded")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "both refused with a free place")
    @State
    public static class TwoStripesForOnePlace {
        final Admission admission = new Admission(1, 2);

        @Actor
        public void first(II_Result r) {
            r.r1 = admission.admit(0);
        }

        @Actor
        public void second(II_Result r) {
            r.r2 = admission.admit(1);
        }
    }

    /**
     * A3 while places are reclaimed: capacity 4, three tasks pending. Stripe 0 holds one unused place
     * that its submitter can take without the lock; stripe 1 is at its quota and nothing is free, so
     * its submitter reclaims stripe 0's unused place. Exactly one of them gets the last place.
     * r1, r2: the submitters' results; r3: pending afterwards.
     */
    @JCStressTest
    @Outcome(id = {"0, 1, 4", "1, 0, 4"}, expect = ACCEPTABLE, desc = "one got the last place")
    @Outcome(id = "0, 0, 5", expect = FORBIDDEN, desc = "both accepted: the reclaimed place was used twice")
    @Outcome(id = "1, 1, 3", expect = FORBIDDEN, desc = "both refused with a free place")
    @State
    public static class ReserveRacingReclaim {
        final Admission admission = new Admission(4, 2);

        public ReserveRacingReclaim() {
            admission.admit(0);                           // lends stripe 0 half of 4: one used, one unused
            admission.admit(1);                           // stripe 1 borrows the rest, one place at a time
            admission.admit(1);
        }

        @Actor
        public void ownerOfTheUnusedPlace(III_Result r) {
            r.r1 = admission.admit(0);
        }

        @Actor
        public void reclaimer(III_Result r) {
            r.r2 = admission.admit(1);
        }

        @Arbiter
        public void after(III_Result r) {
            r.r3 = (int) admission.pending();
        }
    }

    /**
     * A3 with a lowered capacity: two tasks pending on stripe 0, whose quota has room for more, when
     * the capacity is lowered to 2. A reservation that starts after the lowering returned must be
     * refused; one that raced it may be accepted. r1: the reservation (on stripe 0, without the lock
     * if its limit allows); r2: a reservation made after setCapacity returned, on the setter's
     * thread (stripe 1); r3: pending afterwards.
     */
    @JCStressTest
    @Outcome(id = {"0, 1, 3", "1, 1, 2"}, expect = ACCEPTABLE, desc = "the later reservation is refused")
    @Outcome(id = "0, 0, 4", expect = FORBIDDEN, desc = "accepted after the bound was lowered below the pending tasks")
    @Outcome(id = "1, 0, 3", expect = FORBIDDEN, desc = "accepted after the bound was lowered to the pending tasks")
    @State
    public static class ReserveRacingLoweredCapacity {
        final Admission admission = new Admission(8, 2);

        public ReserveRacingLoweredCapacity() {
            admission.admit(0);                           // stripe 0 borrows 4 places
            admission.admit(0);
        }

        @Actor
        public void submitter(III_Result r) {
            r.r1 = admission.admit(0);
        }

        @Actor
        public void lowerer(III_Result r) {
            admission.setCapacity(2);
            r.r2 = admission.admit(1);
        }

        @Arbiter
        public void after(III_Result r) {
            r.r3 = (int) admission.pending();
        }
    }

    /**
     * A3 with the owner's count (S2): as {@link ReserveRacingTake}, the take counted by the lane's own
     * worker with a release store instead of a read-modify-write. r1: the reservation's result; r2:
     * pending afterwards.
     */
    @JCStressTest
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the take came first: accepted into the freed place")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "refused as full, then the task was taken")
    @Outcome(id = "0, 2", expect = FORBIDDEN, desc = "accepted, yet the take is not counted")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "refused, yet its reservation stands")
    @State
    public static class ReserveRacingOwnerTake {
        final Admission admission = new Admission(1, 1);

        public ReserveRacingOwnerTake() {
            admission.admit(0);                         // the queued task
        }

        @Actor
        public void owner() {
            admission.takenByOwner(0, 1);
        }

        @Actor
        public void submitter(II_Result r) {
            r.r1 = admission.admit(0);
        }

        @Arbiter
        public void after(II_Result r) {
            r.r2 = (int) admission.pending();
        }
    }

    /** A1 and A4 with the owner's count: as {@link PendingNeverNegative}, the take counted by the owner. */
    @JCStressTest
    @Outcome(id = {"0", "1"}, expect = ACCEPTABLE, desc = "a consistent count")
    @Outcome(id = "-1", expect = FORBIDDEN, desc = "the owner's take seen without its reservation")
    @State
    public static class PendingNeverNegativeWithOwnerTake {
        final Admission admission = new Admission(Group.UNBOUNDED, 1);

        @Actor
        public void submitterThenOwner() {
            admission.admit(0);
            admission.takenByOwner(0, 1);
        }

        @Actor
        public void observer(J_Result r) {
            r.r1 = admission.pending();
        }
    }

    /**
     * The owner and another worker take from one lane at once, each counting in its own word: both
     * takes count. (An observer between them is {@link PendingNeverNegativeWithOwnerTake}; a third
     * actor would not run on a machine of two CPUs.) r1: pending after both.
     */
    @JCStressTest
    @Outcome(id = "0", expect = ACCEPTABLE, desc = "both takes counted")
    @Outcome(expect = FORBIDDEN, desc = "a take lost")
    @State
    public static class OwnerAndOtherTakeTogether {
        final Admission admission = new Admission(2, 1);

        public OwnerAndOtherTakeTogether() {
            admission.admit(0);
            admission.admit(0);
        }

        @Actor
        public void owner() {
            admission.takenByOwner(0, 1);
        }

        @Actor
        public void other() {
            admission.taken(0, 1);
        }

        @Arbiter
        public void after(J_Result r) {
            r.r1 = admission.pending();
        }
    }
}
