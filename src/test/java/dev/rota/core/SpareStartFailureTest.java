package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.LatchBlocker;
import dev.rota.contract.Liveness;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A spare whose thread cannot be started (the JVM throws "unable to create native thread" where a
 * limit on threads is reached) must leave nothing behind: not its place among the spares, which
 * would be lost to every later block, and not a participant of the engine, which would keep the
 * pool from ever terminating. The failure reaches the blocking task, as ForkJoinPool's
 * managedBlock rethrows a failure to start a compensating thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpareStartFailureTest {

    @Test
    void aSpareThatCannotStartLeavesNeitherItsPlaceNorAParticipantBehind() throws Exception {
        Engine engine = new Engine("spare-start", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true, 1, TimeUnit.SECONDS.toNanos(60), new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 42);
        engine.start();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Group group = engine.defaultGroup();
            OutOfMemoryError refused = new OutOfMemoryError("unable to create native thread: refused by the test");
            engine.spares().startThreadsWith(thread -> {
                throw refused;
            });
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            CountDownLatch blockEnded = new CountDownLatch(1);
            assertAccepted(group.offer(() -> {
                try {
                    Engine.managedBlock(new LatchBlocker(release));
                } catch (Throwable t) {
                    thrown.set(t);
                } finally {
                    blockEnded.countDown();
                }
            }));
            Liveness.await(blockEnded, "the managed block whose spare could not start");
            assertSame(refused, thrown.get(), "the failure to start the spare's thread");
            assertEquals(0, engine.spareThreads(), "spares counted after the only one failed to start");

            engine.spares().startThreadsWith(Thread::start);
            EngineSpares.blockAWorker(engine, group, release); // the one place among the spares is free again
        } finally {
            release.countDown();
        }
        engine.shutdown();
        assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS),
                "the engine never terminated: a participant was left by the spare that failed to start");
    }
}
