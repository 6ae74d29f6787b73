package dev.rota;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Keeps a group backlogged: a fixed number of tasks in flight, each of which spins for a while and
 * then submits its own successor, until stopped. The group therefore always has queued work, as the
 * lottery paper's compute-bound clients do, without any thread outside the pool.
 */
final class Backlog {
    private final TaskGroup group;
    private final long spinNanos;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final LongAdder completed = new LongAdder();

    private Backlog(TaskGroup group, long spinNanos) {
        this.group = group;
        this.spinNanos = spinNanos;
    }

    /** Starts {@code inFlight} self-renewing tasks of {@code spinNanos} each in {@code group}. */
    static Backlog start(TaskGroup group, int inFlight, long spinNanos) {
        Backlog backlog = new Backlog(group, spinNanos);
        for (int i = 0; i < inFlight; i++) {
            group.execute(backlog::step);
        }
        return backlog;
    }

    private void step() {
        spin(spinNanos);
        completed.increment();
        if (running.get()) {
            try {
                group.execute(this::step);
            } catch (RejectedExecutionException shutDown) {
                // the group or pool is shutting down: the backlog ends
            }
        }
    }

    /** Busy for {@code nanos} of wall-clock time. */
    static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    void stop() {
        running.set(false);
    }

    long completed() {
        return completed.sum();
    }
}
