package dev.rota;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import dev.rota.affinity.NoAffinity;
import dev.rota.affinity.SysfsTopologyReader;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The CPUs this process may use, how they are grouped into cores, caches, packages and NUMA nodes,
 * and, for a pool's topology, which worker is pinned to which CPU.
 *
 * <p>A topology is immutable. Cores are identified by their set of hardware threads (the CPU and
 * its SMT siblings), which is unique machine-wide where {@code core_id} is only unique within a
 * package; a CPU with no known siblings is a core of its own.
 */
public final class CpuTopology {
    /*
     * spread order (computed once): hardware-thread rounds; round r takes the r-th allowed thread
     * of every core that has one, dealing cores round-robin across packages (packages ascending,
     * cores within a package by lowest CPU id). So all distinct cores come before any second
     * thread, and the packages' counts never differ by more than one while each has cores left.
     */
    private static final System.Logger LOG = System.getLogger(CpuTopology.class.getName());
    private static final Path SYSFS_CPU = Path.of("/sys/devices/system/cpu");

    /**
     * One CPU (a hardware thread) the process may use.
     *
     * @param id          the kernel's CPU number
     * @param coreId      physical core id within its package ({@code topology/core_id}), -1 if unknown
     * @param packageId   socket ({@code topology/physical_package_id}), -1 if unknown
     * @param numaNode    NUMA node, -1 if unknown
     * @param llcId       id of the last-level cache it shares (the lowest CPU number sharing it), -1 if unknown
     * @param smtSiblings the other hardware threads of the same core, in ascending order (allowed or not)
     * @throws NullPointerException naming {@code smtSiblings}, or the index of a null sibling
     */
    public record Cpu(int id, int coreId, int packageId, int numaNode, int llcId, List<Integer> smtSiblings) {
        public Cpu {
            smtSiblings = NonNullLists.copyOf(smtSiblings, "smtSiblings");
        }
    }

    /**
     * Where one worker of a pool runs.
     *
     * @param worker the worker's index in the pool
     * @param cpu    the CPU it was assigned
     * @param pinned true when the kernel confirmed the worker thread runs only on {@code cpu}
     * @param note   why it is not pinned; empty when pinned
     */
    public record WorkerPlacement(int worker, int cpu, boolean pinned, String note) {}

    private final List<Cpu> cpus;
    private final Map<Integer, Cpu> byId;
    private final BitSet allowed;
    private final int[] spreadOrder;
    private final List<WorkerPlacement> workers;

    private CpuTopology(List<Cpu> cpus, List<WorkerPlacement> workers) {
        List<Cpu> sorted = new ArrayList<>(cpus);
        sorted.sort((a, b) -> Integer.compare(a.id(), b.id()));
        this.cpus = List.copyOf(sorted);
        this.byId = new HashMap<>();
        this.allowed = new BitSet();
        for (Cpu cpu : this.cpus) {
            if (cpu.id() < 0) {
                throw new IllegalArgumentException("CPU id " + cpu.id() + " is negative");
            }
            for (int sibling : cpu.smtSiblings()) {
                if (sibling < 0) {
                    throw new IllegalArgumentException("CPU " + cpu.id() + " lists a negative SMT sibling: " + sibling);
                }
            }
            if (byId.putIfAbsent(cpu.id(), cpu) != null) {
                throw new IllegalArgumentException("CPU " + cpu.id() + " is listed twice");
            }
            allowed.set(cpu.id());
        }
        this.spreadOrder = spreadOrder(this.cpus);
        this.workers = List.copyOf(workers);
    }

    /**
     * A topology of exactly these CPUs (ascending by id).
     *
     * @throws NullPointerException     naming {@code cpus}, or the index of a null CPU
     * @throws IllegalArgumentException if a CPU id or SMT sibling is negative, or a CPU is listed twice
     *                                  (the message names it)
     */
    public static CpuTopology of(List<Cpu> cpus) {
        return new CpuTopology(NonNullLists.copyOf(cpus, "cpus"), List.of());
    }

    /**
     * The CPUs this process may use now, with their grouping as the kernel exposes it; the same from
     * any thread, a pinned worker included ({@link Affinity#processCpus()}).
     */
    public static CpuTopology current() {
        BitSet allowed = allowedNow();
        try {
            List<Cpu> read = new SysfsTopologyReader(SYSFS_CPU, allowed).read();
            if (!read.isEmpty()) {
                return of(read);
            }
            LOG.log(System.Logger.Level.DEBUG, "no allowed CPU is online in {0}; using a flat topology", SYSFS_CPU);
        } catch (IOException | RuntimeException unreadable) {
            LOG.log(System.Logger.Level.DEBUG, "cannot read the CPU topology from sysfs; using a flat one", unreadable);
        }
        return flat(allowed);
    }

    private static BitSet allowedNow() {
        try {
            BitSet allowed = Affinity.system().processCpus();
            if (!allowed.isEmpty()) {
                return allowed;
            }
        } catch (RuntimeException kernelRefused) {
            LOG.log(System.Logger.Level.DEBUG, "sched_getaffinity failed; reading /proc instead", kernelRefused);
        }
        return new NoAffinity("sched_getaffinity failed").processCpus();
    }

