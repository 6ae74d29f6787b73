package dev.rota.affinity;

import dev.rota.CpuTopology.Cpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SysfsTopologyReaderTest {
    @TempDir Path dir;

    private static List<Cpu> read(FakeSysfs sysfs, String allowed) throws IOException {
        return new SysfsTopologyReader(sysfs.cpuRoot(), CpuList.parse(allowed)).read();
    }

    private static Cpu find(List<Cpu> cpus, int id) {
        return cpus.stream().filter(c -> c.id() == id).findFirst().orElseThrow();
    }

    @Test
    void shouldReadCoresPackagesSiblingsCachesAndNodesOfTwoSockets() throws IOException {
        List<Cpu> cpus = read(FakeSysfs.twoSocketsSmt(dir), "0-15");

        assertEquals(16, cpus.size());
        assertEquals(new Cpu(0, 0, 0, 0, 0, List.of(8)), find(cpus, 0));
        assertEquals(new Cpu(3, 3, 0, 0, 0, List.of(11)), find(cpus, 3));
        assertEquals(new Cpu(5, 1, 1, 1, 4, List.of(13)), find(cpus, 5));
        assertEquals(new Cpu(9, 1, 0, 0, 0, List.of(1)), find(cpus, 9));
        assertEquals(new Cpu(12, 0, 1, 1, 4, List.of(4)), find(cpus, 12));
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                cpus.stream().map(Cpu::id).toList(), "ascending by id");
    }

    @Test
    void shouldFindTheNumaNodeInTheNodeDirectoryWhenTheCpuHasNoNodeEntry() throws IOException {
        FakeSysfs sysfs = new FakeSysfs(dir).write("online", "0-3");
        for (int cpu = 0; cpu < 4; cpu++) {
            sysfs.topology(cpu, cpu, 0, Integer.toString(cpu));
        }
        sysfs.nodeCpuList(0, "0-1").nodeCpuList(1, "2-3");

        List<Cpu> cpus = read(sysfs, "0-3");

        assertEquals(List.of(0, 0, 1, 1), cpus.stream().map(Cpu::numaNode).toList());
    }

    @Test
    void shouldLeaveOutOfflineAndDisallowedCpus() throws IOException {
        FakeSysfs sysfs = FakeSysfs.twoSocketsSmt(dir).write("online", "0-5,7-15\n");

        List<Cpu> cpus = read(sysfs, "0-3,5-7,12");

        assertEquals(List.of(0, 1, 2, 3, 5, 7, 12), cpus.stream().map(Cpu::id).toList());
        assertEquals(List.of(4), find(cpus, 12).smtSiblings(), "siblings are listed even when not allowed");
    }

    @Test
    void shouldMarkWhatTheKernelDoesNotExposeAsUnknown() throws IOException {
        FakeSysfs sysfs = new FakeSysfs(dir).write("cpu0/topology/core_id", "0\n").write("cpu1/uevent", "");

        List<Cpu> cpus = read(sysfs, "0-1");

        assertEquals(List.of(new Cpu(0, 0, -1, -1, -1, List.of()), new Cpu(1, -1, -1, -1, -1, List.of())), cpus,
                "with no online file every allowed CPU counts as online");
    }

    @Test
    void shouldTreatGarbledFilesAsUnknown() throws IOException {
        FakeSysfs sysfs = new FakeSysfs(dir).write("online", "0")
                .write("cpu0/topology/core_id", "zero\n")
                .write("cpu0/topology/physical_package_id", "\n")
                .write("cpu0/topology/core_cpus_list", "0-x\n")
                .write("cpu0/cache/index0/level", "one")
                .write("cpu0/cache/index0/shared_cpu_list", "0");

        assertEquals(List.of(new Cpu(0, -1, -1, -1, -1, List.of())), read(sysfs, "0"));
    }

    @Test
    void shouldFallBackToThreadSiblingsListOnOlderKernels() throws IOException {
        FakeSysfs sysfs = new FakeSysfs(dir).write("online", "0-1")
                .write("cpu0/topology/thread_siblings_list", "0-1");

        assertEquals(List.of(1), read(sysfs, "0-1").getFirst().smtSiblings());
    }

    @Test
    void shouldTakeTheHighestLevelCacheWhateverItsIndex() throws IOException {
        FakeSysfs sysfs = new FakeSysfs(dir).write("online", "2")
                .cache(2, 0, 3, "2-5")
                .cache(2, 1, 1, "2")
                .cache(2, 2, 2, "2-3");

        assertEquals(2, read(sysfs, "2").getFirst().llcId());
        sysfs.cache(2, 3, 4, "0-7");
        assertEquals(0, read(sysfs, "2").getFirst().llcId());
    }

    @Test
    void shouldFailNamingTheDirectoryWhenThereIsNone() {
        Path missing = dir.resolve("no-such-dir");
        IOException e = assertThrows(IOException.class,
                () -> new SysfsTopologyReader(missing, CpuList.parse("0")).read());
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    }

    @Test
    void shouldNotBeAffectedByChangesToTheAllowedSetAfterConstruction() throws IOException {
        BitSet allowed = CpuList.parse("0-1");
        SysfsTopologyReader reader = new SysfsTopologyReader(FakeSysfs.twoSocketsSmt(dir).cpuRoot(), allowed);
        allowed.set(2, 16);

        assertEquals(2, reader.read().size());
    }
}
