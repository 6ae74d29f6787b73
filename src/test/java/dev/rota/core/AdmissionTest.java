package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AdmissionTest {

    @Test
    void acceptsExactlyCapacityThenRefusesAsFull() {
        Admission admission = new Admission(3, 1);
        for (int i = 0; i < 3; i++) {
            assertEquals(Admission.ACCEPTED, admission.admit(0), "reservation " + i);
        }
        assertEquals(Admission.FULL, admission.admit(0));
        assertEquals(3, admission.pending(), "the refused reservation was withdrawn");
    }

    @Test
    void aTakeFreesExactlyOnePlace() {
        Admission admission = new Admission(2, 1);
        admission.admit(0);
        admission.admit(0);
        admission.taken(0, 1);
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.FULL, admission.admit(0));
        assertEquals(2, admission.pending());
    }

    @Test
    void theOwnersTakesAndTheOthersBothFreePlaces() {
        Admission admission = new Admission(3, 1);
        for (int i = 0; i < 3; i++) {
            admission.admit(0);
        }
        admission.takenByOwner(0, 1);
        admission.taken(0, 1);
        assertEquals(1, admission.pending());
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.FULL, admission.admit(0));
        assertEquals(3, admission.pending());
    }

    /** Takes counted by others, by the lane's owner, and by both, in turn. */
    @Test
    void theCachedLimitFollowsTakesOverManyRounds() {
        Admission admission = new Admission(2, 1);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(Admission.ACCEPTED, admission.admit(0), "round " + i);
            assertEquals(Admission.ACCEPTED, admission.admit(0), "round " + i);
            assertEquals(Admission.FULL, admission.admit(0), "round " + i);
            switch (i % 3) {
                case 0 -> admission.taken(0, 2);
                case 1 -> admission.takenByOwner(0, 2);
                default -> {
                    admission.takenByOwner(0, 1);
                    admission.taken(0, 1);
                }
            }
        }
        assertEquals(0, admission.pending());
    }

    @Test
    void closedAdmissionRefusesAndLeavesNothingBehind() {
        Admission admission = new Admission(Group.UNBOUNDED, 1);
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        admission.close();
        assertTrue(admission.isClosed());
        assertEquals(Admission.CLOSED, admission.admit(0));
        assertEquals(1, admission.pending(), "the task accepted before the close still counts");
        admission.taken(0, 1);
        assertEquals(0, admission.pending());
        admission.close();
        assertTrue(admission.isClosed(), "close is idempotent");
    }

    @Test
    void aFullAdmissionThatIsClosedRefusesAsClosed() {
        Admission admission = new Admission(1, 1);
        admission.admit(0);
        assertEquals(Admission.FULL, admission.admit(0));
        admission.close();
        assertEquals(Admission.CLOSED, admission.admit(0), "closed weighs more than full");
        assertEquals(1, admission.pending());
    }

    @Test
    void loweringTheCapacityAppliesToTheNextReservationThoughTheCachedLimitWasHigher() {
        Admission admission = new Admission(100, 1);
        admission.admit(0);
        admission.admit(0);
        admission.setCapacity(2);
        assertEquals(Admission.FULL, admission.admit(0));
        assertEquals(2, admission.capacity());
        admission.setCapacity(1);
        assertEquals(Admission.FULL, admission.admit(0), "tasks above a lowered bound stay; no new ones");
        admission.taken(0, 2);
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.FULL, admission.admit(0));
    }

    @Test
    void raisingTheCapacityMakesRoomAtOnce() {
        Admission admission = new Admission(1, 1);
        admission.admit(0);
        assertEquals(Admission.FULL, admission.admit(0));
        admission.setCapacity(3);
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.FULL, admission.admit(0));
    }

    @Test
    void theBoundHoldsAcrossStripes() {
        Admission admission = new Admission(5, 3);
        int accepted = 0;
        for (int i = 0; i < 9; i++) {
            if (admission.admit(i % 3) == Admission.ACCEPTED) {
                accepted++;
            }
        }
        assertEquals(5, accepted);
        for (int s = 0; s < 3; s++) {
            assertEquals(Admission.FULL, admission.admit(s), "stripe " + s);
        }
        assertEquals(5, admission.pending());
    }

    @Test
    void aPlaceFreedOnOneStripeCanBeTakenThroughAnother() {
        Admission admission = new Admission(2, 2);
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.FULL, admission.admit(1));
        admission.taken(0, 1);
        assertEquals(Admission.ACCEPTED, admission.admit(1), "stripe 0's unused place is reclaimed");
        assertEquals(Admission.FULL, admission.admit(0));
        assertEquals(2, admission.pending());
    }

    @Test
    void aTaskAdmittedPastAFullBoundTakesAPlaceOnEveryStripe() {
        Admission admission = new Admission(3, 2);
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.ACCEPTED, admission.admit(1));
        assertEquals(Admission.ACCEPTED, admission.admit(1));
        assertEquals(Admission.FULL, admission.admit(0));
        assertEquals(Admission.ACCEPTED, admission.admitPastBound(0));
        assertEquals(Admission.ACCEPTED, admission.admitPastBound(1));
        assertEquals(5, admission.pending());
        admission.taken(0, 2);
        assertEquals(Admission.FULL, admission.admit(1), "three pending, capacity three");
        admission.taken(1, 1);
        assertEquals(Admission.ACCEPTED, admission.admit(0), "two pending");
        assertEquals(Admission.FULL, admission.admit(1));
        admission.close();
        assertEquals(Admission.CLOSED, admission.admitPastBound(0));
        assertEquals(3, admission.pending());
    }

    @Test
    void aTaskAdmittedPastTheBoundTakesThePlacesAnotherStripeHoldsUnused() {
        Admission admission = new Admission(4, 2);
        assertEquals(Admission.ACCEPTED, admission.admit(1));   // stripe 1 borrows 2 of the 4 places
        assertEquals(Admission.ACCEPTED, admission.admit(0));   // stripe 0 borrows 1, then the last 1
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.ACCEPTED, admission.admitPastBound(0));
        assertEquals(4, admission.pending());
        assertEquals(Admission.FULL, admission.admit(1), "stripe 1's unused place went to the task past the bound");
        assertEquals(Admission.FULL, admission.admit(0));
    }

    @Test
    void oneStripeCanFillTheWholeCapacity() {
        Admission admission = new Admission(1000, 16);
        for (int i = 0; i < 1000; i++) {
            assertEquals(Admission.ACCEPTED, admission.admit(7), "reservation " + i);
        }
        assertEquals(Admission.FULL, admission.admit(7));
        assertEquals(Admission.FULL, admission.admit(3));
    }

    /**
     * A submission that finds nothing free searches the stripes one after another, while other
     * threads take and reserve on the stripes it has not reached or has passed. Here the queue
     * (capacity 4) never holds more than 3 tasks: between the search's reads of stripes 0 and 1, a
     * worker takes a task of stripe 0 and another submitter fills stripe 1's unused place. Adding
     * what each stripe held when it was read counts the taken task too, 4 in all; refusing on that
     * sum would refuse a submission although the queue was never full while it was made.
     */
    @Test
    void refusesOnlyIfTheQueueWasFullAtOneMomentOfTheSearch() {
        AtomicBoolean armed = new AtomicBoolean();
        AtomicInteger raced = new AtomicInteger(-1);
        Admission[] holder = new Admission[1];
        Admission admission = new Admission(4, 3, stripe -> {
            if (stripe == 0 && armed.compareAndSet(true, false)) {
                holder[0].taken(0, 1);                    // a worker takes a task of stripe 0 ...
                raced.set(holder[0].admit(1));            // ... and a submitter uses stripe 1's unused place
            }
        });
        holder[0] = admission;
        assertEquals(Admission.ACCEPTED, admission.admit(1));  // stripe 1 borrows 2 of the 4 places, uses 1
        assertEquals(Admission.ACCEPTED, admission.admit(0));  // stripe 0 borrows 1, then the last one
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(3, admission.pending());

        armed.set(true);
        int result = admission.admit(2);

        assertEquals(Admission.ACCEPTED, raced.get(), "the racing submitter reserved without the lock");
        assertEquals(Admission.ACCEPTED, result, "3 tasks queued at most, capacity 4");
        assertEquals(4, admission.pending());
        assertEquals(Admission.FULL, admission.admit(2), "and now the queue is full");
    }

    @Test
    void closingClosesEveryStripe() {
        Admission admission = new Admission(Group.UNBOUNDED, 4);
        assertEquals(Admission.ACCEPTED, admission.admit(2));
        admission.close();
        for (int s = 0; s < 4; s++) {
            assertEquals(Admission.CLOSED, admission.admit(s), "stripe " + s);
        }
        assertEquals(1, admission.pending());
    }

    @Test
    void loweringTheCapacityTakesBackWhatStripesHoldUnused() {
        Admission admission = new Admission(100, 2);
        admission.admit(0);
        admission.admit(1);
        admission.setCapacity(3);
        assertEquals(Admission.ACCEPTED, admission.admit(0));
        assertEquals(Admission.FULL, admission.admit(1));
        assertEquals(Admission.FULL, admission.admit(0));
        assertEquals(3, admission.pending());
    }

    /**
     * Single-threaded, the striped admission must behave exactly like one counter: a reservation is
     * accepted if and only if fewer tasks than the capacity are pending, whatever stripes they used,
     * tasks admitted past the bound included.
     */
    @Test
    void behavesLikeOneExactCounterOverRandomOperations() {
        SplittableRandom random = new SplittableRandom(42);
        int stripes = 4;
        for (int trial = 0; trial < 200; trial++) {
            int capacity = 1 + random.nextInt(20);
            Admission admission = new Admission(capacity, stripes);
            long[] pendingPerStripe = new long[stripes];
            long pending = 0;
            for (int step = 0; step < 2_000; step++) {
                int s = random.nextInt(stripes);
                int op = random.nextInt(10);
                if (op < 6) {
                    int result = admission.admit(s);
                    assertEquals(pending < capacity ? Admission.ACCEPTED : Admission.FULL, result,
                            "trial " + trial + " step " + step + ": pending " + pending + ", capacity " + capacity);
                    if (result == Admission.ACCEPTED) {
                        pendingPerStripe[s]++;
                        pending++;
                    }
                } else if (op == 6 && random.nextInt(4) == 0) {
                    assertEquals(Admission.ACCEPTED, admission.admitPastBound(s));
                    pendingPerStripe[s]++;
                    pending++;
                } else if (op < 9) {
                    if (pendingPerStripe[s] > 0) {
                        int n = 1 + random.nextInt((int) pendingPerStripe[s]);
                        admission.taken(s, n);
                        pendingPerStripe[s] -= n;
                        pending -= n;
                    }
                } else if (random.nextInt(10) == 0) {
                    capacity = 1 + random.nextInt(20);
                    admission.setCapacity(capacity);
                }
                assertEquals(pending, admission.pending());
            }
        }
    }

    @Test
    void capacityBelowOneIsRejectedByValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Admission(0, 1));
        assertTrue(e.getMessage().contains("0"), e.getMessage());
        Admission admission = new Admission(1, 1);
        e = assertThrows(IllegalArgumentException.class, () -> admission.setCapacity(-5));
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
        assertEquals(1, admission.capacity(), "a rejected capacity changes nothing");
        e = assertThrows(IllegalArgumentException.class, () -> new Admission(1, 0));
        assertTrue(e.getMessage().contains("0"), e.getMessage());
    }
}
