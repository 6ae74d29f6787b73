package dev.rota;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Says once per reason, per JVM, through {@link System.Logger}, that workers run unpinned: one record
 * for a pool however many of its workers failed. Pinning that is unavailable altogether (native
 * access not enabled, an operating system other than Linux) is a launch or platform choice, not a
 * fault: logged at INFO when pinning was asked for explicitly and at DEBUG (silent by default)
 * otherwise. A failure where pinning is available, such as the kernel refusing a CPU, is logged at
 * WARNING.
 */
final class PinningLog {
    private static final System.Logger LOGGER = System.getLogger("dev.rota");
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    private PinningLog() {}

    /**
     * @param askedFor       pinning was asked for explicitly with {@code pinning(true)}
     * @param platformCanPin the platform can pin at all ({@link dev.rota.affinity.Affinity#canPin()})
     */
    static void reportFailures(String pool, List<CpuTopology.WorkerPlacement> placements, boolean askedFor,
                               boolean platformCanPin) {
        System.Logger.Level level = platformCanPin ? System.Logger.Level.WARNING
                : askedFor ? System.Logger.Level.INFO : System.Logger.Level.DEBUG;
        CpuTopology.WorkerPlacement first = null;
        int unpinned = 0;
        for (CpuTopology.WorkerPlacement p : placements) {
            if (p.pinned()) {
                continue;
            }
            unpinned++;
            // Every note is marked as said: a kernel's refusal names its CPU, so the notes of one
            // cause differ from worker to worker, and one record stands for them all.
            if (REPORTED.add(level + " " + p.note()) && first == null) {
                first = p;
            }
        }
        if (first != null) {
            LOGGER.log(level, "Rota pool {0} runs unpinned: worker {1} could not be pinned to CPU {2}: {3} "
                    + "({4} of its {5} workers are not pinned)",
                    pool, first.worker(), first.cpu(), first.note(), unpinned, placements.size());
        }
    }
}
