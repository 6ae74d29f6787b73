package dev.rota;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Says once per reason, per JVM, through {@link System.Logger}, that workers run unpinned. Pinning
 * that is unavailable altogether (native access not enabled, an operating system other than Linux)
 * is a launch or platform choice, not a fault: logged at INFO when pinning was asked for explicitly
 * and at DEBUG (silent by default) otherwise. A failure where pinning is available, such as the
 * kernel refusing a CPU, is logged at WARNING.
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
        for (CpuTopology.WorkerPlacement p : placements) {
            if (p.pinned()) {
                continue;
            }
            System.Logger.Level level = platformCanPin ? System.Logger.Level.WARNING
                    : askedFor ? System.Logger.Level.INFO : System.Logger.Level.DEBUG;
            if (REPORTED.add(level + " " + p.note())) {
                LOGGER.log(level, "Rota pool {0} runs unpinned: worker {1} could not be pinned to CPU {2}: {3}",
                        pool, p.worker(), p.cpu(), p.note());
            }
        }
    }
}
