package dev.rota;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Says once per reason, per JVM, through {@link System.Logger}, that workers run unpinned. A reason
 * that only asks for a launch flag is logged at INFO; a kernel refusal at WARNING.
 */
final class PinningLog {
    private static final System.Logger LOGGER = System.getLogger("dev.rota");
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    private PinningLog() {}

    static void reportFailures(String pool, List<CpuTopology.WorkerPlacement> placements) {
        for (CpuTopology.WorkerPlacement p : placements) {
            if (!p.pinned() && REPORTED.add(p.note())) {
                System.Logger.Level level = p.note().contains("native access") ? System.Logger.Level.INFO
                        : System.Logger.Level.WARNING;
                LOGGER.log(level, "Rota pool {0} runs unpinned: worker {1} could not be pinned to CPU {2}: {3}",
                        pool, p.worker(), p.cpu(), p.note());
            }
        }
    }
}
