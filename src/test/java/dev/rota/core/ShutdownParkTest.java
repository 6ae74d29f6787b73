package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * After {@code shutdown()} a worker may exit only once no accepted task is left anywhere (E2). A
 * worker that may serve none of the groups still holding tasks cannot help them along: it must park
 * until it may exit, not spin for as long as the other workers take to finish, and it must still
 * exit once they have.
 *
 * <p>Two workers; a group restricted to worker 1, which runs a long task of it while another waits.
 * The pool shuts down: worker 0 has nothing it may run and must park; once worker 1 finishes both
 * tasks, the pool terminates.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShutdownParkTest {

    @Test
    void aWorkerWithNothingItMayRunParksUntilThePoolMayTerminate() throws Exception {
        Engine engine = new Engine("shutdown-park", new int[] {0, 1}, new int[][] {{1}, {0}},
                new NoAffinity("test"), false, null, true);
        engine.start();
        CountDownLatch release = new CountDownLatch(1);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group placed = dispatcher.newGroup("placed", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            placed.restrictTo(WorkerMask.of(2, 1));
            CountDownLatch started = new CountDownLatch(1);
            AtomicInteger ran = new AtomicInteger();
            assertAccepted(placed.offer(() -> {
                started.countDown();
                try {
                    release.await(Liveness.SECONDS, TimeUnit.SECONDS); // bounded, so that a failing run still ends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ran.incrementAndGet();
            }));
            Liveness.await(started, "the long task on worker 1");
            assertAccepted(placed.offer(ran::incrementAndGet)); // waits behind the long task: worker 1 only

            // Read before shutdown(), which wakes every parked worker: worker 0 may park again before
            // a read after it, and would then never park a second time.
            long parksBefore = engine.parks(0);
            engine.shutdown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (!(engine.isParked(0) && engine.parks(0) > parksBefore) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(engine.isParked(0) && engine.parks(0) > parksBefore,
                    "worker 0 may run nothing that is left, yet it did not park after shutdown");

            release.countDown();
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS),
                    "the pool did not terminate once the tasks were done; threads:\n" + Liveness.threadDump());
            assertEquals(2, ran.get(), "tasks run");
        } finally {
            release.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }
}
