package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A started engine of two workers, with a quantum of an hour, whose worker 1 is held by a long task
 * of a group confined to it until {@link #release()}: a task offered meanwhile to another group runs
 * on worker 0. For the tests of what a worker does once a mask change moves a group off it.
 */
final class WorkerOneHeld implements AutoCloseable {
    final Engine engine;
    final Dispatcher dispatcher;
    private final CountDownLatch release = new CountDownLatch(1);

    private WorkerOneHeld(String name) {
        engine = new Engine(name, new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"), false, null, true,
                Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS, new StrideScheduler(),
                TimeUnit.HOURS.toNanos(1), 42);
        dispatcher = engine.dispatcher();
    }

    /** Starts the engine and returns once worker 1 runs the long task. */
    static WorkerOneHeld start(String name) throws InterruptedException {
        WorkerOneHeld held = new WorkerOneHeld(name);
        held.engine.start();
        try {
            Group busy = held.newGroup("busy");
            busy.restrictTo(WorkerMask.of(2, 1));
            CountDownLatch busyStarted = new CountDownLatch(1);
            assertAccepted(busy.offer(() -> {
                busyStarted.countDown();
                try {
                    held.release.await(Liveness.SECONDS, TimeUnit.SECONDS); // bounded, so that a failing run still ends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            Liveness.await(busyStarted, "the long task on worker 1");
            return held;
        } catch (RuntimeException | Error | InterruptedException e) {
            held.close();
            throw e;
        }
    }

    /** A group of 100 base tickets, unbounded, free to run on both workers. */
    Group newGroup(String name) {
        return dispatcher.newGroup(name, dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
    }

    /** Ends the long task: worker 1 looks for work again. */
    void release() {
        release.countDown();
    }

    /** The index of the worker running the caller, or -1 on another thread. */
    static int workerIndex() {
        return Thread.currentThread() instanceof WorkerThread wt ? wt.worker.index : -1;
    }

    @Override
    public void close() throws InterruptedException {
        release.countDown();
        engine.shutdownNow();
        assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
    }
}
