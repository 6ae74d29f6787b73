package dev.rota.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StressRoundsTest {
    @Test
    void withoutASoakRunsTheFixedRoundsNumberedFromZero() {
        StressRounds rounds = StressRounds.of(3, false);
        int seen = 0;
        while (rounds.another()) {
            assertEquals(seen, rounds.current());
            seen++;
        }
        assertEquals(3, seen);
        assertFalse(rounds.another(), "stays finished");
    }

    @Test
    void soakMinutesAreParsedAndBadValuesNamed() {
        assertEquals(0L, StressRounds.soakNanos(null));
        assertEquals(0L, StressRounds.soakNanos(" "));
        assertEquals(120_000_000_000L, StressRounds.soakNanos(" 2 "));
        IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class,
                () -> StressRounds.soakNanos("ten"));
        assertTrue(notANumber.getMessage().contains("'ten'"), notANumber.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> StressRounds.soakNanos("-1"));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StressRounds.of(0));
    }
}
