package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.contract.Liveness;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A spare's task is charged its thread's CPU time where the JVM measures it. An application may
 * switch that measurement off at any time ({@link ThreadMXBean#setThreadCpuTimeEnabled}), and the
 * JVM then answers -1 for the thread's CPU time: the task must still be charged the time it ran,
 * by the wall clock, not nothing (and not the difference of a -1 and a real reading). The wall clock
 * less the time the task blocked, counted once: a managed block nested in another is part of the
 * outer one's time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpareCpuChargeTest {

    private static final long SPIN_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** Far longer than the spin, so that taking it out twice leaves nothing of the spin to charge. */
    private static final long NESTED_BLOCK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    @Test
    void aSpareTaskIsChargedEvenOnceThreadCpuTimeIsSwitchedOff() throws Exception {
        chargeOfASpareTask(() -> spin(SPIN_NANOS));
    }

    @Test
    void aManagedBlockNestedInAnotherIsTakenOutOfASpareTaskOnce() throws Exception {
        chargeOfASpareTask(() -> {
            spin(SPIN_NANOS);
            try {
                Engine.managedBlock(new Nesting(new Timed(NESTED_BLOCK_NANOS)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Runs {@code task}, which spins for SPIN_NANOS, on a spare with thread CPU time off; checks its charge. */
    private static void chargeOfASpareTask(Runnable task) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled(),
                "this JVM does not measure thread CPU time");
        ThreadCpuClock.now();                            // the clock is set up while the measurement is on
        Engine engine = new Engine("spare-cpu", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false,
                null, true);
        engine.start();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        threads.setThreadCpuTimeEnabled(false);
        try {
            Dispatcher dispatcher = engine.dispatcher();
            Group blocker = dispatcher.newGroup("blocker", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            Group tier = dispatcher.newGroup("tier", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            AtomicLong charged = new AtomicLong(-1);
            CountDownLatch chargedOnce = new CountDownLatch(1);
            dispatcher.observeSlices((group, used) -> {
                if (group == tier && charged.compareAndSet(-1, used)) {
                    chargedOnce.countDown();
                }
            });
            EngineSpares.blockAWorker(engine, blocker, releaseWorker);

            int offered = tier.offer(task);
            assertTrue(offered == Group.ACCEPTED, "offer refused: " + offered);
            Liveness.await(chargedOnce, "the spare's task charged");
            assertTrue(charged.get() >= SPIN_NANOS,
                    "a task that ran " + SPIN_NANOS + " ns on a spare was charged " + charged.get() + " ns");
        } finally {
            threads.setThreadCpuTimeEnabled(true);
            releaseWorker.countDown();
            engine.shutdownNow();
            assertTrue(engine.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    /** Blocks for {@code nanos} of the wall clock. */
    private static final class Timed implements ForkJoinPool.ManagedBlocker {
        private final long end;

        Timed(long nanos) {
            this.end = System.nanoTime() + nanos;
        }

        @Override
        public boolean block() {
            LockSupport.parkNanos(end - System.nanoTime());
            return isReleasable();
        }

        @Override
        public boolean isReleasable() {
            return System.nanoTime() - end >= 0;
        }
    }

    /** A blocker whose block is a managed block of {@code inner}. */
    private static final class Nesting implements ForkJoinPool.ManagedBlocker {
        private final ForkJoinPool.ManagedBlocker inner;
        private boolean done;

        Nesting(ForkJoinPool.ManagedBlocker inner) {
            this.inner = inner;
        }

        @Override
        public boolean block() throws InterruptedException {
            Engine.managedBlock(inner);
            done = true;
            return true;
        }

        @Override
        public boolean isReleasable() {
            return done;
        }
    }
}
