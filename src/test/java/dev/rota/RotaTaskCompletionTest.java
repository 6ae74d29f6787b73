package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code ForkJoinTask} methods that act on a task from outside its {@code compute()}:
 * {@code complete}, {@code completeExceptionally}, {@code quietlyComplete}, {@code tryUnfork},
 * {@code getSurplusQueuedTaskCount} and {@code adapt}. A pool of one worker, so that nobody steals
 * a fork that a test takes back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RotaTaskCompletionTest {
    private RotaPool pool;

    @BeforeEach
    void start() {
        pool = RotaPool.builder().workers(1).build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    }

    /** Counts its computations and returns {@code value}. */
    static final class Counted extends RotaTask<Integer> {
        final AtomicInteger computed = new AtomicInteger();
        final int value;

        Counted(int value) {
            this.value = value;
        }

        @Override
        protected Integer compute() {
            computed.incrementAndGet();
            return value;
        }
    }

    /** Waits in compute() until released, then returns 1. */
    static final class Gated extends RotaTask<Integer> {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected Integer compute() {
            started.countDown();
            Liveness.awaitUninterruptibly(release);
            return 1;
        }
    }

    @Test
    void completeBeforeAnyRunGivesTheValueAndComputeNeverRuns() throws Exception {
        Counted task = new Counted(1);

        assertTrue(task.complete(7));

        assertTrue(task.isDone());
        assertTrue(task.isCompletedNormally());
        assertFalse(task.isCompletedAbnormally());
        assertNull(task.getException());
        assertEquals(7, task.join());
        assertEquals(7, task.get());
        assertEquals(7, task.invoke());
        assertEquals(7, pool.submit((Runnable) task).get(30, TimeUnit.SECONDS));
        assertEquals(0, task.computed.get());
        assertFalse(task.complete(8), "a second completion changes nothing");
        assertFalse(task.completeExceptionally(new IllegalStateException("late")));
        assertFalse(task.cancel(false));
        assertEquals(7, task.join());
        assertTrue(task.toString().endsWith("[completed normally]"), task.toString());
    }

    @Test
    void completeWhileComputeRunsAnswersWaitersAtOnceAndDropsTheComputedResult() throws Exception {
        Gated task = new Gated();
        pool.execute(task);
        assertTrue(task.started.await(30, TimeUnit.SECONDS));
        CompletableFuture<Integer> joined = new CompletableFuture<>();
        Thread joiner = Thread.ofPlatform().start(() -> joined.complete(task.join()));
        while (joiner.getState() != Thread.State.WAITING) {   // in the join's wait on the task
            assertTrue(joiner.isAlive() && !joined.isDone(), "the joiner returned before the completion");
            Thread.onSpinWait();
        }

        assertTrue(task.complete(5));

        assertEquals(5, joined.get(30, TimeUnit.SECONDS), "the joiner waiting before the completion");
        assertEquals(5, task.get(30, TimeUnit.SECONDS));
        task.release.countDown();
        assertTrue(pool.awaitQuiescence(30, TimeUnit.SECONDS));
        assertEquals(5, task.join(), "the run's own result came second and is dropped");
    }

    @Test
    void completeExceptionallyReportsTheSameObjectEverywhere() {
        Counted task = new Counted(1);
        IllegalStateException failure = new IllegalStateException("given");

        assertTrue(task.completeExceptionally(failure));

        assertTrue(task.isCompletedAbnormally());
        assertFalse(task.isCompletedNormally());
        assertFalse(task.isCancelled());
        assertSame(failure, task.getException());
        assertSame(failure, assertThrows(IllegalStateException.class, task::join));
        assertSame(failure, assertThrows(IllegalStateException.class, task::invoke));
        assertSame(failure, assertThrows(ExecutionException.class, task::get).getCause());
        assertFalse(task.complete(3));
        assertEquals(0, task.computed.get());
        assertTrue(task.toString().contains("completed exceptionally: " + failure), task.toString());
    }

    @Test
    void completeExceptionallyWithACheckedExceptionJoinsAsThatException() {
        Counted task = new Counted(1);
        IOException failure = new IOException("checked");
        task.completeExceptionally(failure);

        Exception thrown = assertThrows(Exception.class, task::join);

        assertSame(failure, thrown, "rethrown unwrapped, as an exception thrown by compute() is");
    }

    @Test
    void completeExceptionallyRefusesNull() {
        Counted task = new Counted(1);

        NullPointerException e = assertThrows(NullPointerException.class, () -> task.completeExceptionally(null));

        assertEquals("failure", e.getMessage());
        assertFalse(task.isDone());
    }

    @Test
    void quietlyCompleteCompletesNormallyWithNull() {
        Counted task = new Counted(1);

        task.quietlyComplete();

        assertTrue(task.isCompletedNormally());
        assertNull(task.join());
        assertEquals(0, task.computed.get());
    }

    @Test
    void aCancelledTaskCannotBeCompleted() {
        Counted task = new Counted(1);
        assertTrue(task.cancel(false));

        assertFalse(task.complete(2));
        assertFalse(task.completeExceptionally(new IllegalStateException()));

        assertTrue(task.isCancelled());
        assertThrows(CancellationException.class, task::join);
    }

    @Test
    void aTaskThatRanCannotBeCompletedAgain() {
        Counted task = new Counted(4);
        assertEquals(4, task.invoke());

        assertFalse(task.complete(9));

        assertEquals(4, task.join());
    }

    @Test
    void theFutureOfSubmitWithAResultFollowsAGivenOutcome() throws Exception {
        Counted completed = new Counted(1);
        completed.complete(2);
        Counted failed = new Counted(1);
        IllegalStateException failure = new IllegalStateException("given");
        failed.completeExceptionally(failure);

        Future<String> ok = pool.submit(completed, "result");
        Future<String> bad = pool.submit(failed, "result");

        assertEquals("result", ok.get(30, TimeUnit.SECONDS));
        ExecutionException e = assertThrows(ExecutionException.class, () -> bad.get(30, TimeUnit.SECONDS));
        assertSame(failure, e.getCause());
        assertEquals(0, completed.computed.get() + failed.computed.get());
    }

    @Test
    void aForkCompletedBeforeItRunsIsJoinedWithTheGivenValueAndNeverComputed() {
        Counted child = new Counted(1);
        RotaTask<Integer> parent = new RotaTask<>() {
            @Override
            protected Integer compute() {
                child.fork();
                child.complete(3);
                return child.join();
            }
        };

        assertEquals(3, pool.invoke(parent));
        assertTrue(pool.awaitQuiescence(30, TimeUnit.SECONDS), "the queued copy was taken and skipped");
        assertEquals(0, child.computed.get());
    }

    @Test
    void tryUnforkTakesBackOnlyTheNewestFork() {
        Counted first = new Counted(1);
        Counted second = new Counted(2);
        List<Object> seen = new ArrayList<>();
        RotaTask<Integer> parent = new RotaTask<>() {
            @Override
            protected Integer compute() {
                TaskGroup group = pool.defaultGroup();
                first.fork();
                second.fork();
                seen.add(group.stats().queuedTasks());
                seen.add(first.tryUnfork());             // not the newest: second was pushed after it
                seen.add(second.tryUnfork());
                seen.add(second.tryUnfork());            // taken back already
                seen.add(first.tryUnfork());
                seen.add(group.stats().queuedTasks());
                seen.add(first.isDone() || second.isDone());
                return first.invoke() + second.invoke();
            }
        };

        assertEquals(3, pool.invoke(parent));

        assertEquals(List.of(2L, false, true, false, true, 0L, false), seen);
        assertEquals(1, first.computed.get());
        assertEquals(1, second.computed.get());
    }

    /**
     * getQueuedTaskCount and getSurplusQueuedTaskCount follow the caller's forks not yet run: on one
     * worker, running the caller, none is parked, so the surplus is the whole count.
     */
    @Test
    void queuedAndSurplusCountsFollowTheCallersForks() {
        List<List<Integer>> seen = new ArrayList<>();
        RotaTask<Integer> parent = new RotaTask<>() {
            @Override
            protected Integer compute() {
                seen.add(List.of(getQueuedTaskCount(), getSurplusQueuedTaskCount()));
                Counted[] forks = new Counted[5];
                for (int i = 0; i < forks.length; i++) {
                    forks[i] = new Counted(i);
                    forks[i].fork();
                }
                seen.add(List.of(getQueuedTaskCount(), getSurplusQueuedTaskCount()));
                forks[4].tryUnfork();
                seen.add(List.of(getQueuedTaskCount(), getSurplusQueuedTaskCount()));
                int sum = forks[4].invoke();
                sum += forks[3].join();                   // the newest on the queue, run in place
                seen.add(List.of(getQueuedTaskCount(), getSurplusQueuedTaskCount()));
                for (int i = 2; i >= 0; i--) {
                    sum += forks[i].join();
                }
                seen.add(List.of(getQueuedTaskCount(), getSurplusQueuedTaskCount()));
                return sum;
            }
        };

        assertEquals(10, pool.invoke(parent));

        assertEquals(List.of(List.of(0, 0), List.of(5, 5), List.of(4, 4), List.of(3, 3), List.of(0, 0)), seen);
        assertEquals(0, RotaTask.getQueuedTaskCount(), "outside every pool");
        assertEquals(0, RotaTask.getSurplusQueuedTaskCount(), "outside every pool");
    }

    @Test
    void adaptRunsRunnablesAndCallables() {
        AtomicInteger runs = new AtomicInteger();

        Runnable counting = () -> {
            runs.incrementAndGet();
        };
        RotaTask<?> plain = RotaTask.adapt(counting);
        RotaTask<String> withResult = RotaTask.adapt(counting, "done");
        RotaTask<Integer> callable = RotaTask.adapt(() -> 6 * 7);

        assertNull(pool.invoke(plain));
        assertEquals("done", pool.invoke(withResult));
        assertEquals(42, pool.invoke(callable));
        assertEquals(2, runs.get());
    }

    @Test
    void anAdaptedCallablesCheckedExceptionIsTheTasksFailureAsItIs() {
        IOException failure = new IOException("from the callable");
        RotaTask<Integer> task = RotaTask.adapt(() -> {
            throw failure;
        });

        pool.execute(task);

        assertSame(failure, assertThrows(ExecutionException.class, () -> task.get(30, TimeUnit.SECONDS)).getCause());
        assertSame(failure, assertThrows(Exception.class, task::join));
        assertInstanceOf(IOException.class, task.getException());
    }

    @Test
    void adaptRefusesNull() {
        assertEquals("runnable", assertThrows(NullPointerException.class, () -> RotaTask.adapt((Runnable) null)).getMessage());
        assertEquals("runnable", assertThrows(NullPointerException.class, () -> RotaTask.adapt(null, "r")).getMessage());
        assertEquals("callable", assertThrows(NullPointerException.class,
                () -> RotaTask.adapt((Callable<Integer>) null)).getMessage());
    }

    @Test
    void tryUnforkNeverTakesBackASubmissionMovedOntoTheWorkersQueue() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        OnlyWorker.occupy(pool, release);
        Counted submitted = new Counted(1);
        List<Object> seen = new ArrayList<>();
        RotaTask<Void> other = new RotaTask<>() {
            @Override
            protected Void compute() {
                seen.add(submitted.tryUnfork());         // on this worker's deque, moved there with this task's batch
                return null;
            }
        };
        pool.execute(other);
        pool.execute(submitted);
        release.countDown();

        assertEquals(1, submitted.get(30, TimeUnit.SECONDS));
        assertNull(other.get(30, TimeUnit.SECONDS));
        assertEquals(List.of(false), seen);
        assertEquals(1, submitted.computed.get());
    }

    @Test
    void shutdownNowCompletesTheFutureOfATaskCompletedByTheUserAndDoesNotReturnIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        OnlyWorker.occupy(pool, release);
        Counted completed = new Counted(1);
        Counted invoked = new Counted(2);
        Counted untouched = new Counted(3);
        Future<String> ofCompleted = pool.submit(completed, "first");
        Future<String> ofInvoked = pool.submit(invoked, "second");
        Future<String> ofUntouched = pool.submit(untouched, "third");
        completed.complete(5);
        assertEquals(2, invoked.invoke());

        List<Runnable> neverStarted = pool.shutdownNow();
        release.countDown();

        assertEquals(List.of(ofUntouched), neverStarted);
        assertEquals("first", ofCompleted.get(30, TimeUnit.SECONDS), "completes with its task, as its run would have");
        assertEquals("second", ofInvoked.get(30, TimeUnit.SECONDS));
        assertTrue(ofUntouched.isCancelled());
        assertTrue(untouched.isCancelled(), "so that a join of it does not wait for ever");
        assertEquals(0, completed.computed.get() + untouched.computed.get());
    }
}
