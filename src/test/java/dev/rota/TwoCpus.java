package dev.rota;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

/** For the tests that place groups on different CPUs: the first two this process may use. */
final class TwoCpus {
    private TwoCpus() {}

    /** The ids of the first two CPUs this process may use; aborts the calling test where it has fewer. */
    static int[] ids() {
        List<CpuTopology.Cpu> cpus = CpuTopology.current().cpus();
        assumeTrue(cpus.size() >= 2, "needs two CPUs");
        return new int[] {cpus.get(0).id(), cpus.get(1).id()};
    }
}
