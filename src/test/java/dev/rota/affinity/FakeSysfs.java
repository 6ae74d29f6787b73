package dev.rota.affinity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A sysfs tree in a temporary directory, laid out as {@code devices/system/cpu} and
 * {@code devices/system/node} are on Linux, for topology tests. Only the files a test writes exist.
 */
public final class FakeSysfs {
    private final Path cpuRoot;

    public FakeSysfs(Path dir) {
        this.cpuRoot = dir.resolve("devices").resolve("system").resolve("cpu");
        mkdirs(cpuRoot);
    }

    /** The fake {@code /sys/devices/system/cpu}. */
    public Path cpuRoot() {
        return cpuRoot;
    }

    /**
     * Two packages of four cores with two threads each, numbered as Intel machines do: CPU n and
     * n + 8 are SMT siblings, CPUs 0-3 and 8-11 are package 0, 4-7 and 12-15 package 1. Each core has
     * its own L1d, L1i and L2; each package one L3 and one NUMA node (shown by a {@code nodeM} entry
     * in each CPU directory).
     */
    public static FakeSysfs twoSocketsSmt(Path dir) {
        FakeSysfs sysfs = new FakeSysfs(dir);
        sysfs.write("online", "0-15\n").write("possible", "0-15\n");
        for (int cpu = 0; cpu < 16; cpu++) {
            int first = cpu % 8;           // the first thread of this CPU's core
            int pkg = first / 4;
            String core = first + "," + (first + 8);
            String l3 = pkg == 0 ? "0-3,8-11" : "4-7,12-15";
            sysfs.topology(cpu, first % 4, pkg, core)
                    .cache(cpu, 0, 1, core).cache(cpu, 1, 1, core).cache(cpu, 2, 2, core).cache(cpu, 3, 3, l3)
                    .nodeEntry(cpu, pkg);
        }
        return sysfs;
    }

    public FakeSysfs write(String relativeToCpuRoot, String content) {
        Path file = cpuRoot.resolve(relativeToCpuRoot);
        mkdirs(file.getParent());
        try {
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** {@code core_id}, {@code physical_package_id} and both names of the sibling list. */
    public FakeSysfs topology(int cpu, int coreId, int packageId, String coreCpus) {
        String dir = "cpu" + cpu + "/topology/";
        return write(dir + "core_id", coreId + "\n")
                .write(dir + "physical_package_id", packageId + "\n")
                .write(dir + "core_cpus_list", coreCpus + "\n")
                .write(dir + "thread_siblings_list", coreCpus + "\n");
    }

    public FakeSysfs cache(int cpu, int index, int level, String sharedCpus) {
        String dir = "cpu" + cpu + "/cache/index" + index + "/";
        return write(dir + "level", level + "\n").write(dir + "shared_cpu_list", sharedCpus + "\n");
    }

    /** The {@code nodeM} entry in the CPU's directory (a symbolic link on Linux, a directory here). */
    public FakeSysfs nodeEntry(int cpu, int node) {
        mkdirs(cpuRoot.resolve("cpu" + cpu).resolve("node" + node));
        return this;
    }

    /** {@code /sys/devices/system/node/nodeM/cpulist}. */
    public FakeSysfs nodeCpuList(int node, String cpus) {
        return write("../node/node" + node + "/cpulist", cpus + "\n");
    }

    private static void mkdirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
