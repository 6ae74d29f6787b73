package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A task that forks {@code count} subtasks, each of which joins one awaited task, then joins them
 * all, newest first, and returns the sum of their results. A join that helps runs the next subtask
 * inside the waiting one, so on one thread they nest as deep as the help allows: the case that
 * must neither overflow the stack nor lose a task. Failures of the subtasks are counted, not thrown.
 */
final class WaitersOfOneTask extends RotaTask<Integer> {
    private final RotaTask<Integer> awaited;
    private final int count;
    private final Runnable beforeForking;
    /** Subtasks that have started. */
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger failures = new AtomicInteger();
    final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    /** The thread that runs this task. */
    final AtomicReference<Thread> thread = new AtomicReference<>();

    /** {@code beforeForking} runs first in {@code compute()}, on the task's thread. */
    WaitersOfOneTask(RotaTask<Integer> awaited, int count, Runnable beforeForking) {
        this.awaited = awaited;
        this.count = count;
        this.beforeForking = beforeForking;
    }

    @Override
    protected Integer compute() {
        thread.set(Thread.currentThread());
        beforeForking.run();
        RotaTask<?>[] waiters = new RotaTask<?>[count];
        for (int i = 0; i < count; i++) {
            waiters[i] = new RotaTask<Integer>() {
                @Override
                protected Integer compute() {
                    started.incrementAndGet();
                    return awaited.join();
                }
            }.fork();
        }
        int sum = 0;
        for (int i = count - 1; i >= 0; i--) {
            try {
                sum += (Integer) waiters[i].join();
            } catch (Throwable t) {
                failures.incrementAndGet();
                firstFailure.compareAndSet(null, t);
            }
        }
        return sum;
    }

    /** Asserts that no subtask failed and that {@code sum}, this task's result, adds up each one's {@code result}. */
    void assertAllCompleted(int result, int sum) {
        assertEquals(0, failures.get(), "subtasks failed, the first with " + firstFailure.get());
        assertEquals(result * count, sum);
    }
}
