package dev.rota.affinity;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

class NoAffinityTest {
    @TempDir Path dir;

    private Path status(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    @Test
    void shouldReadTheAllowedListFromTheStatusFile() throws IOException {
        Path status = status("status", "Name:\tjava\nCpus_allowed:\t2f\nCpus_allowed_list:\t0-3,5\nMems_allowed:\t1\n");

        assertEquals(CpuList.parse("0-3,5"), new NoAffinity("test", status).allowedCpus());
    }

    @Test
    void shouldTryTheNextStatusFileWhenOneIsMissingOrGarbled() throws IOException {
        Path garbled = status("garbled", "Cpus_allowed_list:\tlots\n");
        Path good = status("good", "Cpus_allowed_list:\t1\n");

        assertEquals(CpuList.parse("1"), new NoAffinity("test", dir.resolve("missing"), garbled, good).allowedCpus());
    }

    @Test
    void shouldFallBackToTheAvailableProcessorsWithoutAStatusFile() {
        BitSet expected = new BitSet();
        expected.set(0, Runtime.getRuntime().availableProcessors());

        assertEquals(expected, new NoAffinity("test", dir.resolve("missing")).allowedCpus());
    }

    @Test
    void shouldRefuseToPinGivingItsReason() {
        NoAffinity none = new NoAffinity("not on Linux");

        assertFalse(none.canPin());
        assertEquals(PinResult.failure(3, "not on Linux"), none.pinCurrentThread(3));
        assertEquals(-1, none.currentCpu());
        assertEquals("not on Linux", none.unavailableReason());
    }

    @Test
    void shouldNeedAReason() {
        assertThrows(IllegalArgumentException.class, () -> new NoAffinity(" "));
        assertThrows(IllegalArgumentException.class, () -> new NoAffinity(null));
    }
}
