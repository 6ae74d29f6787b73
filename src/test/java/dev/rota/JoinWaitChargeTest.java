package dev.rota;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A join whose fork another worker has stolen, with nothing of its group left to help with and no
 * other group waiting, sleeps on the task's monitor. That sleep is not CPU time of the group: the
 * worker's slice clock must not run through it (W4: busy stretches only, never idle time), or the
 * group is charged twice for the fork, once by the worker running it and once by the one waiting.
 */
@Timeout(60)
class JoinWaitChargeTest {
    private static final long FORK_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    @Test
    void aJoinWaitingForAStolenForkIsNotChargedForItsWait() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (RotaPool pool = RotaPool.builder().workers(2).pinning(false).quantum(Duration.ofMillis(1)).build()) {
            TaskGroup group = pool.group("fj", 100);
            AtomicLong cpuUsed = new AtomicLong();
            CountDownLatch forkStarted = new CountDownLatch(1);
            AtomicLong stealWait = new AtomicLong();
            RotaTask<Void> parent = new RotaTask<>() {
                @Override
                protected Void compute() {
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    RotaTask<Void> fork = new RotaTask<>() {
                        @Override
                        protected Void compute() {
                            long c = threads.getCurrentThreadCpuTime();
                            forkStarted.countDown();
                            spin(FORK_NANOS);
                            cpuUsed.addAndGet(threads.getCurrentThreadCpuTime() - c);
                            return null;
                        }
                    };
                    fork.fork();
                    long waitStart = System.nanoTime();
                    try {
                        forkStarted.await();             // the other worker has stolen it
                    } catch (InterruptedException e) {
                        throw new RuntimeException(e);
                    }
                    // A plain wait, charged as any busy time: as long as the steal takes, which a
                    // busy host may make long by descheduling the other worker.
                    stealWait.set(System.nanoTime() - waitStart);
                    fork.join();                         // nothing to help with: the join waits
                    cpuUsed.addAndGet(threads.getCurrentThreadCpuTime() - cpu0);
                    return null;
                }
            };
            group.submit(parent).get(30, TimeUnit.SECONDS);
            // Quiescent: both tasks counted, and both workers' slices ended (they end before parking).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline
                    && (group.stats().completedTasks() < 2 || group.stats().slices() < 2)) {
                Thread.sleep(10);
            }
            Thread.sleep(200);
            GroupStats stats = group.stats();
            // The fork spins FORK_NANOS of wall-clock time; the parent does next to nothing but wait
            // for it. About FORK_NANOS is the group's time; about twice that means the wait was charged.
            assertTrue(stats.cpuTimeNanos() < FORK_NANOS * 3 / 2 + stealWait.get(),
                    "charged " + TimeUnit.NANOSECONDS.toMillis(stats.cpuTimeNanos()) + " ms for a fork of "
                            + TimeUnit.NANOSECONDS.toMillis(FORK_NANOS) + " ms and a parent that only waited for it"
                            + " (thread CPU time of both: " + TimeUnit.NANOSECONDS.toMillis(cpuUsed.get()) + " ms;"
                            + " the wait for the steal: " + TimeUnit.NANOSECONDS.toMillis(stealWait.get()) + " ms): "
                            + stats);
        }
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
