package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.contract.Liveness;
import dev.rota.contract.Spares;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A join nested in a managed block that found no spare: at help depth 32 the join asks for a spare
 * and, with none, must help on past the bound. The outer block's request for the next spare that
 * comes free is not a spare standing in: a nested join that blocked on it would wait for a fork on
 * the worker's own deque, for ever with {@code maxSpareThreads(0)}, or until the busy spare is free.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NestedJoinInABlockWithoutSpareTest {

    static final class Chain extends RotaTask<Integer> {
        final int level;

        Chain(int level) {
            this.level = level;
        }

        @Override
        protected Integer compute() {
            if (level < 32) {
                Chain x = new Chain(level + 1);
                x.fork();
                RotaTask<Integer> d = RotaTask.adapt(() -> 0);
                d.fork();                                 // on top: the join of x helps (depth + 1)
                int r = x.join();
                d.join();
                return r;
            }
            RotaTask<Integer> a = RotaTask.adapt(() -> 7);
            a.fork();
            RotaTask<Integer> d = RotaTask.adapt(() -> 0);
            d.fork();                                     // on top: a is not unpushed by its join
            try {
                RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                    @Override
                    public boolean block() {
                        a.join();                         // too deep: blockWithSpare, nested
                        return true;
                    }

                    @Override
                    public boolean isReleasable() {
                        return a.isDone();
                    }
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            d.join();
            return a.join();
        }
    }

    @Test
    void nestedJoinWithNoSpareHelpsPastTheBound() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).build();
        try {
            RotaTask<Integer> root = new Chain(0);
            pool.submit(root);
            assertEquals(7, root.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void nestedJoinWithBusySpareHelpsPastTheBound() throws Exception {
        CountDownLatch spareBusy = new CountDownLatch(1);
        CountDownLatch releaseA = new CountDownLatch(1);
        CountDownLatch releaseQ = new CountDownLatch(1);
        RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(1).build();
        try {
            Spares.blockTheOnlyWorker(pool, releaseA);
            pool.execute(() -> {                          // runs on the spare, which then stays busy
                spareBusy.countDown();
                Liveness.awaitUninterruptibly(releaseQ);
            });
            Liveness.await(spareBusy, "spare busy");
            releaseA.countDown();
            RotaTask<Integer> root = new Chain(0);
            pool.submit(root);
            assertEquals(7, root.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            releaseA.countDown();
            releaseQ.countDown();
            pool.shutdownNow();
        }
    }
}
