package dev.rota.affinity;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Pins real threads on the machine running the tests; Linux only (tests run with native access). */
class LinuxAffinityTest {
    private Affinity affinity;

    @BeforeEach
    void linuxOnly() {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux"), "needs Linux");
        affinity = Affinity.system();
        assertTrue(affinity.canPin(), affinity.unavailableReason());
        assertEquals("", affinity.unavailableReason());
    }

    /** Runs {@code body} on a fresh platform thread, so that pinning leaves the test's thread alone. */
    private static <T> T onFreshThread(Supplier<T> body) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().start(() -> {
            try {
                result.complete(body.get());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        thread.join(TimeUnit.SECONDS.toMillis(30));
        return result.get(30, TimeUnit.SECONDS);
    }

    @Test
    void shouldPinAFreshThreadToEachAllowedCpu() throws Exception {
        BitSet allowed = affinity.allowedCpus();
        for (int cpu = allowed.nextSetBit(0); cpu >= 0; cpu = allowed.nextSetBit(cpu + 1)) {
            int target = cpu;
            List<Object> seen = onFreshThread(() -> {
                PinResult result = affinity.pinCurrentThread(target);
                return List.of(result, affinity.currentCpu(), affinity.allowedCpus());
            });
            PinResult result = (PinResult) seen.get(0);
            assertTrue(result.pinned(), result.toString());
            assertEquals(new PinResult(target, true, target, ""), result);
            assertEquals(target, seen.get(1), "currentCpu after pinning");
            BitSet only = new BitSet();
            only.set(target);
            assertEquals(only, seen.get(2));
        }
    }

    @Test
    void shouldReportTheAllowedCpusOfProcStatus() {
        BitSet fromProc = NoAffinity.readAllowedList(Path.of("/proc/self/status")).orElseThrow();

        assertEquals(fromProc, affinity.allowedCpus());
    }

    @Test
    void shouldReportTheProcessCpusFromAPinnedThread() throws Exception {
        BitSet process = affinity.processCpus();
        int cpu = process.nextSetBit(0);

        BitSet seen = onFreshThread(() -> {
            assertTrue(affinity.pinCurrentThread(cpu).pinned());
            return affinity.processCpus();
        });

        assertEquals(NoAffinity.readAllowedList(Path.of("/proc/self/status")).orElseThrow(), process);
        assertEquals(process, seen);
    }

    @Test
    void shouldRunOnAnAllowedCpu() {
        int cpu = affinity.currentCpu();

        assertTrue(cpu >= 0 && cpu < 1 << 20, "CPU " + cpu);
    }

    @Test
    void shouldFailNamingTheErrnoForACpuBeyondThePossibleOnes() throws Exception {
        BitSet possible = CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/possible")));
        int beyond = possible.length(); // one past the highest possible CPU

        List<Object> seen = onFreshThread(() -> {
            BitSet before = affinity.allowedCpus();
            PinResult result = affinity.pinCurrentThread(beyond);
            return List.of(result, before, affinity.allowedCpus());
        });

        PinResult result = (PinResult) seen.get(0);
        assertFalse(result.pinned());
        assertEquals(beyond, result.cpu());
        assertEquals(-1, result.observedCpu());
        assertTrue(result.failure().contains("CPU " + beyond), result.failure());
        assertTrue(result.failure().contains("errno 22 (EINVAL)"), result.failure());
        assertEquals(seen.get(1), seen.get(2), "a failed pin leaves the thread's CPUs as they were");
    }

    @Test
    void shouldRefuseNegativeAndHugeCpusWithoutThrowing() throws Exception {
        List<PinResult> results = onFreshThread(() ->
                List.of(affinity.pinCurrentThread(-1), affinity.pinCurrentThread(Integer.MAX_VALUE)));

        for (PinResult result : results) {
            assertFalse(result.pinned());
            assertTrue(result.failure().contains("CPU " + result.cpu()), result.failure());
        }
    }

    @Test
    void shouldRefuseToPinAVirtualThread() throws Exception {
        CompletableFuture<PinResult> result = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> result.complete(affinity.pinCurrentThread(0))).join();

        assertFalse(result.get(30, TimeUnit.SECONDS).pinned());
        assertTrue(result.get().failure().contains("virtual"), result.get().failure());
    }

    @Test
    void shouldKeepWorkingAcrossManyThreads() throws Exception {
        BitSet allowed = affinity.allowedCpus();
        List<Thread> threads = new ArrayList<>();
        List<PinResult> results = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 16; i++) {
            int cpu = nth(allowed, i);
            threads.add(Thread.ofPlatform().start(() -> results.add(affinity.pinCurrentThread(cpu))));
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }

        assertEquals(16, results.size());
        assertTrue(results.stream().allMatch(PinResult::pinned), results.toString());
    }

    private static int nth(BitSet cpus, int index) {
        int[] ids = cpus.stream().toArray();
        return ids[index % ids.length];
    }
}
