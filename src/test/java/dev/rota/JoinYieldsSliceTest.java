package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A join helps with its group's tasks inside one task of that group, so no slice boundary comes
 * while it lasts. Once the slice has used its quantum while another group waits for the worker, the
 * join yields: its time so far is charged and it blocks with a spare standing in, which serves the
 * groups by their picks. On the pool's only worker, a fork/join computation of a low-ticket group
 * would otherwise hold back every other group until it ends.
 */
@Timeout(60)
class JoinYieldsSliceTest {
    /** Forks of the computation, each busy for {@link #LEAF_NANOS}: 200 quanta of 1 ms in all. */
    private static final int LEAVES = 400;
    private static final long LEAF_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    @Test
    void anotherGroupRunsWhileAForkJoinComputationOfALowTicketGroupJoinsOnTheOnlyWorker() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).pinning(false).quantum(Duration.ofMillis(1)).build()) {
            TaskGroup bronze = pool.group("bronze", 100);
            TaskGroup gold = pool.group("gold", 300);
            Computation computation = new Computation();
            bronze.submit(computation);
            computation.forked.await();

            Future<Integer> gold1 = gold.submit(computation.leavesDone::get);
            int doneWhenGoldRan = gold1.get(30, TimeUnit.SECONDS);
            computation.get(30, TimeUnit.SECONDS);

            assertEquals(LEAVES, computation.leavesDone.get());
            // Gold is owed its turn about a quantum (two leaves) into the join; half the computation
            // is a margin of a hundred quanta.
            assertTrue(doneWhenGoldRan < LEAVES / 2,
                    "gold ran only after " + doneWhenGoldRan + " of " + LEAVES + " leaves of bronze's join");
        }
    }

    @Test
    void withNoSpareToStandInTheJoinHelpsOnAndTheComputationEnds() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).pinning(false).maxSpareThreads(0)
                .quantum(Duration.ofMillis(1)).build()) {
            TaskGroup bronze = pool.group("bronze", 100);
            TaskGroup gold = pool.group("gold", 300);
            Computation computation = new Computation();
            bronze.submit(computation);
            computation.forked.await();

            Future<Integer> gold1 = gold.submit(computation.leavesDone::get);
            computation.get(30, TimeUnit.SECONDS);

            assertEquals(LEAVES, computation.leavesDone.get());
            gold1.get(30, TimeUnit.SECONDS);             // gold runs once the join is over
        }
    }

    /** Forks {@link #LEAVES} busy leaves, then joins them oldest first, so the join helps with the rest. */
    private static final class Computation extends RotaTask<Void> {
        final CountDownLatch forked = new CountDownLatch(1);
        final AtomicInteger leavesDone = new AtomicInteger();

        @Override
        protected Void compute() {
            List<RotaTask<Void>> leaves = new ArrayList<>();
            for (int i = 0; i < LEAVES; i++) {
                RotaTask<Void> leaf = new Leaf(leavesDone);
                leaf.fork();
                leaves.add(leaf);
            }
            forked.countDown();
            for (RotaTask<Void> leaf : leaves) {
                leaf.join();
            }
            return null;
        }
    }

    /** Busy for {@link #LEAF_NANOS}, then counts itself. */
    private static final class Leaf extends RotaTask<Void> {
        private final AtomicInteger done;

        Leaf(AtomicInteger done) {
            this.done = done;
        }

        @Override
        protected Void compute() {
            spin(LEAF_NANOS);
            done.incrementAndGet();
            return null;
        }
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
