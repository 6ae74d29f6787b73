package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdleBackoffTest {

    @Test
    void spinsThenYieldsThenParks() {
        IdleBackoff backoff = new IdleBackoff(3, 2);
        for (int i = 0; i < 3; i++) {
            assertFalse(backoff.idle());
            assertEquals(IdleBackoff.SPINNING, backoff.state());
        }
        for (int i = 0; i < 2; i++) {
            assertFalse(backoff.idle());
            assertEquals(IdleBackoff.YIELDING, backoff.state());
        }
        assertTrue(backoff.idle());
        assertEquals(IdleBackoff.PARKING, backoff.state());
        assertTrue(backoff.idle(), "stays parking until reset");
    }

    @Test
    void everyFourthSpinSearchYields() {
        int yields = 0;
        for (int search = 1; search <= IdleBackoff.DEFAULT_SPINS; search++) {
            if (IdleBackoff.yieldsWhileSpinning(search)) {
                yields++;
                assertEquals(0, search % IdleBackoff.SPIN_YIELD_PERIOD, "search " + search);
            }
        }
        assertEquals(IdleBackoff.DEFAULT_SPINS / IdleBackoff.SPIN_YIELD_PERIOD, yields);
        assertFalse(IdleBackoff.yieldsWhileSpinning(1), "the first search after work pauses, it does not yield");
    }

    @Test
    void resetStartsSpinningAgain() {
        IdleBackoff backoff = new IdleBackoff(1, 0);
        backoff.idle();
        assertTrue(backoff.idle());
        backoff.reset();
        assertFalse(backoff.idle());
        assertEquals(IdleBackoff.SPINNING, backoff.state());
    }

    @Test
    void noSpinsNoYieldsParksAtOnce() {
        assertTrue(new IdleBackoff(0, 0).idle());
    }

    @Test
    void negativeCountsNameTheValue() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new IdleBackoff(-1, 0)).getMessage().contains("-1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new IdleBackoff(0, -5)).getMessage().contains("-5"));
    }
}
