package dev.rota;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

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
            // Every cause is marked as said. A kernel's refusal names its CPU, so the notes of one
            // cause differ from worker to worker and from pool to pool: the cause is the note with
            // the worker's own CPU left out, and one record stands for all its notes in this JVM.
            if (REPORTED.add(level + " " + cause(p)) && first == null) {
                first = p;
            }
        }
        if (first != null) {
            // Numbers go in as text: the logger's MessageFormat would group a number's digits by the
            // locale, "CPU 1,024", which in the kernel's CPU-list syntax reads as CPUs 1 and 24.
            LOGGER.log(level, "Rota pool {0} runs unpinned: worker {1} could not be pinned to CPU {2}: {3} "
                    + "({4} of its {5} workers are not pinned)",
                    pool, Integer.toString(first.worker()), Integer.toString(first.cpu()), first.note(),
                    Integer.toString(unpinned), Integer.toString(placements.size()));
        }
    }

    /** The placement's note with its own CPU's number ("CPU 12", not "CPUs 0-12") replaced by "CPU #". */
    private static String cause(CpuTopology.WorkerPlacement placement) {
        return Pattern.compile("\\bCPU " + placement.cpu() + "(?!\\d)").matcher(placement.note()).replaceAll("CPU #");
    }
}
