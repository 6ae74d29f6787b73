package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.contract.ProbeFork;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group's shutdownNow settles what it drained before the group may terminate (G3): a thread that
 * sees the group terminated finds every drained task settled and the group's figures final, even
 * when the group's last running task ends while the settling goes on, or the pool's last worker
 * exits meanwhile.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DrainSettlesBeforeTerminationTest {

    /** A started engine of one worker. */
    private static Engine startEngine(String name) {
        Engine engine = new Engine(name, new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false, null, true);
        engine.start();
        return engine;
    }

    /**
     * A group of {@code engine} whose one running task holds the only worker until {@code release}
     * (deaf to interrupts), with one more task queued behind it for a shutdownNow to drain.
     */
    private static Group holdingTheWorker(Engine engine, CountDownLatch release) throws InterruptedException {
        Dispatcher dispatcher = engine.dispatcher();
        Group group = dispatcher.newGroup("stopped", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        CountDownLatch running = new CountDownLatch(1);
        assertAccepted(group.offer(() -> {
            running.countDown();
            ProbeFork.awaitIgnoringInterrupts(release);
        }));
        Liveness.await(running, "the group's running task");
        assertAccepted(group.offer(() -> { }));
        return group;
    }

    @Test
    void theGroupDoesNotTerminateWhileItsDrainIsSettled() throws Exception {
        Engine engine = startEngine("drain-settle");
        try {
            CountDownLatch release = new CountDownLatch(1);
            Group stopped = holdingTheWorker(engine, release);
            Dispatcher dispatcher = engine.dispatcher();
            Group other = dispatcher.newGroup("other", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            CountDownLatch otherRan = new CountDownLatch(1);
            assertAccepted(other.offer(otherRan::countDown)); // runs once the worker has left stopped's slice

            AtomicBoolean terminatedWhileSettling = new AtomicBoolean();
            List<Runnable> returned = engine.shutdownNow(stopped, task -> {
                release.countDown();                     // the group's last running task ends now
                try {
                    Liveness.await(otherRan, "the worker to leave the stopped group's slice");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                terminatedWhileSettling.set(stopped.isTerminated());
                return false;                            // settled, not returned: counted as completed
            });

            assertEquals(List.of(), returned);
            assertFalse(terminatedWhileSettling.get(), "the group terminated before its drain was settled");
            assertTrue(stopped.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "the group did not terminate");
            assertEquals(2, stopped.completedTasks(), "the task that ran and the drained one settled");
        } finally {
            engine.shutdownNow();
        }
    }
    @Test
    void thePoolDoesNotTerminateWhileAGroupsDrainIsSettled() throws Exception {
        Engine engine = startEngine("drain-settle-pool");
        try {
            CountDownLatch release = new CountDownLatch(1);
            Group stopped = holdingTheWorker(engine, release);

            AtomicBoolean poolTerminatedWhileSettling = new AtomicBoolean();
            AtomicBoolean groupTerminatedWhileSettling = new AtomicBoolean();
            engine.shutdownNow(stopped, task -> {
                release.countDown();
                engine.shutdownNow();                    // the pool stops meanwhile: its only worker exits
                try {
                    Liveness.awaitCondition(() -> engine.worker(0).hasExited(), "the worker to exit");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                poolTerminatedWhileSettling.set(engine.isTerminated());
                groupTerminatedWhileSettling.set(stopped.isTerminated());
                return false;
            });

            assertFalse(poolTerminatedWhileSettling.get(), "the pool terminated before the group's drain was settled");
            assertFalse(groupTerminatedWhileSettling.get(), "the group terminated before its drain was settled");
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "the pool did not terminate");
            assertTrue(stopped.isTerminated(), "the group did not terminate with the pool");
            assertEquals(2, stopped.completedTasks(), "the task that ran and the drained one settled");
        } finally {
            engine.shutdownNow();
        }
    }
}
