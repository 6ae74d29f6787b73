package dev.rota.affinity;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link Affinity} on Linux through the FFM API: {@code sched_getaffinity}, {@code sched_setaffinity}
 * and {@code sched_getcpu} from the C library, each called with pid 0 so that it acts on the calling
 * thread.
 *
 * <p>Instances are created only by {@link AffinityHolder}, after it has checked that native access
 * is enabled, so that no restricted method is ever called where the JDK would warn about it.
 */
final class LinuxAffinity implements Affinity {
    /*
     * The CPU mask (cpu_set_t) is an array of unsigned longs, CPU n at bit n % 64 of word n / 64;
     * BitSet.toLongArray uses the same layout, on either byte order. The kernel wants a length that
     * is a multiple of sizeof(long) and, for sched_getaffinity, at least nr_cpu_ids bits, else
     * EINVAL: so the mask starts at max(1024, highest possible CPU + 1) bits and doubles on EINVAL.
     *
     * Thread safety: every call allocates its own mask and errno segment in a confined arena; the
     * only shared mutable state is maskBits, which only grows (under the monitor) and is merely a
     * starting size: a stale read costs one more EINVAL retry, never a wrong answer.
     */
    private static final int MIN_MASK_BITS = 1024;      // glibc's CPU_SETSIZE
    private static final int MAX_MASK_BITS = 1 << 20;   // = CpuList.MAX_CPU + 1
    /** How often pinning yields to let the kernel move the thread before giving up. */
    private static final int MIGRATION_YIELDS = 3;

    private static final int EPERM = 1;
    private static final int ESRCH = 3;
    private static final int EFAULT = 14;
    private static final int EINVAL = 22;
    private static final Map<Integer, String> ERRNO_NAMES =
            Map.of(EPERM, "EPERM", ESRCH, "ESRCH", EFAULT, "EFAULT", EINVAL, "EINVAL");

    private volatile int maskBits;

    private LinuxAffinity(int maskBits) {
        this.maskBits = maskBits;
    }

    /**
     * Links the three functions (on first use) and sizes the CPU mask from {@code possibleCpusFile}.
     * Calls restricted methods: only for a module with native access.
     *
     * @throws UnsupportedOperationException when the C library lacks one of them, or FFM does not
     *                                       support this platform
     * @throws ExceptionInInitializerError   wrapping one of those, where linking failed before
     */
    static LinuxAffinity link(Path possibleCpusFile) {
        try {
            Libc.link();
        } catch (ExceptionInInitializerError e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
        return new LinuxAffinity(initialMaskBits(possibleCpusFile));
    }

    /**
     * The downcall handles, in static finals so that the JIT can inline the calls. Initialised only
     * through {@link #link}, hence only after native access was confirmed.
     */
    private static final class Libc {
        static final MethodHandle GET_AFFINITY; // int (errno*, int pid, size_t size, cpu_set_t* mask)
        static final MethodHandle SET_AFFINITY; // int (errno*, int pid, size_t size, const cpu_set_t* mask)
        static final MethodHandle GET_CPU;      // int ()
        static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

        static {
            Linker linker = Linker.nativeLinker();
            if (linker.canonicalLayouts().get("size_t").byteSize() != Long.BYTES) {
                throw new UnsupportedOperationException("CPU pinning needs a 64-bit C library (size_t of 8 bytes)");
            }
            SymbolLookup libc = linker.defaultLookup();
            Linker.Option errnoCapture = Linker.Option.captureCallState("errno");
            FunctionDescriptor affinityCall = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS);
            GET_AFFINITY = downcall(linker, find(libc, "sched_getaffinity"), affinityCall, errnoCapture);
            SET_AFFINITY = downcall(linker, find(libc, "sched_setaffinity"), affinityCall, errnoCapture);
            // sched_getcpu neither blocks nor calls back into Java: a critical call is safe and cheaper.
            GET_CPU = downcall(linker, find(libc, "sched_getcpu"), FunctionDescriptor.of(JAVA_INT),
                    Linker.Option.critical(false));
        }

        private Libc() {}

        static void link() {
            // Touching the class runs the static initialiser once.
        }

        @SuppressWarnings("restricted") // reached only after AffinityHolder confirmed native access
        private static MethodHandle downcall(Linker linker, MemorySegment symbol, FunctionDescriptor descriptor,
                                             Linker.Option... options) {
            return linker.downcallHandle(symbol, descriptor, options);
        }
    }

    private static MemorySegment find(SymbolLookup libc, String name) {
        return libc.find(name).orElseThrow(
                () -> new UnsupportedOperationException("the C library has no " + name));
    }

    private static int initialMaskBits(Path possibleCpusFile) {
        try {
            BitSet possible = CpuList.parse(Files.readString(possibleCpusFile));
            return Math.max(MIN_MASK_BITS, roundUpToLongs(possible.length()));
        } catch (Exception unreadable) {
            return MIN_MASK_BITS; // grown on EINVAL where the kernel has more CPUs
        }
    }

    @Override public boolean canPin() { return true; }
    @Override public String unavailableReason() { return ""; }

