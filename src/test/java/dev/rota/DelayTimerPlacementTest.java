package dev.rota;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The timer thread of a pool is started by whichever thread schedules first. On Linux a new thread
 * inherits its creator's CPU affinity, so a timer started from a pinned worker would stay pinned to
 * that worker's CPU and compete with it for every wake-up. The timer must run on any of the pool's
 * CPUs. Observed through {@code /proc/self/task/<tid>/status}, so Linux with pinning only.
 */
class DelayTimerPlacementTest {
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final AtomicInteger POOLS = new AtomicInteger();

    @Test
    void timerStartedFromAPinnedWorkerMayRunOnEveryCpuOfThePool() throws Exception {
        assumeTrue(Affinity.system().canPin(), Affinity.system().unavailableReason());
        assumeTrue(Files.isDirectory(TASKS), "no " + TASKS);
        String name = "tp" + POOLS.incrementAndGet();   // the kernel keeps 15 characters of a thread name
        RotaPool pool = RotaPool.builder().workers(2).name(name).build();
        try {
            assumeTrue(pool.topology().pinned(), pool.topology().toString());
            BitSet poolCpus = new BitSet();
            pool.topology().workers().forEach(w -> poolCpus.set(w.cpu()));
            assumeTrue(poolCpus.cardinality() >= 2, "the pool's workers share one CPU: " + pool.topology());

            // The first schedule call of the pool comes from one of its pinned workers.
            pool.submit(() -> pool.schedule(() -> { }, 1, TimeUnit.HOURS)).get(30, TimeUnit.SECONDS);

            assertTimerMayRunOn(name + "-timer", poolCpus, "every CPU of its pool");
        } finally {
            pool.shutdownNow();                          // close() would wait an hour for the delayed task
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /**
     * The same for an unpinned pool ({@code pinning(false)}), whose threads run on every CPU of the
     * process, as its workers do: its timer, started from a pinned worker of another pool, must not
     * stay confined to that worker's one CPU.
     */
    @Test
    void timerOfAnUnpinnedPoolStartedFromAnotherPoolsPinnedWorkerMayRunOnEveryCpu() throws Exception {
        assumeTrue(Affinity.system().canPin(), Affinity.system().unavailableReason());
        assumeTrue(Files.isDirectory(TASKS), "no " + TASKS);
        BitSet processCpus = Affinity.system().processCpus();
        assumeTrue(processCpus.cardinality() >= 2, "one CPU only: " + CpuList.format(processCpus));
        String name = "tp" + POOLS.incrementAndGet();
        RotaPool pinned = RotaPool.builder().cpus(processCpus.nextSetBit(0)).name(name + "-pinned").build();
        RotaPool unpinned = RotaPool.builder().workers(2).pinning(false).name(name).build();
        try {
            assumeTrue(pinned.topology().pinned(), pinned.topology().toString());

            // The unpinned pool's first schedule call comes from the other pool's pinned worker.
            pinned.submit(() -> unpinned.schedule(() -> { }, 1, TimeUnit.HOURS)).get(30, TimeUnit.SECONDS);

            assertTimerMayRunOn(name + "-timer", processCpus, "every CPU of the process, as an unpinned pool's");
        } finally {
            unpinned.shutdownNow();                      // close() would wait an hour for the delayed task
            pinned.shutdownNow();
            assertTrue(unpinned.awaitTermination(30, TimeUnit.SECONDS));
            assertTrue(pinned.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /** Waits up to 10 s for the thread {@code timer} to be allowed on every CPU of {@code cpus}. */
    private static void assertTimerMayRunOn(String timer, BitSet cpus, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Optional<BitSet> allowed = allowedCpusOf(timer);
        while (!(allowed.isPresent() && containsAll(allowed.get(), cpus)) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            allowed = allowedCpusOf(timer);
        }
        assertTrue(allowed.isPresent(), "no thread named " + timer);
        assertTrue(containsAll(allowed.get(), cpus), "timer " + timer + " may run on CPUs "
                + CpuList.format(allowed.get()) + " only, not on " + what + " (" + CpuList.format(cpus) + ")");
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
