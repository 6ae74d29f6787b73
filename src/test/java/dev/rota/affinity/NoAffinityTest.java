package dev.rota.affinity;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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

    /**
     * The kernel cuts a thread's name to 15 bytes, so a name such as "ЖЖЖЖЖЖЖЖ" (two bytes a letter
     * in UTF-8) shows in the {@code Name:} line as bytes that are not UTF-8; the list is still there.
     */
    @Test
    void shouldReadTheAllowedListWhateverBytesTheNameLineHas() throws IOException {
        byte[] cutName = "ЖЖЖЖЖЖЖЖ".getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        content.writeBytes("Name:\t".getBytes(StandardCharsets.US_ASCII));
        content.write(cutName, 0, 15);
        content.writeBytes("\nCpus_allowed_list:\t4-7\n".getBytes(StandardCharsets.US_ASCII));
        Path status = Files.write(dir.resolve("status"), content.toByteArray());

        assertEquals(CpuList.parse("4-7"), new NoAffinity("test", status).allowedCpus());
    }

    @Test
    void shouldReadTheAllowedListOfAThreadWhoseNameTheKernelCutMidCharacter() throws Exception {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux"), "needs Linux");
        Path threadStatus = Path.of("/proc/thread-self/status");
        assumeTrue(Files.isReadable(threadStatus), "needs /proc/thread-self");
        CompletableFuture<Optional<BitSet>> seen = new CompletableFuture<>();
        Thread.ofPlatform().name("ЖЖЖЖЖЖЖЖ").start(() -> seen.complete(NoAffinity.readAllowedList(threadStatus)))
                .join(TimeUnit.SECONDS.toMillis(30));

        Optional<BitSet> allowed = seen.get(30, TimeUnit.SECONDS);
        assertTrue(allowed.isPresent(), "no Cpus_allowed_list read for a thread named ЖЖЖЖЖЖЖЖ");
        assertFalse(allowed.get().isEmpty());
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
