package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.LatchBlocker;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A spare thread whose pick returns a group that is runnable but holds no task (an activation
 * applied after the group's task was taken, see {@code Dispatcher.applyActivations}) must not pick
 * that group for ever: a worker's slice of such a group ends dry and settles it, but while every
 * worker blocks, only the spares pick, and a pick charges nothing, so the group keeps the least pass.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SparePickTest {

    @Test
    void aSpareMovesOnFromARunnableGroupWithoutWork() throws Exception {
        Engine engine = new Engine("spare-pick", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true);
        engine.start();
        try {
            Dispatcher dispatcher = engine.dispatcher();
            // Stride picks the group of least pass: 1000 tickets against 1 puts `empty` first.
            Group empty = dispatcher.newGroup("empty", dispatcher.baseCurrency(), 1000, Group.UNBOUNDED, 16);
            Group busy = dispatcher.newGroup("busy", dispatcher.baseCurrency(), 1, Group.UNBOUNDED, 16);

            // The only worker blocks in a task of `busy` until another task of `busy` runs.
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blockedTaskDone = new CountDownLatch(1);
            assertAccepted(busy.offer(() -> {
                try {
                    Engine.managedBlock(new LatchBlocker(release));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                blockedTaskDone.countDown();
            }));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (engine.spareThreads() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(engine.spareThreads() > 0, "no spare stood in for the blocked worker");

            // Make `empty` runnable without work: hold its inbox's consumer token so that no spare
            // takes the task, offer (queues the activation), then take the task back out.
            Inbox inbox = empty.lanes[0].inbox;
            while (!inbox.tryAcquireConsumer()) {
                Thread.onSpinWait();
            }
            try {
                assertAccepted(empty.offer(() -> {}));
                assertTrue(inbox.poll() != null, "the task just offered is in the inbox");
            } finally {
                inbox.releaseConsumer();
            }
            empty.tasksTaken(0, 1);

            assertAccepted(busy.offer(release::countDown));
            assertTrue(blockedTaskDone.await(30, TimeUnit.SECONDS),
                    "the spare never ran the busy group's task: it kept picking the group without work");
        } finally {
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    private static void assertAccepted(int offerResult) {
        assertTrue(offerResult == Group.ACCEPTED, "offer refused: " + offerResult);
    }
}
