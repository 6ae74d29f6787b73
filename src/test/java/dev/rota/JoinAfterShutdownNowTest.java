package dev.rota;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import dev.rota.contract.Spares.Leaf;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task that keeps running after {@code shutdownNow()} (it ignores the interrupt) and forks and
 * joins then must not keep the pool from terminating. Its forks land on its worker's deque after
 * shutdownNow drained the queues, and no worker takes tasks any more; joining the older fork first
 * (the newer is on top, so the join cannot run it in place) must end, with the fork's result or its
 * cancellation.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JoinAfterShutdownNowTest {

    @Test
    void aJoinAfterShutdownNowDoesNotKeepThePoolAlive() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean drained = new AtomicBoolean();
        AtomicBoolean joined = new AtomicBoolean();
        pool.execute(new RotaTask<Integer>() {
            @Override
            protected Integer compute() {
                started.countDown();
                while (!drained.get()) {                 // a long computation that ignores interrupts
                    Thread.onSpinWait();
                }
                Leaf first = new Leaf();
                Leaf second = new Leaf();
                first.fork();
                second.fork();
                try {
                    return first.join() + second.join(); // join in fork order, not LIFO
                } catch (RuntimeException cancelled) {
                    return 0;                            // cancelled is fine: the point is to return
                } finally {
                    joined.set(true);
                }
            }
        });
        Liveness.await(started, "the forking task never started");
        pool.shutdownNow();
        drained.set(true);
        assertTrue(pool.awaitTermination(15, TimeUnit.SECONDS),
                "the pool did not terminate: its task waits for ever in join() (joined: " + joined.get() + ")");
    }
}