    /** A topology of these CPUs that knows nothing of their grouping: each is a core of its own. */
    public static CpuTopology flat(BitSet cpuIds) {
        return of(cpuIds.stream().mapToObj(id -> new Cpu(id, -1, -1, -1, -1, List.of())).toList());
    }

    /** The allowed CPUs, ascending by id. */
    public List<Cpu> cpus() {
        return cpus;
    }

    /** The ids of the allowed CPUs. */
    public BitSet cpuIds() {
        return (BitSet) allowed.clone();
    }

    /** True when the process may use {@code cpu}. */
    public boolean isAllowed(int cpu) {
        return cpu >= 0 && allowed.get(cpu);
    }

    /** The allowed CPU {@code id}; {@link IllegalArgumentException} naming it when not allowed. */
    public Cpu cpu(int id) {
        Cpu cpu = byId.get(id);
        if (cpu == null) {
            throw new IllegalArgumentException("CPU " + id + " is not one this process may use; allowed CPUs: "
                    + describe(allowed));
        }
        return cpu;
    }

    /**
     * The physical cores, each as its allowed hardware threads ascending by id; cores ordered by
     * their lowest CPU id.
     */
    public List<List<Cpu>> cores() {
        TreeMap<Integer, List<Cpu>> cores = new TreeMap<>();
        for (Cpu cpu : cpus) {
            cores.computeIfAbsent(coreKey(cpu), key -> new ArrayList<>()).add(cpu);
        }
        return cores.values().stream().map(List::copyOf).toList();
    }

    /** The distinct package (socket) ids of the allowed CPUs, ascending; -1 stands for unknown. */
    public List<Integer> packages() {
        return distinct(cpus.stream().mapToInt(Cpu::packageId).toArray());
    }

    /** The distinct NUMA nodes of the allowed CPUs, ascending; -1 stands for unknown. */
    public List<Integer> numaNodes() {
        return distinct(cpus.stream().mapToInt(Cpu::numaNode).toArray());
    }

    /**
     * The topology of just these allowed CPUs (no workers); {@link IllegalArgumentException} naming
     * the first CPU that is not allowed.
     */
    public CpuTopology restrictTo(int... cpuIds) {
        if (cpuIds.length == 0) {
            throw new IllegalArgumentException("restrictTo needs at least one CPU");
        }
        List<Cpu> chosen = new ArrayList<>();
        BitSet seen = new BitSet();
        for (int id : cpuIds) {
            Cpu cpu = cpu(id);
            if (seen.get(id)) {
                throw new IllegalArgumentException("CPU " + id + " is listed twice in " + Arrays.toString(cpuIds));
            }
            seen.set(id);
            chosen.add(cpu);
        }
        return of(chosen);
    }

