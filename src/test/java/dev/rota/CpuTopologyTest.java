package dev.rota;

import dev.rota.CpuTopology.Cpu;
import dev.rota.CpuTopology.WorkerPlacement;
import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import dev.rota.affinity.FakeSysfs;
import dev.rota.affinity.NoAffinity;
import dev.rota.affinity.SysfsTopologyReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CpuTopologyTest {
    @TempDir Path dir;

    private CpuTopology twoSockets(String allowed) throws IOException {
        FakeSysfs sysfs = FakeSysfs.twoSocketsSmt(dir);
        return CpuTopology.of(new SysfsTopologyReader(sysfs.cpuRoot(), CpuList.parse(allowed)).read());
    }

    /** 16 CPUs: cores of 2 threads (2k, 2k+1), last-level caches of 4 CPUs, packages of 8. */
    private static CpuTopology cachesSmallerThanPackages() {
        return CpuTopology.of(IntStream.range(0, 16)
                .mapToObj(id -> new Cpu(id, (id % 8) / 2, id / 8, id / 8, id / 4 * 4, List.of(id ^ 1)))
                .toList());
    }

    private static int packageOf(int cpu) {
        return (cpu % 8) / 4; // in twoSockets()
    }

    private static int coreOf(int cpu) {
        return cpu % 8; // in twoSockets(): the core's first thread
    }

    @Test
    void shouldGroupTwoSocketsIntoCoresPackagesAndNodes() throws IOException {
        CpuTopology topology = twoSockets("0-15");

        assertEquals(16, topology.cpus().size());
        assertEquals(8, topology.cores().size());
        assertEquals(List.of(0, 8), topology.cores().getFirst().stream().map(Cpu::id).toList());
        assertEquals(List.of(7, 15), topology.cores().getLast().stream().map(Cpu::id).toList());
        assertEquals(List.of(0, 1), topology.packages());
        assertEquals(List.of(0, 1), topology.numaNodes());
        assertEquals(4, topology.cpu(13).llcId());
        assertEquals(List.of(5), topology.cpu(13).smtSiblings());
    }

    @Test
    void shouldSpreadOverDistinctCoresBalancingPackagesBeforeSiblings() throws IOException {
        CpuTopology topology = twoSockets("0-15");

        for (int n = 1; n <= 16; n++) {
            int[] cpus = topology.spread(n);
            assertEquals(n, cpus.length);
            assertEquals(n, Arrays.stream(cpus).distinct().count(), "distinct CPUs for n=" + n);
            long cores = Arrays.stream(cpus).map(CpuTopologyTest::coreOf).distinct().count();
            assertEquals(Math.min(n, 8), cores, "distinct cores before any second thread, n=" + n);
            long onFirst = Arrays.stream(cpus).filter(c -> packageOf(c) == 0).count();
            assertTrue(Math.abs(onFirst - (n - onFirst)) <= 1,
                    "packages balanced for n=" + n + ": " + Arrays.toString(cpus));
        }
        assertArrayEquals(new int[] {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}, topology.spread(16));
    }

    @Test
    void shouldWrapAroundInTheSameOrderPastTheAllowedCpus() throws IOException {
        CpuTopology topology = twoSockets("0-15");

        int[] twenty = topology.spread(20);

        assertArrayEquals(topology.spread(16), Arrays.copyOf(twenty, 16));
        assertArrayEquals(topology.spread(4), Arrays.copyOfRange(twenty, 16, 20));
    }

    @Test
    void shouldBalancePackagesWithUnevenAllowedCores() throws IOException {
        // Package 0 keeps cores 0-3 (both threads), package 1 only core 4 and the lone thread 13.
        CpuTopology topology = twoSockets("0-4,8-13");

        assertArrayEquals(new int[] {0, 4, 1, 13, 2, 3, 8, 12, 9, 10, 11}, topology.spread(11));
    }

    @Test
    void shouldRejectANegativeSiblingNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CpuTopology.of(List.of(new Cpu(0, 0, 0, 0, 0, List.of(-3)))).toString());
        assertTrue(e.getMessage().contains("-3"), e.getMessage());
    }

    @Test
    void shouldRejectSpreadingFewerThanOneNamingIt() throws IOException {
        CpuTopology topology = twoSockets("0-15");

        assertTrue(assertThrows(IllegalArgumentException.class, () -> topology.spread(0)).getMessage().contains("0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> topology.spread(-3)).getMessage().contains("-3"));
    }

    @Test
    void shouldStealFromSiblingThenCacheThenPackageThenTheRest() {
        CpuTopology topology = cachesSmallerThanPackages();
        int[] workerCpus = IntStream.range(0, 16).toArray();

        assertArrayEquals(new int[] {4, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15},
                topology.stealOrder(5, workerCpus));
        assertArrayEquals(new int[] {15, 12, 13, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7},
                topology.stealOrder(14, workerCpus));
    }

    @Test
    void shouldStealFromTheSiblingThenTheSharedCacheOnTwoSockets() throws IOException {
        CpuTopology topology = twoSockets("0-15");
        int[] workerCpus = topology.spread(16); // worker i runs on workerCpus[i]

        int[] order = topology.stealOrder(0, workerCpus); // worker 0 is on CPU 0
        int[] victimCpus = Arrays.stream(order).map(w -> workerCpus[w]).toArray();

        assertEquals(8, victimCpus[0], "the SMT sibling first");
        assertEquals(Set.of(1, 2, 3, 9, 10, 11), cpuSet(Arrays.copyOfRange(victimCpus, 1, 7)));
        assertEquals(Set.of(4, 5, 6, 7, 12, 13, 14, 15), cpuSet(Arrays.copyOfRange(victimCpus, 7, 15)));
    }

    @Test
    void shouldStealFirstFromWorkersOnTheSameCpu() {
        CpuTopology topology = cachesSmallerThanPackages();

        assertArrayEquals(new int[] {2, 3, 1}, topology.stealOrder(0, new int[] {4, 9, 4, 5}));
    }

    @Test
    void shouldStartEachWorkerAtADifferentVictimWithoutTopology() {
        CpuTopology flat = CpuTopology.flat(CpuList.parse("0-3"));
        int[] workerCpus = {0, 1, 2, 3};

        assertArrayEquals(new int[] {1, 2, 3}, flat.stealOrder(0, workerCpus));
        assertArrayEquals(new int[] {2, 3, 0}, flat.stealOrder(1, workerCpus));
        assertArrayEquals(new int[] {0, 1, 2}, flat.stealOrder(3, workerCpus));
    }

    @Test
    void shouldListEveryOtherWorkerExactlyOnce() throws IOException {
        CpuTopology topology = twoSockets("0-15");
        int[] workerCpus = topology.spread(20);

        for (int self = 0; self < workerCpus.length; self++) {
            int[] order = topology.stealOrder(self, workerCpus);
            int me = self;
            assertEquals(IntStream.range(0, 20).filter(w -> w != me).boxed().toList(),
                    Arrays.stream(order).sorted().boxed().toList());
        }
    }

    @Test
    void workersSharingACpuShareOneOrderOfEveryWorkerNearestFirst() {
        CpuTopology topology = cachesSmallerThanPackages();
        int[] workerCpus = {4, 9, 4, 5, 9};

        // CPU 4: itself (workers 0, 2), its sibling CPU 5 (worker 3), then CPU 9 in the next package.
        assertArrayEquals(new int[] {0, 2, 3, 1, 4}, topology.sharedStealOrder(4, workerCpus));
        assertArrayEquals(new int[] {1, 4, 0, 2, 3}, topology.sharedStealOrder(9, workerCpus));
    }

    @Test
    void aPoolOfManyMoreWorkersThanCpusRunsEveryTask() throws Exception {
        CpuTopology twoCpus = CpuTopology.flat(CpuList.parse("0-1"));
        try (RotaPool pool = RotaPool.builder().workers(512).pinning(false)
                .platform(new NoAffinity("test"), twoCpus).build()) {
            LongAdder ran = new LongAdder();
            for (int i = 0; i < 10_000; i++) {
                pool.execute(ran::increment);
            }
            assertEquals(Long.valueOf(1L << 16), pool.invoke(new Count(0, 1 << 16)));
            pool.shutdown();
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS), "the pool did not terminate");
            assertEquals(10_000, ran.sum());
        }
    }

    /** Leaves of a fork tree, counted: forks of a worker shared by one order are stolen by its CPU's others. */
    private static final class Count extends RotaTask<Long> {
        private final int from;
        private final int to;

        Count(int from, int to) {
            this.from = from;
            this.to = to;
        }

        @Override
        protected Long compute() {
            if (to - from <= 64) {
                return (long) (to - from);
            }
            int middle = (from + to) >>> 1;
            Count left = new Count(from, middle);
            left.fork();
            return new Count(middle, to).compute() + left.join();
        }
    }

    @Test
    void shouldRejectBadStealArgumentsNamingThem() {
        CpuTopology topology = cachesSmallerThanPackages();

        String self = assertThrows(IllegalArgumentException.class,
                () -> topology.stealOrder(3, new int[] {0, 1})).getMessage();
        assertTrue(self.contains("3"), self);
        String cpu = assertThrows(IllegalArgumentException.class,
                () -> topology.stealOrder(0, new int[] {0, 40})).getMessage();
        assertTrue(cpu.contains("CPU 40"), cpu);
    }

    @Test
    void shouldHideOfflineAndDisallowedCpus() throws IOException {
        Files.writeString(FakeSysfs.twoSocketsSmt(dir).cpuRoot().resolve("online"), "0-5,7-15\n");
        CpuTopology topology = CpuTopology.of(new SysfsTopologyReader(new FakeSysfs(dir).cpuRoot(),
                CpuList.parse("0-3,5-7,12")).read());

        assertEquals(List.of(0, 1, 2, 3, 5, 7, 12), topology.cpus().stream().map(Cpu::id).toList());
        assertTrue(topology.isAllowed(5));
        assertFalse(topology.isAllowed(4), "not allowed");
        assertFalse(topology.isAllowed(6), "offline");
        assertFalse(topology.isAllowed(-1));
        for (int missing : new int[] {4, 6, 16}) {
            String message = assertThrows(IllegalArgumentException.class, () -> topology.cpu(missing)).getMessage();
            assertTrue(message.contains("CPU " + missing), message);
            assertTrue(message.contains("0-3,5,7,12"), message);
        }
        assertEquals(Set.of(0, 1, 2, 3, 5, 7, 12), cpuSet(topology.spread(7)));
    }

    @Test
    void shouldTreatEveryCpuAsItsOwnCoreWhenNothingIsKnown() throws IOException {
        new FakeSysfs(dir).write("cpu0/uevent", "");
        CpuTopology topology = CpuTopology.of(new SysfsTopologyReader(new FakeSysfs(dir).cpuRoot(),
                CpuList.parse("0-3")).read());

        assertEquals(CpuTopology.flat(CpuList.parse("0-3")).cpus(), topology.cpus());
        assertEquals(4, topology.cores().size());
        assertEquals(List.of(-1), topology.packages());
        assertArrayEquals(new int[] {0, 1, 2, 3, 0}, topology.spread(5));
    }

    @Test
    void shouldSortCpusAndRejectDuplicates() {
        Cpu two = new Cpu(2, -1, -1, -1, -1, List.of());
        Cpu zero = new Cpu(0, -1, -1, -1, -1, List.of());

        assertEquals(List.of(zero, two), CpuTopology.of(List.of(two, zero)).cpus());
        String message = assertThrows(IllegalArgumentException.class,
                () -> CpuTopology.of(List.of(two, zero, two))).getMessage();
        assertTrue(message.contains("CPU 2"), message);
    }

    /** Null input is refused at once, naming the parameter or the index of the null element. */
    @Test
    void shouldRejectNullCpusNamingThem() {
        Cpu zero = new Cpu(0, -1, -1, -1, -1, List.of());

        assertEquals("cpus", assertThrows(NullPointerException.class, () -> CpuTopology.of(null)).getMessage());
        assertEquals("cpus[1]", assertThrows(NullPointerException.class,
                () -> CpuTopology.of(Arrays.asList(zero, null))).getMessage());
        assertEquals("smtSiblings", assertThrows(NullPointerException.class,
                () -> new Cpu(0, -1, -1, -1, -1, null)).getMessage());
        assertEquals("smtSiblings[0]", assertThrows(NullPointerException.class,
                () -> new Cpu(0, -1, -1, -1, -1, Arrays.asList(null, 1))).getMessage());
    }

    @Test
    void shouldRestrictToChosenCpus() throws IOException {
        CpuTopology topology = twoSockets("0-15");

        CpuTopology chosen = topology.restrictTo(4, 0, 8);

        assertEquals(List.of(0, 4, 8), chosen.cpus().stream().map(Cpu::id).toList());
        assertArrayEquals(new int[] {0, 4, 8}, chosen.spread(3));
        String message = assertThrows(IllegalArgumentException.class, () -> topology.restrictTo(0, 99)).getMessage();
        assertTrue(message.contains("CPU 99"), message);
        assertThrows(IllegalArgumentException.class, () -> topology.restrictTo(1, 1));
    }

    @Test
    void shouldPrintATableOfCpusAndWorkers() throws IOException {
        CpuTopology topology = twoSockets("0-15").withWorkers(List.of(
                new WorkerPlacement(0, 0, true, ""), new WorkerPlacement(1, 4, false, "no native access")));

        String table = topology.toString();

        assertTrue(table.startsWith("16 CPUs (0-15) on 8 cores, packages [0, 1], NUMA nodes [0, 1]"), table);
        assertTrue(table.contains("   12     0        1     1     4  4"), table);
        assertTrue(table.contains("worker 1 on CPU 4: not pinned (no native access)"), table);
        assertFalse(topology.pinned());
    }

    @Test
    void shouldDescribeTheCpusThisProcessMayUse() throws IOException {
        CpuTopology current = CpuTopology.current();
        BitSet allowed = Affinity.system().allowedCpus();

        assertFalse(current.cpus().isEmpty());
        for (Cpu cpu : current.cpus()) {
            assertTrue(allowed.get(cpu.id()), "CPU " + cpu.id() + " is not allowed: " + current);
        }
        assumeTrue(Files.isReadable(Path.of("/sys/devices/system/cpu/online")), "needs Linux sysfs");
        BitSet expected = CpuList.parse(Files.readString(Path.of("/sys/devices/system/cpu/online")));
        expected.and(allowed);
        assertEquals(expected, current.cpuIds());
    }

    @Test
    void shouldDescribeEveryCpuOfTheProcessEvenFromAPinnedThread() throws Exception {
        Affinity affinity = Affinity.system();
        assumeTrue(affinity.canPin(), affinity.unavailableReason());
        BitSet process = CpuTopology.current().cpuIds();
        assumeTrue(process.cardinality() >= 2, "needs two CPUs");
        int cpu = process.nextSetBit(0);

        CompletableFuture<CpuTopology> seen = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                assertTrue(affinity.pinCurrentThread(cpu).pinned());
                seen.complete(CpuTopology.current());
            } catch (Throwable t) {
                seen.completeExceptionally(t);
            }
        }).join();

        assertEquals(process, seen.get(30, TimeUnit.SECONDS).cpuIds(),
                "a thread pinned to CPU " + cpu + " (a pool's worker, say) sees the process's CPUs");
    }

    private static Set<Integer> cpuSet(int[] cpus) {
        return new HashSet<>(Arrays.stream(cpus).boxed().toList());
    }
}
