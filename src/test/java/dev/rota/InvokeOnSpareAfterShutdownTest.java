package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import dev.rota.contract.Spares;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code pool.invoke(task)} from inside the pool is part of a task already accepted, so it runs
 * after {@code shutdown()} as a fork does, as {@code ForkJoinPool.invoke} from one of its own
 * threads does (a compensating thread included). A spare thread, standing in for a worker blocked in
 * a managed block, runs tasks of the pool as a worker does: the same code must not be refused there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InvokeOnSpareAfterShutdownTest {

    @Test
    void invokeFromASpareRunsAfterShutdown() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        Spares.blockTheOnlyWorker(pool, releaseWorker);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Future<Integer> outer = pool.submit(() -> {
            started.countDown();
            Liveness.awaitUninterruptibly(go);
            return pool.invoke(new RotaTask<Integer>() {
                @Override
                protected Integer compute() {
                    ranOn.set(Thread.currentThread());
                    return 6 * 7;
                }
            });
        });
        Liveness.await(started, "the task on the spare never started");
        pool.shutdown();
        go.countDown();
        assertEquals(42, outer.get(Liveness.SECONDS, TimeUnit.SECONDS),
                "pool.invoke from a task on a spare was refused after shutdown");
        releaseWorker.countDown();
        assertTrue(pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
    }
}
