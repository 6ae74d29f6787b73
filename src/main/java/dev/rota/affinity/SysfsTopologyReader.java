package dev.rota.affinity;

import dev.rota.CpuTopology.Cpu;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the grouping of the allowed CPUs from a sysfs CPU directory (normally
 * {@code /sys/devices/system/cpu}; tests pass a fake tree).
 *
 * <p>For each CPU that is both online ({@code online}) and in the allowed set:
 * <ul>
 *   <li>core and package: {@code cpuN/topology/core_id}, {@code physical_package_id};</li>
 *   <li>SMT siblings: {@code cpuN/topology/core_cpus_list}, or the older {@code thread_siblings_list};</li>
 *   <li>last-level cache: among {@code cpuN/cache/indexK}, the one with the highest {@code level};
 *       its id is the lowest CPU in its {@code shared_cpu_list};</li>
 *   <li>NUMA node: the {@code nodeM} entry in {@code cpuN/}, else the {@code ../node/nodeM/cpulist}
 *       that names the CPU.</li>
 * </ul>
 * A value the kernel does not expose (missing, unreadable or garbled file) is -1, or no siblings;
 * only a missing CPU directory as a whole is an error. A missing {@code online} file counts every
 * allowed CPU as online.
 */
public final class SysfsTopologyReader {
    private static final Pattern NODE_ENTRY = Pattern.compile("node(\\d{1,9})");
    private static final Pattern CACHE_INDEX = Pattern.compile("index(\\d{1,9})");

    private final Path cpuRoot;
    private final BitSet allowed;

    /**
     * @param cpuRoot the sysfs CPU directory, e.g. {@code /sys/devices/system/cpu}
     * @param allowed the CPUs this process may use (from {@code sched_getaffinity})
     */
    public SysfsTopologyReader(Path cpuRoot, BitSet allowed) {
        this.cpuRoot = cpuRoot;
        this.allowed = (BitSet) allowed.clone();
    }

    /**
     * The allowed, online CPUs ascending by id.
     *
     * @throws IOException when {@code cpuRoot} is not a readable directory
     */
    public List<Cpu> read() throws IOException {
        if (!Files.isDirectory(cpuRoot) || !Files.isReadable(cpuRoot)) {
            throw new IOException("no readable sysfs CPU directory at " + cpuRoot);
        }
        BitSet usable = (BitSet) allowed.clone();
        readCpuList(cpuRoot.resolve("online")).ifPresent(usable::and);

        List<NodeCpus> nodes = readNodeDirectory();
        List<Cpu> cpus = new ArrayList<>();
        for (int id = usable.nextSetBit(0); id >= 0; id = usable.nextSetBit(id + 1)) {
            cpus.add(readCpu(id, nodes));
        }
        return cpus;
    }

    private Cpu readCpu(int id, List<NodeCpus> nodes) {
        Path cpuDir = cpuRoot.resolve("cpu" + id);
        Path topology = cpuDir.resolve("topology");
        int coreId = readInt(topology.resolve("core_id"));
        int packageId = readInt(topology.resolve("physical_package_id"));
        BitSet core = readCpuList(topology.resolve("core_cpus_list"))
                .or(() -> readCpuList(topology.resolve("thread_siblings_list")))
                .orElseGet(BitSet::new);
        core.clear(id);
        return new Cpu(id, coreId, packageId, numaNode(id, cpuDir, nodes), llcId(cpuDir),
                core.stream().boxed().toList());
    }

    /** The lowest CPU sharing the highest-level cache of {@code cpuDir}, or -1. */
    private int llcId(Path cpuDir) {
        int bestLevel = -1;
        int bestIndex = -1;
        BitSet bestShared = null;
        for (Path index : entries(cpuDir.resolve("cache"), CACHE_INDEX)) {
            int level = readInt(index.resolve("level"));
            Optional<BitSet> shared = readCpuList(index.resolve("shared_cpu_list"));
            int indexNumber = number(index, CACHE_INDEX);
            // Highest level wins; among equals the highest index, as the kernel lists unified caches last.
            if (level < 0 || shared.isEmpty() || shared.get().isEmpty()) {
                continue;
            }
            if (level > bestLevel || (level == bestLevel && indexNumber > bestIndex)) {
                bestLevel = level;
                bestIndex = indexNumber;
                bestShared = shared.get();
            }
        }
        return bestShared == null ? -1 : bestShared.nextSetBit(0);
    }

    private static int numaNode(int id, Path cpuDir, List<NodeCpus> nodes) {
        List<Path> links = entries(cpuDir, NODE_ENTRY);
        if (!links.isEmpty()) {
            return links.stream().mapToInt(p -> number(p, NODE_ENTRY)).min().orElseThrow();
        }
        for (NodeCpus node : nodes) {
            if (node.cpus().get(id)) {
                return node.node();
            }
        }
        return -1;
    }

    private record NodeCpus(int node, BitSet cpus) {}

    /** {@code ../node/nodeM/cpulist} for every node, ascending; empty where there is none. */
    private List<NodeCpus> readNodeDirectory() {
        Path parent = cpuRoot.toAbsolutePath().getParent();
        if (parent == null) {
            return List.of();
        }
        List<NodeCpus> nodes = new ArrayList<>();
        for (Path nodeDir : entries(parent.resolve("node"), NODE_ENTRY)) {
            readCpuList(nodeDir.resolve("cpulist"))
                    .ifPresent(cpus -> nodes.add(new NodeCpus(number(nodeDir, NODE_ENTRY), cpus)));
        }
        nodes.sort((a, b) -> Integer.compare(a.node(), b.node()));
        return nodes;
    }

    /** Entries of {@code dir} whose whole name matches {@code pattern}, sorted by their number. */
    private static List<Path> entries(Path dir, Pattern pattern) {
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path entry : stream) {
                if (pattern.matcher(entry.getFileName().toString()).matches()) {
                    found.add(entry);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return List.of();
        }
        found.sort((a, b) -> Integer.compare(number(a, pattern), number(b, pattern)));
        return found;
    }

    private static int number(Path entry, Pattern pattern) {
        Matcher m = pattern.matcher(entry.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalStateException("not a numbered entry: " + entry);
        }
        return Integer.parseInt(m.group(1)); // at most 9 digits: always fits
    }

    private static Optional<String> readText(Path file) {
        try {
            return Optional.of(Files.readString(file));
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    private static int readInt(Path file) {
        return readText(file).map(text -> {
            try {
                return Integer.parseInt(text.strip());
            } catch (NumberFormatException garbled) {
                return -1;
            }
        }).orElse(-1);
    }

    private static Optional<BitSet> readCpuList(Path file) {
        return readText(file).flatMap(text -> {
            try {
                return Optional.of(CpuList.parse(text));
            } catch (IllegalArgumentException garbled) {
                return Optional.empty();
            }
        });
    }
}
