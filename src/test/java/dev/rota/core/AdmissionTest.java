package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AdmissionTest {

    @Test
    void acceptsExactlyCapacityThenRefusesAsFull() {
        Admission admission = new Admission(3);
        for (int i = 0; i < 3; i++) {
            assertEquals(Admission.ACCEPTED, admission.admit(), "reservation " + i);
        }
        assertEquals(Admission.FULL, admission.admit());
        assertEquals(3, admission.pending(), "the refused reservation was withdrawn");
    }

    @Test
    void aTakeFreesExactlyOnePlace() {
        Admission admission = new Admission(2);
        admission.admit();
        admission.admit();
        admission.taken(1);
        assertEquals(Admission.ACCEPTED, admission.admit());
        assertEquals(Admission.FULL, admission.admit());
        assertEquals(2, admission.pending());
    }

    @Test
    void theCachedLimitFollowsTakesOverManyRounds() {
        Admission admission = new Admission(2);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(Admission.ACCEPTED, admission.admit(), "round " + i);
            assertEquals(Admission.ACCEPTED, admission.admit(), "round " + i);
            assertEquals(Admission.FULL, admission.admit(), "round " + i);
            admission.taken(2);
        }
        assertEquals(0, admission.pending());
    }

    @Test
    void closedAdmissionRefusesAndLeavesNothingBehind() {
        Admission admission = new Admission(Group.UNBOUNDED);
        assertEquals(Admission.ACCEPTED, admission.admit());
        admission.close();
        assertTrue(admission.isClosed());
        assertEquals(Admission.CLOSED, admission.admit());
        assertEquals(1, admission.pending(), "the task accepted before the close still counts");
        admission.taken(1);
        assertEquals(0, admission.pending());
        admission.close();
        assertTrue(admission.isClosed(), "close is idempotent");
    }

    @Test
    void aFullAdmissionThatIsClosedRefusesAsClosed() {
        Admission admission = new Admission(1);
        admission.admit();
        assertEquals(Admission.FULL, admission.admit());
        admission.close();
        assertEquals(Admission.CLOSED, admission.admit(), "closed weighs more than full");
        assertEquals(1, admission.pending());
    }

    @Test
    void loweringTheCapacityAppliesToTheNextReservationThoughTheCachedLimitWasHigher() {
        Admission admission = new Admission(100);
        admission.admit();
        admission.admit();
        admission.setCapacity(2);
        assertEquals(Admission.FULL, admission.admit());
        assertEquals(2, admission.capacity());
        admission.setCapacity(1);
        assertEquals(Admission.FULL, admission.admit(), "tasks above a lowered bound stay; no new ones");
        admission.taken(2);
        assertEquals(Admission.ACCEPTED, admission.admit());
        assertEquals(Admission.FULL, admission.admit());
    }

    @Test
    void raisingTheCapacityMakesRoomAtOnce() {
        Admission admission = new Admission(1);
        admission.admit();
        assertEquals(Admission.FULL, admission.admit());
        admission.setCapacity(3);
        assertEquals(Admission.ACCEPTED, admission.admit());
        assertEquals(Admission.ACCEPTED, admission.admit());
        assertEquals(Admission.FULL, admission.admit());
    }

    @Test
    void capacityBelowOneIsRejectedByValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Admission(0));
        assertTrue(e.getMessage().contains("0"), e.getMessage());
        Admission admission = new Admission(1);
        e = assertThrows(IllegalArgumentException.class, () -> admission.setCapacity(-5));
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
        assertEquals(1, admission.capacity(), "a rejected capacity changes nothing");
    }
}
