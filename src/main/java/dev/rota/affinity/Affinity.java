package dev.rota.affinity;

import java.util.BitSet;

/**
 * The operating system's view of which CPUs a thread may run on, and the means to pin it.
 *
 * <p>{@link #system()} returns the Linux implementation (FFM calls to {@code sched_getaffinity},
 * {@code sched_setaffinity} and {@code sched_getcpu}) where it can work, otherwise an
 * implementation that pins nothing and says why.
 */
public interface Affinity {

    /** The affinity of this platform: Linux through FFM where possible, else {@link NoAffinity}. */
    static Affinity system() {
        return AffinityHolder.SYSTEM;
    }

    /** True when {@link #pinCurrentThread(int)} can pin at all. */
    boolean canPin();

    /** Why pinning is not possible; empty when {@link #canPin()} is true. */
    String unavailableReason();

    /** The CPUs the calling thread may run on, as the kernel reports them. */
    BitSet allowedCpus();

    /**
     * The CPUs this process may use, whichever thread asks: those its first thread may run on (the
     * thread that the {@code java} launcher leaves waiting for the JVM, which nothing pins), as
     * narrowed by a cpuset or by {@code taskset} at launch. Unlike {@link #allowedCpus()}, a thread
     * pinned to one CPU, such as a pool's worker, still sees all of them.
     */
    default BitSet processCpus() {
        return allowedCpus();
    }

    /** The CPU the calling thread is running on now, or -1 where it cannot be observed. */
    int currentCpu();

    /**
     * Restricts the calling thread to {@code cpu} and verifies it: the kernel's allowed list for the
     * thread must then be exactly {@code {cpu}} and {@code sched_getcpu} must report {@code cpu}.
     */
    PinResult pinCurrentThread(int cpu);

    /**
     * Lets the calling thread run on any of {@code cpus}, replacing the mask it inherited from the
     * thread that started it (a thread started by a pinned worker is pinned too). Best effort.
     *
     * @return whether the kernel took the mask; false where this affinity cannot pin
     */
    default boolean allowCurrentThread(BitSet cpus) {
        return false;
    }
}
