package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AdmissionTest {

    /** Reserves like Group.offer: a refused reservation is withdrawn at once. */
    private static int offer(Admission admission) {
        int result = admission.reserve();
        if (result != Admission.ACCEPTED) {
            admission.withdraw();
        }
        return result;
    }

    @Test
    void acceptsExactlyCapacityThenRefusesAsFull() {
        Admission admission = new Admission(3);
        for (int i = 0; i < 3; i++) {
            assertEquals(Admission.ACCEPTED, offer(admission), "reservation " + i);
        }
        assertEquals(Admission.FULL, offer(admission));
        assertEquals(3, admission.pending(), "the refused reservation was withdrawn");
    }

    @Test
    void aTakeFreesExactlyOnePlace() {
        Admission admission = new Admission(2);
        offer(admission);
        offer(admission);
        admission.taken(1);
        assertEquals(Admission.ACCEPTED, offer(admission));
        assertEquals(Admission.FULL, offer(admission));
        assertEquals(2, admission.pending());
    }

    @Test
    void theCachedLimitFollowsTakesOverManyRounds() {
        Admission admission = new Admission(2);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(Admission.ACCEPTED, offer(admission), "round " + i);
            assertEquals(Admission.ACCEPTED, offer(admission), "round " + i);
            assertEquals(Admission.FULL, offer(admission), "round " + i);
            admission.taken(2);
        }
        assertEquals(0, admission.pending());
    }

    @Test
    void closedAdmissionRefusesAndWithdrawalSeesTheClose() {
        Admission admission = new Admission(Group.UNBOUNDED);
        assertEquals(Admission.ACCEPTED, offer(admission));
        admission.close();
        assertTrue(admission.isClosed());
        assertEquals(Admission.CLOSED, admission.reserve());
        assertTrue(admission.withdraw(), "the withdrawal reports the close");
        assertEquals(1, admission.pending(), "the task accepted before the close still counts");
        admission.taken(1);
        assertEquals(0, admission.pending());
        admission.close();
        assertTrue(admission.isClosed(), "close is idempotent");
    }

    @Test
    void aWithdrawalBeforeTheCloseReportsOpen() {
        Admission admission = new Admission(1);
        offer(admission);
        assertEquals(Admission.FULL, admission.reserve());
        assertFalse(admission.withdraw());
    }

    @Test
    void loweringTheCapacityAppliesToTheNextReservationThoughTheCachedLimitWasHigher() {
        Admission admission = new Admission(100);
        offer(admission);
        offer(admission);
        admission.setCapacity(2);
        assertEquals(Admission.FULL, offer(admission));
        assertEquals(2, admission.capacity());
        admission.setCapacity(1);
        assertEquals(Admission.FULL, offer(admission), "tasks above a lowered bound stay; no new ones");
        admission.taken(2);
        assertEquals(Admission.ACCEPTED, offer(admission));
        assertEquals(Admission.FULL, offer(admission));
    }

    @Test
    void raisingTheCapacityMakesRoomAtOnce() {
        Admission admission = new Admission(1);
        offer(admission);
        assertEquals(Admission.FULL, offer(admission));
        admission.setCapacity(3);
        assertEquals(Admission.ACCEPTED, offer(admission));
        assertEquals(Admission.ACCEPTED, offer(admission));
        assertEquals(Admission.FULL, offer(admission));
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
