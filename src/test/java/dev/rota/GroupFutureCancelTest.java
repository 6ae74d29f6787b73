package dev.rota;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code cancel(true)} of a group's future interrupts the thread while the future's own code runs
 * there, and only then: not a second run of the same future that returns at once (a worker reaching
 * the queued copy of a future its waiter runs), and not another future's code run in place inside
 * it, after which the interrupt is set for it. A cancel interrupts the future's code once: no task
 * that runs inside that code later (a join's help, a future run in place) sets it again.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GroupFutureCancelTest {

    /**
     * A group whose queue holds one task and whose rejection policy runs a refused task in place:
     * on a pool of one worker busy with the submitting task, a first submission fills it, and each
     * later one runs inside the submitting task.
     */
    private static TaskGroup callerRunsGroupOfOne(RotaPool pool) {
        TaskGroup full = pool.group("full", 100);
        full.setQueueCapacity(1);
        full.setRejectionPolicy(RejectionPolicy.CALLER_RUNS);
        return full;
    }

    /** Spins until interrupted, or gives up after the liveness bound; says whether it was interrupted. */
    private static boolean spinUntilInterrupted() {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        while (!Thread.currentThread().isInterrupted() && System.nanoTime() < giveUp) {
            Thread.onSpinWait();
        }
        return Thread.currentThread().isInterrupted();
    }

    /**
     * Worker 0 runs a server future for the client task waiting on it (no spare); worker 1, freed
     * afterwards, reaches the future's queued copy, whose run returns at once. A cancel(true) of the
     * future after that must still interrupt worker 0, which runs the future's code.
     */
    @Test
    void aCancelReachesTheRunThatHoldsTheFutureAfterASecondRunReturned() throws Exception {
        int[] cpus = TwoCpus.ids();
        int first = cpus[0];
        int second = cpus[1];
        try (RotaPool pool = RotaPool.builder().cpus(first, second).maxSpareThreads(0).build()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            TaskGroup holder = pool.group("holder", 100);
            client.restrictToCpus(first);
            holder.restrictToCpus(second);
            CountDownLatch secondHeld = new CountDownLatch(1);
            CountDownLatch releaseSecond = new CountDownLatch(1);
            holder.execute(() -> {                       // holds worker 1: not a managed block
                secondHeld.countDown();
                Liveness.awaitUninterruptibly(releaseSecond);
            });
            Liveness.await(secondHeld, "worker 1 held");

            CountDownLatch started = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            CountDownLatch ended = new CountDownLatch(1);
            AtomicReference<Future<?>> awaited = new AtomicReference<>();
            client.submit(() -> {
                awaited.set(server.submit(() -> {
                    started.countDown();
                    interrupted.set(spinUntilInterrupted());
                    ended.countDown();
                }));
                awaited.get().get();                     // worker 0 runs it: no spare, worker 1 held
                return null;
            });
            Liveness.await(started, "the server's future running for its waiter");
            releaseSecond.countDown();
            Liveness.awaitCondition(() -> server.stats().completedTasks() == 1, "worker 1 reached the queued copy");

            assertTrue(awaited.get().cancel(true));
            Liveness.await(ended, "the server's future's code");
            assertTrue(interrupted.get(), "cancel(true) did not interrupt the thread running the future's code");
        }
    }

    /**
     * A future whose code runs another group's future in place (a caller-runs rejection policy):
     * a cancel(true) of the outer one while the inner one runs leaves the inner one alone, and the
     * outer one finds the interrupt set once the inner one returns, once: a second future run in
     * place afterwards does not set it again.
     */
    @Test
    void aCancelDuringAFutureRunInPlaceReachesTheOuterOneAfterIt() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).build()) {
            TaskGroup outerGroup = pool.group("outer", 100);
            TaskGroup full = callerRunsGroupOfOne(pool);
            CountDownLatch innerStarted = new CountDownLatch(1);
            CountDownLatch releaseInner = new CountDownLatch(1);
            CountDownLatch outerDone = new CountDownLatch(1);
            AtomicBoolean innerInterrupted = new AtomicBoolean();
            AtomicBoolean outerInterrupted = new AtomicBoolean();
            AtomicBoolean interruptedAgain = new AtomicBoolean();
            Future<?> outer = outerGroup.submit(() -> {
                full.execute(() -> { });                 // fills the queue: the only worker runs this task
                full.submit(() -> {                      // refused, so run here, inside this task
                    innerStarted.countDown();
                    while (releaseInner.getCount() > 0) {
                        Thread.onSpinWait();
                    }
                    innerInterrupted.set(Thread.currentThread().isInterrupted());
                });
                outerInterrupted.set(Thread.interrupted());
                full.submit(() -> { });                  // refused again: a second run in place
                interruptedAgain.set(Thread.currentThread().isInterrupted());
                outerDone.countDown();
            });
            Liveness.await(innerStarted, "the inner future running in place");
            assertTrue(outer.cancel(true));
            releaseInner.countDown();
            Liveness.await(outerDone, "the outer future's code");
            assertFalse(innerInterrupted.get(), "the outer future's cancel interrupted the inner one");
            assertTrue(outerInterrupted.get(), "the outer future's code did not find its cancel's interrupt");
            assertFalse(interruptedAgain.get(), "a second run in place set the cancel's interrupt again");
        }
    }

    /**
     * A future's code, interrupted by its cancel(true) while it ran its own code, handles the
     * interrupt and goes on: a join that then helps (a fork run inside it) and a future run in place
     * inside it must not interrupt it again, for each of them.
     */
    @Test
    void aCancelInterruptsTheCodeOnceThoughTasksRunInsideItAfterwards() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).build()) {
            TaskGroup outerGroup = pool.group("outer", 100);
            TaskGroup full = callerRunsGroupOfOne(pool);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            AtomicBoolean interruptedByCancel = new AtomicBoolean();
            List<String> interruptedAgain = new ArrayList<>();
            AtomicBoolean helpedTaskRan = new AtomicBoolean();
            Future<?> outer = outerGroup.submit(() -> {
                started.countDown();
                interruptedByCancel.set(spinUntilInterrupted());
                Thread.interrupted();                    // handled: the code goes on, as cleanup code may
                RotaTask<?> first = RotaTask.adapt(() -> { }).fork();
                RotaTask.adapt(() -> helpedTaskRan.set(true)).fork(); // newest: the join of the first helps with it
                first.join();
                if (Thread.currentThread().isInterrupted()) {
                    interruptedAgain.add("after a join that helped");
                    Thread.interrupted();
                }
                full.execute(() -> { });                 // fills the queue: the only worker runs this task
                full.submit(() -> { });                  // refused, so run here, inside this task
                if (Thread.currentThread().isInterrupted()) {
                    interruptedAgain.add("after a future run in place");
                }
                done.countDown();
            });
            Liveness.await(started, "the future's code");
            assertTrue(outer.cancel(true));
            Liveness.await(done, "the future's code after its cancel");
            assertTrue(interruptedByCancel.get(), "cancel(true) did not interrupt the future's code");
            assertTrue(helpedTaskRan.get(), "the join did not help with the newer fork");
            assertTrue(interruptedAgain.isEmpty(), "interrupted again " + interruptedAgain);
        }
    }
}
