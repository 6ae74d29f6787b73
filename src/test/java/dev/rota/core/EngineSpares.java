package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Set-up for the engine's tests of spare threads. */
final class EngineSpares {
    private EngineSpares() {}

    /**
     * Offers {@code group} a task that blocks in a managed block until {@code release} opens, and
     * returns once a spare thread stands in for the worker that runs it.
     */
    static void blockAWorker(Engine engine, Group group, CountDownLatch release) throws InterruptedException {
        int offered = group.offer(() -> {
            try {
                Engine.managedBlock(new LatchBlocker(release));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(offered == Group.ACCEPTED, "offer refused: " + offered);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        while (engine.spareThreads() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(engine.spareThreads() > 0, "no spare stood in for the blocked worker");
    }
}