    /**
     * {@code n} CPUs spread over distinct physical cores first (and over packages), then over the
     * remaining SMT siblings; past the number of allowed CPUs, CPUs are reused in the same order.
     */
    public int[] spread(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("cannot spread " + n + " workers: need at least 1");
        }
        if (spreadOrder.length == 0) {
            throw new IllegalStateException("cannot spread " + n + " workers over a topology with no CPUs");
        }
        int[] chosen = new int[n];
        for (int i = 0; i < n; i++) {
            chosen[i] = spreadOrder[i % spreadOrder.length];
        }
        return chosen;
    }

    /**
     * The order in which a worker on {@code workerCpus[self]} visits the other workers when it steals:
     * SMT siblings first, then workers sharing its last-level cache, then its package, then the rest.
     * Returns worker indices, {@code self} excluded.
     *
     * <p>A worker on the same CPU as {@code self} counts as a sibling. Within a tier, workers come in
     * the order {@code self+1, self+2, ...} (wrapping round), so that workers start at different victims.
     */
    public int[] stealOrder(int self, int[] workerCpus) {
        if (self < 0 || self >= workerCpus.length) {
            throw new IllegalArgumentException("worker " + self + " is not among the " + workerCpus.length + " workers");
        }
        return byTier(cpu(workerCpus[self]), workerCpus, self + 1, workerCpus.length - 1);
    }

    /**
     * The order in which workers on {@code cpu} visit the pool's workers when they steal, for
     * workers that share that CPU and so one order: every worker with a CPU in {@code workerCpus},
     * those on {@code cpu} too (each skips itself), in the tiers of {@link #stealOrder}, and within a
     * tier in ascending index. One array of n entries per shared CPU, where an order per worker
     * would take n² entries for a pool of many more workers than CPUs.
     */
    int[] sharedStealOrder(int cpu, int[] workerCpus) {
        return byTier(cpu(cpu), workerCpus, 0, workerCpus.length);
    }

    /**
     * {@code count} workers from {@code first} on (wrapping round), ordered by their CPU's closeness
     * to {@code own}, nearest tier first, each tier in the order they came.
     */
    private int[] byTier(Cpu own, int[] workerCpus, int first, int count) {
        int workerCount = workerCpus.length;
        byte[] tierOf = new byte[workerCount];
        int[] tierStart = new int[TIERS + 1];
        for (int k = 0; k < count; k++) {
            int worker = (first + k) % workerCount;
            tierOf[worker] = (byte) closeness(own, cpu(workerCpus[worker]));
            tierStart[tierOf[worker] + 1]++;
        }
        for (int tier = 1; tier <= TIERS; tier++) {
            tierStart[tier] += tierStart[tier - 1];
        }
        int[] order = new int[count];
        for (int k = 0; k < count; k++) {
            int worker = (first + k) % workerCount;
            order[tierStart[tierOf[worker]]++] = worker;
        }
        return order;
    }

    /** Tiers of {@link #closeness}. */
    private static final int TIERS = 4;

    /** 0: same core (or CPU); 1: same last-level cache; 2: same package; 3: farther or unknown. */
    private static int closeness(Cpu own, Cpu other) {
        if (coreKey(own) == coreKey(other) || own.smtSiblings().contains(other.id())) {
            return 0;
        }
        if (own.llcId() >= 0 && own.llcId() == other.llcId()) {
            return 1;
        }
        if (own.packageId() >= 0 && own.packageId() == other.packageId()) {
            return 2;
        }
        return 3;
    }

    /** The placement of each worker; empty for a topology not taken from a pool. */
    public List<WorkerPlacement> workers() {
        return workers;
    }

    /** True when this is a pool's topology and every worker is pinned. */
    public boolean pinned() {
        return !workers.isEmpty() && workers.stream().allMatch(WorkerPlacement::pinned);
    }

    /** This topology with the given worker placements (a pool's view). */
    CpuTopology withWorkers(List<WorkerPlacement> placements) {
        return new CpuTopology(cpus, placements);
    }

    /** A table of the CPUs (and of the workers, for a pool's topology); -1 shows as "?". */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        int coreCount = cores().size();
        out.append(String.format("%d CPU%s (%s) on %d core%s, packages %s, NUMA nodes %s%n",
                cpus.size(), cpus.size() == 1 ? "" : "s", describe(allowed), coreCount, coreCount == 1 ? "" : "s",
                known(packages()), known(numaNodes())));
        out.append(String.format("%5s %5s %8s %5s %5s  %s%n", "cpu", "core", "package", "node", "llc", "siblings"));
        for (Cpu cpu : cpus) {
            BitSet siblings = new BitSet();
            cpu.smtSiblings().forEach(siblings::set);
            out.append(String.format("%5d %5s %8s %5s %5s  %s%n", cpu.id(), known(cpu.coreId()),
                    known(cpu.packageId()), known(cpu.numaNode()), known(cpu.llcId()),
                    siblings.isEmpty() ? "-" : CpuList.format(siblings)));
        }
        for (WorkerPlacement w : workers) {
            out.append(String.format("worker %d on CPU %d: %s%n", w.worker(), w.cpu(),
                    w.pinned() ? "pinned" : "not pinned (" + w.note() + ")"));
        }
        return out.toString();
    }

    /** A core's identity: the lowest CPU among it and its SMT siblings. */
    private static int coreKey(Cpu cpu) {
        int key = cpu.id();
        for (int sibling : cpu.smtSiblings()) {
            key = Math.min(key, sibling);
        }
        return key;
    }

    private static int[] spreadOrder(List<Cpu> cpus) {
        // package -> core key -> allowed threads ascending; TreeMaps keep each level ordered.
        TreeMap<Integer, TreeMap<Integer, List<Integer>>> packages = new TreeMap<>();
        for (Cpu cpu : cpus) {
            packages.computeIfAbsent(cpu.packageId(), p -> new TreeMap<>())
                    .computeIfAbsent(coreKey(cpu), c -> new ArrayList<>())
                    .add(cpu.id());
        }
        List<List<List<Integer>>> coresByPackage = packages.values().stream()
                .map(cores -> List.copyOf(cores.values())).toList();
        int[] order = new int[cpus.size()];
        int next = 0;
        for (int round = 0; next < order.length; round++) {
            // The cores of each package that still have a thread for this round, dealt round-robin.
            int thread = round;
            List<List<List<Integer>>> dealing = coresByPackage.stream()
                    .map(cores -> cores.stream().filter(threads -> threads.size() > thread).toList())
                    .toList();
            int deepest = dealing.stream().mapToInt(List::size).max().orElse(0);
            for (int rank = 0; rank < deepest; rank++) {
                for (List<List<Integer>> cores : dealing) {
                    if (rank < cores.size()) {
                        order[next++] = cores.get(rank).get(thread);
                    }
                }
            }
        }
        return order;
    }

    private static List<Integer> distinct(int[] ids) {
        TreeSet<Integer> set = new TreeSet<>();
        for (int id : ids) {
            set.add(id);
        }
        return List.copyOf(set);
    }

    private static String describe(BitSet cpuIds) {
        return cpuIds.isEmpty() ? "none" : CpuList.format(cpuIds);
    }

    private static String known(int id) {
        return id < 0 ? "?" : Integer.toString(id);
    }

    private static String known(List<Integer> ids) {
        return ids.stream().map(CpuTopology::known).toList().toString();
    }
}
