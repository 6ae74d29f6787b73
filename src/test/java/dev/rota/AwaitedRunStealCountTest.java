package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code stolenTasks()} counts every task a worker takes from another worker's queues, also one that
 * a join takes inside a task its waiter runs in place (no spare), as a help of the awaited group:
 * here a task queued in the other worker's inbox, which that worker, held, cannot take itself.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AwaitedRunStealCountTest {

    @Test
    void aTaskTakenFromAnotherWorkersInboxInsideAnAwaitedRunCountsAsStolen() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).maxSpareThreads(0).pinning(false).build()) {
            TaskGroup hold = pool.group("hold", 100);
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch submitG = new CountDownLatch(1);
            CountDownLatch gSubmitted = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Thread> holder = new AtomicReference<>();
            AtomicReference<Thread> gRanOn = new AtomicReference<>();
            AtomicReference<Thread> tRanOn = new AtomicReference<>();
            AtomicLong stolenDuringJoin = new AtomicLong(-1);
            RotaTask<Integer> g = RotaTask.adapt(() -> {
                gRanOn.set(Thread.currentThread());
                return 1;
            });
            // Worker k: holds itself in `hold`, and on request submits g from its own thread, so g
            // waits in worker k's inbox of `server`.
            hold.execute(() -> {
                holder.set(Thread.currentThread());
                held.countDown();
                Liveness.awaitUninterruptibly(submitG);
                server.execute(g);
                gSubmitted.countDown();
                Liveness.awaitUninterruptibly(release);
            });
            try {
                Liveness.await(held, "worker k held");
                RotaTask<Integer> t = RotaTask.adapt(() -> {
                    tRanOn.set(Thread.currentThread());
                    submitG.countDown();
                    Liveness.awaitUninterruptibly(gSubmitted);
                    long before = pool.stolenTasks();
                    int r = g.join();                    // helpInAwaitedRun -> Engine.takeOne -> worker k's inbox
                    stolenDuringJoin.set(pool.stolenTasks() - before);
                    return r;
                });
                // The other worker runs x; x waits for t of another group with no spare: runs t in place.
                Future<Integer> x = client.submit(() -> {
                    server.execute(t);
                    return t.join();
                });
                assertEquals(1, x.get(Liveness.SECONDS, TimeUnit.SECONDS));
            } finally {
                release.countDown();
            }
            assertSame(tRanOn.get(), gRanOn.get(), "g was taken by the join inside the awaited run");
            assertNotSame(holder.get(), gRanOn.get(), "g came out of the other worker's inbox");
            assertTrue(stolenDuringJoin.get() >= 1,
                    "a task taken from another worker's inbox counts as stolen; counted: " + stolenDuringJoin.get());
        }
    }
}
