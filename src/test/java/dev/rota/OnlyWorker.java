package dev.rota;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;

/** A pool's only worker held by a task, so that due tasks the timer hands over wait in its queue. */
final class OnlyWorker {
    private OnlyWorker() {}

    /** Holds the pool's only worker until {@code release} (or shutdownNow's interrupt); returns once it is held. */
    static void occupy(RotaPool pool, CountDownLatch release) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();     // shutdownNow's interrupt ends it
            }
        });
        Liveness.await(started, "the occupying task never started");
    }

    /** Waits until the timer has handed {@code count} due tasks to the pool, whose only worker is busy. */
    static void awaitQueued(RotaPool pool, int count) throws InterruptedException {
        Liveness.awaitCondition(() -> pool.queuedTasks() >= count, count + " due tasks in the worker's queue");
    }
}
