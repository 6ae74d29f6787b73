package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.RotaTask;
import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import dev.rota.share.LotteryScheduler;
import dev.rota.share.ShareScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Lottery compensation for a slice charged in parts. A join that yields its slice (its quantum used
 * while another group has work) charges the slice's time so far, and the slice's end charges what
 * follows. The slice as a whole used more than its quantum, so its group must not then compete with
 * its tickets inflated by 1/f, f being the fraction of a quantum that the last part alone took: a
 * group whose fork/join tasks yield would take nearly every draw after each of them.
 *
 * <p>One worker, a quantum of 20 ms. A task of {@code bronze} runs three quanta, forks tiny leaves
 * and joins the oldest while {@code gold} has work queued: the join yields, a charge of three quanta
 * or more, and blocks while a spare stands in; after the join the task returns at once, so the
 * slice ends with little more. bronze's compensation is read right after each charge the worker
 * makes; the spare's turns (one tiny leaf each, rightly compensated) do not count.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class YieldedSliceCompensationTest {
    private static final long QUANTUM = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int LEAVES = 8;

    /** Delegates to a lottery, noting the watched client's compensation after each charge made on a worker. */
    private static final class Observed implements ShareScheduler {
        final LotteryScheduler lottery = new LotteryScheduler(new SplittableRandom(11));
        /** Under the dispatcher's lock, as every call here. */
        final List<Double> compensations = new ArrayList<>();
        final List<String> charges = new ArrayList<>();
        volatile int watched = -1;

        @Override
        public void setValue(int client, double value) {
            lottery.setValue(client, value);
        }

        @Override
        public void remove(int client) {
            lottery.remove(client);
        }

        @Override
        public int pick() {
            return lottery.pick();
        }

        @Override
        public int pick(IntPredicate eligible) {
            return lottery.pick(eligible);
        }

        @Override
        public int pick(IntPredicate eligible, RandomGenerator random) {
            return lottery.pick(eligible, random);
        }

        @Override
        public void charge(int client, long usedNanos, long quantumNanos) {
            lottery.charge(client, usedNanos, quantumNanos);
            note(client, usedNanos + " ns");
        }

        @Override
        public void chargeSliceEnd(int client, long usedNanos, long sliceNanos, long quantumNanos) {
            lottery.chargeSliceEnd(client, usedNanos, sliceNanos, quantumNanos);
            note(client, usedNanos + " ns of a slice of " + sliceNanos + " ns");
        }

        @Override
        public void forgiveCredit(int client) {
            lottery.forgiveCredit(client);
        }

        private void note(int client, String charged) {
            if (client == watched && Thread.currentThread() instanceof WorkerThread) {
                compensations.add(lottery.compensation(client));
                charges.add(charged + " (compensation then " + lottery.compensation(client) + ")");
            }
        }
    }

    @Test
    void aSliceThatUsedItsQuantumBeforeItsJoinYieldedIsNotCompensatedForTheRest() throws Exception {
        Observed policy = new Observed();
        Engine engine = new Engine("yielded-slice", new int[] {0}, new int[][] {{}}, new NoAffinity("test"),
                false, null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS,
                policy, QUANTUM, 7);
        engine.start();
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group bronze = dispatcher.newGroup("bronze", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            Group gold = dispatcher.newGroup("gold", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            policy.watched = bronze.client().id();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch goldQueued = new CountDownLatch(1);
            CountDownLatch bronzeDone = new CountDownLatch(1);
            assertAccepted(bronze.offer(() -> {
                started.countDown();
                Liveness.awaitUninterruptibly(goldQueued);
                spin(3 * QUANTUM);
                List<RotaTask<Void>> leaves = new ArrayList<>();
                for (int i = 0; i < LEAVES; i++) {
                    RotaTask<Void> leaf = new Leaf();
                    leaf.fork();
                    leaves.add(leaf);
                }
                leaves.getFirst().join();                // not the newest fork: the join helps, then yields
                bronzeDone.countDown();
            }));
            Liveness.await(started, "bronze's task");
            int goldTasks = 4;
            CountDownLatch goldDone = new CountDownLatch(goldTasks);
            for (int i = 0; i < goldTasks; i++) {
                assertAccepted(gold.offer(() -> {
                    spin(QUANTUM);
                    goldDone.countDown();
                }));
            }
            goldQueued.countDown();
            Liveness.await(bronzeDone, "bronze's task");
            Liveness.await(goldDone, "gold's tasks");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (dispatcher.read(() -> policy.charges.size()) < 2 && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);                         // the slice ends just after its task
            }
            List<String> charges = dispatcher.read(() -> List.copyOf(policy.charges));
            List<Double> compensations = dispatcher.read(() -> List.copyOf(policy.compensations));
            assertTrue(compensations.size() >= 2, "the worker charged bronze's slice in two parts: " + charges);
            assertTrue(compensations.get(1) <= 1,
                    "bronze's slice used three quanta, yet bronze competes with its tickets × "
                            + compensations.get(1) + " after its end; the worker's charges: " + charges);
        } finally {
            engine.shutdown();
        }
    }

    private static final class Leaf extends RotaTask<Void> {
        @Override
        protected Void compute() {
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