    @Override
    public BitSet allowedCpus() {
        return affinityOf(0);
    }

    /** The mask of the thread group leader, whose thread id is the process id. */
    @Override
    public BitSet processCpus() {
        return affinityOf((int) ProcessHandle.current().pid());
    }

    /** {@code sched_getaffinity} of thread {@code tid}, 0 for the calling thread. */
    private BitSet affinityOf(int tid) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            while (true) {
                int bits = maskBits;
                MemorySegment mask = arena.allocate(bits / Byte.SIZE, Long.BYTES);
                int rc = (int) Libc.GET_AFFINITY.invokeExact(state, tid, mask.byteSize(), mask);
                if (rc == 0) {
                    return BitSet.valueOf(mask.toArray(JAVA_LONG));
                }
                int error = (int) Libc.ERRNO.get(state, 0L);
                if (error != EINVAL || bits >= MAX_MASK_BITS) {
                    throw new IllegalStateException("sched_getaffinity with a " + bits + "-bit mask failed with "
                            + describeErrno(error));
                }
                growMask(bits * 2);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getaffinity could not be called", t);
        }
    }

    @Override
    public int currentCpu() {
        try {
            return (int) Libc.GET_CPU.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getcpu could not be called", t);
        }
    }

    @Override
    public PinResult pinCurrentThread(int cpu) {
        if (cpu < 0) {
            return PinResult.failure(cpu, "CPU " + cpu + " is negative");
        }
        if (cpu >= MAX_MASK_BITS) {
            return PinResult.failure(cpu, "CPU " + cpu + " is beyond the largest CPU mask supported ("
                    + MAX_MASK_BITS + " CPUs)");
        }
        if (Thread.currentThread().isVirtual()) {
            return PinResult.failure(cpu, "a virtual thread cannot be pinned (it would pin its carrier)");
        }
        try {
            return pin(cpu);
        } catch (RuntimeException unexpected) {
            return PinResult.failure(cpu, "pinning to CPU " + cpu + " failed: " + unexpected.getMessage());
        }
    }

    @Override
    public boolean allowCurrentThread(BitSet cpus) {
        if (cpus.isEmpty() || cpus.length() > MAX_MASK_BITS || Thread.currentThread().isVirtual()) {
            return false;
        }
        try {
            return setAffinity(cpus) == 0;
        } catch (RuntimeException unexpected) {
            return false;
        }
    }

    private PinResult pin(int cpu) {
        BitSet before = allowedCpus();
        BitSet target = new BitSet();
        target.set(cpu);
        int error = setAffinity(target);
        if (error != 0) {
            String hint = error == EINVAL
                    ? ": the CPU is offline, absent, or outside this process's cpuset (this thread may use CPUs "
                            + CpuList.format(before) + ")"
                    : "";
            return PinResult.failure(cpu, "sched_setaffinity to CPU " + cpu + " failed with "
                    + describeErrno(error) + hint);
        }
        PinResult verified = verify(cpu, target);
        if (!verified.pinned()) {
            setAffinity(before); // best effort: leave the thread as it was
        }
        return verified;
    }

    /** Whether the kernel confirms that the calling thread now runs on {@code cpu} alone. */
    private PinResult verify(int cpu, BitSet target) {
        BitSet after = allowedCpus();
        if (!after.equals(target)) {
            return PinResult.failure(cpu, "after pinning to CPU " + cpu + " the kernel allows CPUs "
                    + CpuList.format(after));
        }
        // The kernel moves the caller before sched_setaffinity returns; yielding covers a lagging report.
        int observed = currentCpu();
        for (int i = 0; observed != cpu && i < MIGRATION_YIELDS; i++) {
            Thread.yield();
            observed = currentCpu();
        }
        return observed == cpu ? PinResult.success(cpu, observed)
                : PinResult.failure(cpu, "pinned to CPU " + cpu + " but sched_getcpu reports CPU " + observed);
    }

    /** Sets the calling thread's allowed CPUs; returns 0 or the errno. */
    private int setAffinity(BitSet cpus) {
        int bits = Math.max(maskBits, roundUpToLongs(cpus.length()));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment mask = arena.allocate(bits / Byte.SIZE, Long.BYTES);
            long[] words = cpus.toLongArray();
            MemorySegment.copy(words, 0, mask, JAVA_LONG, 0, words.length);
            int rc = (int) Libc.SET_AFFINITY.invokeExact(state, 0, mask.byteSize(), mask);
            return rc == 0 ? 0 : (int) Libc.ERRNO.get(state, 0L);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity could not be called", t);
        }
    }

    private synchronized void growMask(int bits) {
        maskBits = Math.max(maskBits, Math.min(bits, MAX_MASK_BITS));
    }

    private static int roundUpToLongs(int bits) {
        return (bits + Long.SIZE - 1) / Long.SIZE * Long.SIZE;
    }

    static String describeErrno(int error) {
        String name = ERRNO_NAMES.get(error);
        return "errno " + error + (name == null ? "" : " (" + name + ")");
    }
}
