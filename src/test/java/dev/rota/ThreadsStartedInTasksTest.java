package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Threads and processes that a task starts: on Linux they inherit the pinned worker's one CPU, and
 * {@link RotaPool#runUnpinned} lets them run on every CPU of the process instead, leaving the worker
 * pinned afterwards. Runs where the pool can pin and the process has two CPUs or more.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadsStartedInTasksTest {

    /** The CPUs a thread started now, from the calling thread, may run on. */
    private static BitSet cpusOfANewThread() {
        CompletableFuture<BitSet> cpus = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> cpus.complete(Affinity.system().allowedCpus()));
        return cpus.join();
    }

    @Test
    void threadsStartedInsideRunUnpinnedMayUseEveryCpuOfTheProcess() throws Exception {
        Affinity affinity = Affinity.system();
        BitSet processCpus = affinity.processCpus();
        assumeTrue(processCpus.cardinality() >= 2, "one CPU: nothing to widen");
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            assumeTrue(pool.topology().pinned(), "the pool cannot pin here");

            List<BitSet> seen = pool.submit(() -> {
                BitSet worker = affinity.allowedCpus();
                BitSet inherited = cpusOfANewThread();
                BitSet[] inside = new BitSet[2];
                RotaPool.runUnpinned(() -> {
                    inside[0] = affinity.allowedCpus();
                    inside[1] = cpusOfANewThread();
                });
                return List.of(worker, inherited, inside[0], inside[1], affinity.allowedCpus());
            }).get(30, TimeUnit.SECONDS);

            BitSet worker = seen.get(0);
            assertEquals(1, worker.cardinality(), "a pinned worker");
            assertEquals(worker, seen.get(1), "a thread started in a task inherits the worker's CPU");
            assertEquals(processCpus, seen.get(2), "the worker, inside runUnpinned");
            assertEquals(processCpus, seen.get(3), "a thread started inside runUnpinned");
            assertEquals(worker, seen.get(4), "the worker, pinned again afterwards");
        }
    }

    /** The CPUs a process started now, from the calling thread, may run on, as it reads them itself. */
    private static BitSet cpusOfANewProcess() throws IOException, InterruptedException {
        Process grep = new ProcessBuilder("grep", "Cpus_allowed_list", "/proc/self/status").start();
        String line = new String(grep.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertTrue(grep.waitFor(30, TimeUnit.SECONDS), "grep did not end");
        return CpuList.parse(line.substring(line.indexOf(':') + 1));
    }

    @Test
    void processesStartedInsideRunUnpinnedMayUseEveryCpuOfTheProcess() throws Exception {
        Affinity affinity = Affinity.system();
        BitSet processCpus = affinity.processCpus();
        assumeTrue(processCpus.cardinality() >= 2, "one CPU: nothing to widen");
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "no /proc to read a process's CPUs from");
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            assumeTrue(pool.topology().pinned(), "the pool cannot pin here");

            List<BitSet> seen = pool.submit(() -> {
                BitSet inherited = cpusOfANewProcess();
                BitSet[] inside = new BitSet[1];
                Exception[] failure = new Exception[1];
                RotaPool.runUnpinned(() -> {
                    try {
                        inside[0] = cpusOfANewProcess();
                    } catch (IOException | InterruptedException e) {
                        failure[0] = e;
                    }
                });
                if (failure[0] != null) {
                    throw failure[0];
                }
                return List.of(affinity.allowedCpus(), inherited, inside[0]);
            }).get(30, TimeUnit.SECONDS);

            assertEquals(1, seen.get(0).cardinality(), "a pinned worker");
            assertEquals(seen.get(0), seen.get(1), "a process started in a task inherits the worker's CPU");
            assertEquals(processCpus, seen.get(2), "a process started inside runUnpinned");
        }
    }

    @Test
    void runUnpinnedWidensAnyPinnedThreadAndRestoresItsCpu() throws Exception {
        Affinity affinity = Affinity.system();
        BitSet processCpus = affinity.processCpus();
        assumeTrue(affinity.canPin() && processCpus.cardinality() >= 2, "nothing to pin or widen here");
        int cpu = processCpus.nextSetBit(0);
        CompletableFuture<List<BitSet>> seen = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {                // a thread of no pool, pinned here by the test
            try {
                assertTrue(affinity.pinCurrentThread(cpu).pinned());
                BitSet[] inside = new BitSet[1];
                RotaPool.runUnpinned(() -> inside[0] = affinity.allowedCpus());
                seen.complete(List.of(inside[0], affinity.allowedCpus()));
            } catch (Throwable t) {
                seen.completeExceptionally(t);
            }
        });

        List<BitSet> cpus = seen.get(30, TimeUnit.SECONDS);

        assertEquals(processCpus, cpus.get(0), "inside the action");
        BitSet pinned = new BitSet();
        pinned.set(cpu);
        assertEquals(pinned, cpus.get(1), "pinned to its CPU again afterwards");
    }

    @Test
    void runUnpinnedRestoresTheCpusWhenTheActionThrows() throws Exception {
        assumeTrue(Affinity.system().processCpus().cardinality() >= 2, "one CPU: nothing to widen");
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            assumeTrue(pool.topology().pinned(), "the pool cannot pin here");
            IllegalStateException failure = new IllegalStateException("from the action");

            List<Object> seen = pool.submit(() -> {
                BitSet worker = Affinity.system().allowedCpus();
                Throwable thrown = null;
                try {
                    RotaPool.runUnpinned(() -> {
                        throw failure;
                    });
                } catch (IllegalStateException e) {
                    thrown = e;
                }
                return List.<Object>of(worker, thrown, Affinity.system().allowedCpus());
            }).get(30, TimeUnit.SECONDS);

            assertEquals(failure, seen.get(1));
            assertEquals(1, ((BitSet) seen.get(0)).cardinality(), "a pinned worker");
            assertEquals(seen.get(0), seen.get(2));
        }
    }

    @Test
    void runUnpinnedRefusesNull() {
        assertEquals("action", assertThrows(NullPointerException.class, () -> RotaPool.runUnpinned(null)).getMessage());
    }
}
