package dev.rota;

import java.util.List;

/**
 * The CPUs this process may use, how they are grouped into cores, caches, packages and NUMA nodes,
 * and, for a pool's topology, which worker is pinned to which CPU.
 *
 * <p>SKELETON: replaced by the full implementation.
 */
public final class CpuTopology {

    /**
     * One CPU (a hardware thread) the process may use.
     *
     * @param id          the kernel's CPU number
     * @param coreId      physical core id within its package ({@code topology/core_id}), -1 if unknown
     * @param packageId   socket ({@code topology/physical_package_id}), -1 if unknown
     * @param numaNode    NUMA node, -1 if unknown
     * @param llcId       id of the last-level cache it shares (the lowest CPU number sharing it), -1 if unknown
     * @param smtSiblings the other hardware threads of the same core, in ascending order (allowed or not)
     */
    public record Cpu(int id, int coreId, int packageId, int numaNode, int llcId, List<Integer> smtSiblings) {
        public Cpu {
            smtSiblings = List.copyOf(smtSiblings);
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
    private final List<WorkerPlacement> workers;

    private CpuTopology(List<Cpu> cpus, List<WorkerPlacement> workers) {
        this.cpus = List.copyOf(cpus);
        this.workers = List.copyOf(workers);
    }

    /** A topology of exactly these CPUs (ascending by id). */
    public static CpuTopology of(List<Cpu> cpus) {
        return new CpuTopology(cpus, List.of());
    }

    /** The CPUs this process may use now, with their grouping as the kernel exposes it. */
    public static CpuTopology current() {
        throw new UnsupportedOperationException("skeleton");
    }

    /** The allowed CPUs, ascending by id. */
    public List<Cpu> cpus() {
        return cpus;
    }

    /** True when the process may use {@code cpu}. */
    public boolean isAllowed(int cpu) {
        throw new UnsupportedOperationException("skeleton");
    }

    /** The allowed CPU {@code id}; {@link IllegalArgumentException} naming it when not allowed. */
    public Cpu cpu(int id) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * {@code n} CPUs spread over distinct physical cores first (and over packages), then over the
     * remaining SMT siblings; past the number of allowed CPUs, CPUs are reused in the same order.
     */
    public int[] spread(int n) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * The order in which a worker on {@code workerCpus[self]} visits the other workers when it steals:
     * SMT siblings first, then workers sharing its last-level cache, then its package, then the rest.
     * Returns worker indices, {@code self} excluded.
     */
    public int[] stealOrder(int self, int[] workerCpus) {
        throw new UnsupportedOperationException("skeleton");
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
}
