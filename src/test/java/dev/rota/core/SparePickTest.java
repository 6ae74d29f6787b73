package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.LatchBlocker;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A spare thread's pick of a group, while the only worker blocks:
 * <ul>
 *   <li>a pick that returns a group runnable but holding no task (an activation applied after the
 *       group's task was taken, see {@code Dispatcher.applyActivations}) must not return it for
 *       ever: a worker's slice of such a group ends dry and settles it, but while every worker
 *       blocks only the spares pick, and a pick charges nothing, so the group keeps the least pass;</li>
 *   <li>a group whose last task a spare took does not terminate before that task has run: the
 *       task is in no queue and in no worker's slice meanwhile.</li>
 * </ul>
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

    @Test
    void aGroupDoesNotTerminateWhileASpareRunsItsLastTask() throws Exception {
        Engine engine = new Engine("spare-turn", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true);
        engine.start();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group blocker = dispatcher.newGroup("blocker", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            Group tier = dispatcher.newGroup("tier", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            EngineSpares.blockAWorker(engine, blocker, releaseWorker);

            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch completed = new CountDownLatch(1);
            assertAccepted(tier.offer(() -> {
                started.countDown();
                try {
                    finish.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                completed.countDown();
            }));
            assertTrue(started.await(30, TimeUnit.SECONDS), "the spare never started the task");

            dispatcher.shutdown(tier);
            assertFalse(tier.awaitTermination(200, TimeUnit.MILLISECONDS),
                    "the group terminated while a spare still ran its task");
            finish.countDown();
            assertTrue(tier.awaitTermination(30, TimeUnit.SECONDS), "the group did not terminate after its task");
            assertEquals(0, completed.getCount(), "terminated before its task completed");
        } finally {
            finish.countDown();
            releaseWorker.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(30, TimeUnit.SECONDS));
        }
    }
}
