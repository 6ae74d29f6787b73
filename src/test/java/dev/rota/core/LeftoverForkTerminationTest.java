package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static dev.rota.core.WorkerOneHeld.workerIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.contract.ProbeFork;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fork made after its group's shutdownNow drained the group, and left unjoined on the deque of a
 * worker that the group's mask no longer allows (W5), is cancelled when that worker's slice of the
 * group ends (W2), and the group terminates then: the workers the mask allows, which would otherwise
 * have to take the fork to cancel it, may be held by another group's task for as long as it runs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeftoverForkTerminationTest {

    /** A started engine of two workers, with the given quantum. */
    private static Engine startEngine(String name, long quantumNanos) {
        Engine engine = new Engine(name, new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"),
                false, null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS,
                new StrideScheduler(), quantumNanos, 42);
        engine.start();
        return engine;
    }

    /** A group of {@code tickets} base tickets allowed only on worker {@code w}, whose one task holds w until {@code release}. */
    private static Group holdWorker(Engine engine, String name, long tickets, int w, CountDownLatch release)
            throws InterruptedException {
        Dispatcher dispatcher = engine.dispatcher();
        Group group = dispatcher.newGroup(name, dispatcher.baseCurrency(), tickets, Group.UNBOUNDED, 16);
        group.restrictTo(WorkerMask.of(2, w));
        CountDownLatch holding = new CountDownLatch(1);
        AtomicInteger heldOn = new AtomicInteger(-1);
        assertAccepted(group.offer(() -> {
            heldOn.set(workerIndex());
            holding.countDown();
            ProbeFork.awaitIgnoringInterrupts(release);
        }));
        Liveness.await(holding, "the long task of " + name);
        assertEquals(w, heldOn.get());
        return group;
    }

    @Test
    void aForkLeftOnAWorkerTheMaskExcludesIsCancelledAsItsSliceEnds() throws Exception {
        Engine engine = startEngine("leftover-fork-mask", TimeUnit.HOURS.toNanos(1));
        CountDownLatch release = new CountDownLatch(1);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group busy = holdWorker(engine, "busy", 100, 1, release);

            Group moved = dispatcher.newGroup("moved", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            ProbeFork fork = new ProbeFork();
            AtomicInteger ranOn = new AtomicInteger(-1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            assertAccepted(moved.offer(() -> {
                ranOn.set(workerIndex());
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(stopped);
                fork.fork();                             // on worker 0's deque, after the drain
            }));
            Liveness.await(started, "moved's task never started");
            assertEquals(0, ranOn.get(), "set-up: worker 1 is held, so worker 0 runs moved's task");
            moved.restrictTo(WorkerMask.of(2, 1));       // only the held worker may run moved now
            assertTrue(engine.shutdownNow(moved).isEmpty(), "set-up: nothing was queued");
            stopped.countDown();

            assertTrue(moved.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS),
                    "moved waits for the held worker to cancel its fork: " + fork);
            assertTrue(fork.isCancelled(), "the fork left behind is cancelled: " + fork);
            assertFalse(fork.ran.get(), "a fork made after the drain ran unjoined");
            assertFalse(busy.isTerminated());
        } finally {
            release.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /**
     * The same without a mask: the worker that holds the fork ends its slice of the group before it
     * has taken the fork (another group's activation is pending), and its next slice is of that other
     * group, whose task holds it from then on; the other worker is held too. The fork is cancelled as
     * the slice ends, and the group terminates then, rather than once a worker comes back to it.
     * The quantum of a microsecond and the tickets (1 against a million) make the pick at that
     * slice end the other group's, whatever the time the first task ran.
     */
    @Test
    void aForkLeftWhenItsSliceEndsForAnotherGroupIsCancelledAsItEnds() throws Exception {
        Engine engine = startEngine("leftover-fork-switch", 1_000);
        CountDownLatch release = new CountDownLatch(1);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            holdWorker(engine, "busy", 100, 1, release);

            Group stopped = dispatcher.newGroup("stopped", dispatcher.baseCurrency(), 1, Group.UNBOUNDED, 16);
            ProbeFork fork = new ProbeFork();
            AtomicInteger ranOn = new AtomicInteger(-1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch drained = new CountDownLatch(1);
            assertAccepted(stopped.offer(() -> {
                ranOn.set(workerIndex());
                started.countDown();
                ProbeFork.awaitIgnoringInterrupts(drained);
                fork.fork();                             // on worker 0's deque, after the drain
            }));
            Liveness.await(started, "stopped's task never started");
            assertEquals(0, ranOn.get(), "set-up: worker 1 is held, so worker 0 runs stopped's task");
            assertTrue(engine.shutdownNow(stopped).isEmpty(), "set-up: nothing was queued");
            Group next = dispatcher.newGroup("next", dispatcher.baseCurrency(), 1_000_000, Group.UNBOUNDED, 16);
            next.restrictTo(WorkerMask.of(2, 0));
            CountDownLatch nextStarted = new CountDownLatch(1);
            assertAccepted(next.offer(() -> {
                nextStarted.countDown();
                ProbeFork.awaitIgnoringInterrupts(release);        // worker 0, from the slice after stopped's
            }));
            drained.countDown();

            Liveness.await(nextStarted, "next's task on worker 0");
            assertTrue(stopped.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS),
                    "stopped waits for a worker to come back to its fork: " + fork);
            assertTrue(fork.isCancelled(), "the fork left behind is cancelled: " + fork);
            assertFalse(fork.ran.get(), "a fork made after the drain ran unjoined");
        } finally {
            release.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }
}
