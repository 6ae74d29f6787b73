package dev.rota.affinity;

import dev.rota.CpuTopology;

/**
 * Run in a child JVM by {@link AffinityHolderTest}: prints whether pinning is available and why
 * not, after exercising every path a pool takes at start-up, so that the test can check stderr.
 */
public final class NativeAccessProbe {
    private NativeAccessProbe() {}

    public static void main(String[] args) {
        Affinity affinity = Affinity.system();
        CpuTopology topology = CpuTopology.current();
        int cpu = topology.spread(1)[0];
        PinResult pin = affinity.pinCurrentThread(cpu);
        System.out.println("canPin=" + affinity.canPin());
        System.out.println("pinned=" + pin.pinned());
        System.out.println("cpus=" + topology.cpus().size());
        System.out.println("reason=" + affinity.unavailableReason());
    }
}
