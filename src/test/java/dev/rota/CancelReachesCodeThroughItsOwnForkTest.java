package dev.rota;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cancel(true) of a group's future that comes while a join inside the future's code runs another
 * task (a helped task) is owed to the future's code, which must find it set once the helped task has
 * returned (README, "Blocking inside tasks"). Here the join is made by a fork of the future's task
 * that its own join runs in place ({@code left.fork(); ...; left.join()}, the fork still on the
 * worker's deque): that fork is the future's own code, on the future's own stack, so the interrupt
 * must reach it, or the future's code once the fork returns. It must not be lost.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CancelReachesCodeThroughItsOwnForkTest {

    private static boolean spinUntilInterrupted(long seconds) {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!Thread.currentThread().isInterrupted() && System.nanoTime() < giveUp) {
            Thread.onSpinWait();
        }
        return Thread.currentThread().isInterrupted();
    }

    /**
     * A fork whose join of its first subtask helps with its second, newest, which waits until the
     * future in {@code self} is cancelled; {@code forkSawIt} says whether the fork found its thread
     * interrupted once its join returned.
     */
    private static RotaTask<Void> forkThatJoinsWhileHelping(CountDownLatch helping, AtomicReference<Future<?>> self,
            AtomicBoolean forkSawIt) {
        return new RotaTask<>() {
            @Override
            protected Void compute() {
                RotaTask<?> first = RotaTask.adapt(() -> { });
                RotaTask<Object> second = RotaTask.adapt(() -> {
                    helping.countDown();                 // runs as a helped task of first's join
                    Liveness.awaitCondition(() -> self.get() != null && self.get().isCancelled(), "the future cancelled");
                    return null;
                });
                first.fork();
                second.fork();
                first.join();                            // second is newest: the join helps with it
                forkSawIt.set(Thread.currentThread().isInterrupted());
                return null;
            }
        };
    }

    @Test
    void aCancelDuringAHelpedTaskOfAnInPlaceForkReachesTheFuturesCode() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            TaskGroup g = pool.group("g", 100);
            CountDownLatch helping = new CountDownLatch(1);
            AtomicReference<Future<?>> self = new AtomicReference<>();
            AtomicBoolean forkSawIt = new AtomicBoolean();
            AtomicBoolean codeSawIt = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(1);
            Future<?> f = g.submit(() -> {
                RotaTask<Void> outerFork = forkThatJoinsWhileHelping(helping, self, forkSawIt);
                outerFork.fork();
                outerFork.join();                    // still on this worker's deque: runs in place, as own code
                codeSawIt.set(spinUntilInterrupted(5));
                done.countDown();
                return null;
            });
            self.set(f);
            Liveness.await(helping, "the helped task started");
            assertTrue(f.cancel(true));
            Liveness.await(done, "the future's code ended");
            assertTrue(forkSawIt.get() || codeSawIt.get(),
                    "the cancel(true) that came while a helped task ran was never delivered to the future's code");
        }
    }

    /** The control: the same join made by the future's code itself; the interrupt is set once the helped task returns. */
    @Test
    void aCancelDuringAHelpedTaskOfTheFuturesOwnJoinReachesItsCode() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            TaskGroup g = pool.group("g", 100);
            CountDownLatch helping = new CountDownLatch(1);
            AtomicReference<Future<?>> self = new AtomicReference<>();
            AtomicBoolean codeSawIt = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(1);
            Future<?> f = g.submit(() -> {
                RotaTask<?> first = RotaTask.adapt(() -> { });
                RotaTask<Object> second = RotaTask.adapt(() -> {
                    helping.countDown();
                    Liveness.awaitCondition(() -> self.get() != null && self.get().isCancelled(), "the future cancelled");
                    return null;
                });
                first.fork();
                second.fork();
                first.join();
                codeSawIt.set(spinUntilInterrupted(5));
                done.countDown();
                return null;
            });
            self.set(f);
            Liveness.await(helping, "the helped task started");
            assertTrue(f.cancel(true));
            Liveness.await(done, "the future's code ended");
            assertTrue(codeSawIt.get());
        }
    }

    /**
     * The same for a delayed task's future, whose cancel(true) interrupts the helped task as
     * FutureTask's does and is set again for the waiting code afterwards (README).
     */
    @Test
    void aCancelOfADelayedTaskDuringAHelpedTaskOfAnInPlaceForkReachesItsCode() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            CountDownLatch helping = new CountDownLatch(1);
            AtomicReference<Future<?>> self = new AtomicReference<>();
            AtomicBoolean forkSawIt = new AtomicBoolean();
            AtomicBoolean codeSawIt = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(1);
            Future<?> f = pool.schedule(() -> {
                RotaTask<Void> outerFork = forkThatJoinsWhileHelping(helping, self, forkSawIt);
                outerFork.fork();
                outerFork.join();
                codeSawIt.set(spinUntilInterrupted(5));
                done.countDown();
                return null;
            }, 0, TimeUnit.MILLISECONDS);
            self.set(f);
            Liveness.await(helping, "the helped task started");
            assertTrue(f.cancel(true));
            Liveness.await(done, "the delayed task's code ended");
            assertTrue(forkSawIt.get() || codeSawIt.get(),
                    "the cancel(true) that came while a helped task ran was never delivered to the delayed task's code");
        }
    }
}
