package dev.rota.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a submitting benchmark thread needs to wait for its own tasks: a task that counts itself, the
 * count of tasks submitted, and a wait until all have run that fails a stalled run instead of hanging
 * it.
 *
 * <p>The count is striped per thread, so that workers do not fight over one cache line as they would
 * over a {@code CountDownLatch}, and every stripe has a line of its own. The task is the only object
 * that the pools under test read on every submission (its class, for their type checks); no word that
 * a worker writes per task lies on its line, nor on the lines of the stripes' array header. A
 * {@code LongAdder} does not give that: with one worker it never contends, so it counts in its
 * {@code base} field, and the adder and its method-reference task, allocated one after the other,
 * can share a line, so that every increment by the worker costs the submitter's next offer a miss on
 * the task's class word, and every such read costs the worker's next increment a miss in return.
 *
 * <p>One instance per submitting thread; {@link #submitted} and {@link #awaitAll} on that thread only.
 */
public final class CompletionCount {
    /** Stripes; a power of two. Consecutive thread ids (a pool's workers) take distinct stripes. */
    private static final int STRIPES = 64;
    /** Longs per stripe: 128 bytes, two cache lines, as {@code @Contended} pads (adjacent-line prefetch). */
    private static final int STRIDE = 16;

    /**
     * Stripe {@code i} counts at index {@code (i + 1) * STRIDE}: the first {@code STRIDE} longs keep the
     * array's header line apart from the counts, and the last {@code STRIDE} keep the counts apart from
     * whatever is allocated after the array.
     */
    private final AtomicLongArray counts = new AtomicLongArray((STRIPES + 2) * STRIDE);
    private final Runnable task = new CountingTask(counts);
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
        while (sum() < target) {
            Thread.yield();
            if ((++polls & 0xFFFF) == 0) {                    // a nanoTime call per ~65k polls is free
                long now = System.nanoTime();
                if (stallDeadline == 0) {
                    stallDeadline = now + TimeUnit.SECONDS.toNanos(stallSeconds);
                } else if (now - stallDeadline > 0) {
                    throw new IllegalStateException("batch stalled: " + sum() + " of " + target
                            + " tasks ran after more than " + stallSeconds + " s");
                }
            }
        }
    }

    /** Throws unless exactly as many tasks ran as were submitted: for a trial's tear-down. */
    public void checkNoTaskLost() {
        long ran = sum();
        if (ran != submitted) {
            throw new IllegalStateException(ran + " tasks ran, " + submitted + " submitted");
        }
    }

    /**
     * The tasks counted so far. Each stripe only grows and is read once, so the sum never exceeds
     * the count at the end of the call: reaching the target means every task has run.
     */
    private long sum() {
        long sum = 0;
        for (int i = 1; i <= STRIPES; i++) {
            sum += counts.get(i * STRIDE);
        }
        return sum;
    }

    /** Counts itself in the stripe of the thread that runs it; holds nothing that anyone writes. */
    private static final class CountingTask implements Runnable {
        private final AtomicLongArray counts;

        CountingTask(AtomicLongArray counts) {
            this.counts = counts;
        }

        @Override
        public void run() {
            int stripe = (int) Thread.currentThread().threadId() & (STRIPES - 1);
            counts.getAndIncrement((stripe + 1) * STRIDE);
        }
    }
}
