package dev.rota.affinity;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuListTest {

    private static BitSet cpus(int... ids) {
        BitSet set = new BitSet();
        for (int id : ids) {
            set.set(id);
        }
        return set;
    }

    @Test
    void shouldParseNumbersAndRanges() {
        assertEquals(cpus(0, 1, 2, 3, 8, 10, 11), CpuList.parse("0-3,8,10-11"));
        assertEquals(cpus(5), CpuList.parse("5"));
        assertEquals(cpus(7), CpuList.parse("7-7"));
    }

    @Test
    void shouldIgnoreSurroundingWhitespaceAndTheTrailingNewline() {
        assertEquals(cpus(0, 1, 4), CpuList.parse("0-1,4\n"));
        assertEquals(cpus(0, 1, 4), CpuList.parse("\t 0 - 1 , 4 \n"));
    }

    @Test
    void shouldReadEmptyTextAsNoCpus() {
        assertTrue(CpuList.parse("").isEmpty());
        assertTrue(CpuList.parse(" \n").isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "0-", "-3", "3-1", "0,,2", "1,", ",1", "0-3x", "1.5", "0-2-4", "+1",
            "99999999", "2000000"})
    void shouldRejectMalformedTextNamingIt(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuList.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    }

    @Test
    void shouldRejectNull() {
        assertThrows(IllegalArgumentException.class, () -> CpuList.parse(null));
    }

    @Test
    void shouldFormatRunsAsRanges() {
        assertEquals("0-3,8,10-11", CpuList.format(cpus(0, 1, 2, 3, 8, 10, 11)));
        assertEquals("0,2,4", CpuList.format(cpus(0, 2, 4)));
        assertEquals("", CpuList.format(new BitSet()));
    }

    @Test
    void shouldRoundTrip() {
        BitSet set = cpus(1, 2, 3, 7, 64, 65, 1023);
        assertEquals(set, CpuList.parse(CpuList.format(set)));
    }
}
