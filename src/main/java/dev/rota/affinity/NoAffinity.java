package dev.rota.affinity;

import java.util.BitSet;

/** An {@link Affinity} that pins nothing; SKELETON: reads no kernel state yet. */
public final class NoAffinity implements Affinity {
    private final String reason;

    public NoAffinity(String reason) {
        this.reason = reason;
    }

    @Override public boolean canPin() { return false; }
    @Override public String unavailableReason() { return reason; }

    @Override public BitSet allowedCpus() {
        BitSet set = new BitSet();
        set.set(0, Runtime.getRuntime().availableProcessors());
        return set;
    }

    @Override public int currentCpu() { return -1; }

    @Override public PinResult pinCurrentThread(int cpu) { return PinResult.failure(cpu, reason); }
}
