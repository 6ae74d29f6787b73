package dev.rota;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The timer of an unpinned pool ({@code pinning(false)}) is started by whichever thread schedules
 * first, and on Linux a new thread inherits its creator's CPU affinity. When that thread is a pinned
 * worker of another pool, the timer must not stay confined to that worker's one CPU: an unpinned
 * pool's threads run on every CPU of the process, as its workers do (Engine.runOnAnyCpu), and the
 * README says the pool's own timer thread widens itself. Observed through
 * {@code /proc/self/task/<tid>/status}, so Linux with pinning only.
 */
class UnpinnedPoolTimerPlacementTest {
    private static final Path TASKS = Path.of("/proc/self/task");

    @Test
    void timerOfAnUnpinnedPoolStartedFromAnotherPoolsPinnedWorkerMayRunOnEveryCpu() throws Exception {
        assumeTrue(Affinity.system().canPin(), Affinity.system().unavailableReason());
        assumeTrue(Files.isDirectory(TASKS), "no " + TASKS);
        BitSet processCpus = Affinity.system().processCpus();
        assumeTrue(processCpus.cardinality() >= 2, "one CPU only: " + CpuList.format(processCpus));
        RotaPool pinned = RotaPool.builder().cpus(processCpus.nextSetBit(0)).name("upt-pinned").build();
        RotaPool unpinned = RotaPool.builder().workers(2).pinning(false).name("upt-free").build();
        try {
            assumeTrue(pinned.topology().pinned(), pinned.topology().toString());

            // The unpinned pool's first schedule call comes from the other pool's pinned worker.
            pinned.submit(() -> unpinned.schedule(() -> { }, 1, TimeUnit.HOURS)).get(30, TimeUnit.SECONDS);

            String timer = "upt-free-timer";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Optional<BitSet> allowed = allowedCpusOf(timer);
            while (!(allowed.isPresent() && containsAll(allowed.get(), processCpus)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
                allowed = allowedCpusOf(timer);
            }
            assertTrue(allowed.isPresent(), "no thread named " + timer);
            assertTrue(containsAll(allowed.get(), processCpus), "timer " + timer + " of an unpinned pool may run on CPUs "
                    + CpuList.format(allowed.get()) + " only (the CPU of the pinned worker that started it), not on every"
                    + " CPU of the process (" + CpuList.format(processCpus) + ")");
        } finally {
            unpinned.shutdownNow();                      // close() would wait an hour for the delayed task
            pinned.shutdownNow();
            assertTrue(unpinned.awaitTermination(30, TimeUnit.SECONDS));
            assertTrue(pinned.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    private static boolean containsAll(BitSet set, BitSet subset) {
        BitSet missing = (BitSet) subset.clone();
        missing.andNot(set);
        return missing.isEmpty();
    }

    /** The allowed CPUs of the live thread with this name, as the kernel lists them. */
    private static Optional<BitSet> allowedCpusOf(String threadName) throws IOException {
        List<Path> tasks;
        try (var listing = Files.list(TASKS)) {
            tasks = listing.toList();
        }
        for (Path task : tasks) {
            try {
                if (!Files.readString(task.resolve("comm")).strip().equals(threadName)) {
                    continue;
                }
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) {
                        return Optional.of(CpuList.parse(line.substring("Cpus_allowed_list:".length()).strip()));
                    }
                }
            } catch (IOException exited) {
                // that thread ended meanwhile
            }
        }
        return Optional.empty();
    }
}
