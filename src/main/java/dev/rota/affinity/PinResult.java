package dev.rota.affinity;

/**
 * The outcome of one attempt to pin a thread to a CPU.
 *
 * @param cpu         the CPU asked for
 * @param pinned      true when the kernel confirmed the thread runs only on {@code cpu}
 * @param observedCpu the CPU {@code sched_getcpu} reported after pinning, or -1
 * @param failure     why pinning failed; empty when {@code pinned}
 */
public record PinResult(int cpu, boolean pinned, int observedCpu, String failure) {

    public static PinResult success(int cpu, int observedCpu) {
        return new PinResult(cpu, true, observedCpu, "");
    }

    public static PinResult failure(int cpu, String why) {
        return new PinResult(cpu, false, -1, why);
    }
}
