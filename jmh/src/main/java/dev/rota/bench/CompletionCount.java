package dev.rota.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a submitting benchmark thread needs to wait for its own tasks: a task that counts itself, the
 * count of tasks submitted, and a wait until all have run that fails a stalled run instead of hanging
 * it. The count is a {@link LongAdder}, striped per thread, so that workers do not fight over one
 * cache line as they would over a {@code CountDownLatch}.
 *
 * <p>One instance per submitting thread; {@link #submitted} and {@link #awaitAll} on that thread only.
 */
public final class CompletionCount {
    private final LongAdder completed = new LongAdder();
    private final Runnable task = completed::increment;
    private final long stallSeconds;
    private long submitted;

    /** A count whose {@link #awaitAll} throws after {@code stallSeconds} without completion. */
    public CompletionCount(long stallSeconds) {
        if (stallSeconds <= 0) {
            throw new IllegalArgumentException("stallSeconds must be positive: " + stallSeconds);
        }
        this.stallSeconds = stallSeconds;
    }

    /** The task to submit: it only counts itself. */
    public Runnable task() {
        return task;
    }

    /** Records that {@code n} more tasks were submitted. */
    public void submitted(int n) {
        submitted += n;
    }

    /**
     * Returns once every task submitted so far has run, yielding between reads. The count only grows
     * and {@code sum()} never over-counts, so reaching the target means every task has run.
     *
     * @throws IllegalStateException after {@code stallSeconds} without reaching it
     */
    public void awaitAll() {
        long target = submitted;
        int polls = 0;
        long stallDeadline = 0;
        while (completed.sum() < target) {
            Thread.yield();
            if ((++polls & 0xFFFF) == 0) {                    // a nanoTime call per ~65k polls is free
                long now = System.nanoTime();
                if (stallDeadline == 0) {
                    stallDeadline = now + TimeUnit.SECONDS.toNanos(stallSeconds);
                } else if (now - stallDeadline > 0) {
                    throw new IllegalStateException("batch stalled: " + completed.sum() + " of " + target
                            + " tasks ran after more than " + stallSeconds + " s");
                }
            }
        }
    }

    /** Throws unless exactly as many tasks ran as were submitted: for a trial's tear-down. */
    public void checkNoTaskLost() {
        long ran = completed.sum();
        if (ran != submitted) {
            throw new IllegalStateException(ran + " tasks ran, " + submitted + " submitted");
        }
    }
}
