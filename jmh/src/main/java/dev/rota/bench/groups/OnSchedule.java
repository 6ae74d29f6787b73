package dev.rota.bench.groups;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * A request schedule for one client thread, and the latencies it records, corrected for coordinated
 * omission: the k-th request is meant to be sent at {@code start + k × interval}. A request whose
 * send time came while the previous one still waited for its reply is sent as soon as that reply
 * comes, and timed from its scheduled send time, so that the stall counts for every request an open
 * stream would have sent during it (as wrk2 and HdrHistogram's expected-interval correction do).
 * A request whose send time found the client idle is timed from when it was really sent, and the
 * schedule goes on from there: how late the client's own timer woke it says nothing of the pool.
 * Each iteration starts a schedule of its own. Not thread-safe: one client thread.
 */
final class OnSchedule {
    /** Waits longer than this park the client; shorter ones, and the end of longer ones, spin. */
    private static final long PARK_ABOVE_NANOS = 60_000;

    private final long intervalNanos;
    private long nextSend;
    private long lastReply;
    private boolean recording;
    private long[] latencies = new long[1 << 16];
    private int count;

    OnSchedule(long intervalNanos) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("interval must be positive: " + intervalNanos);
        }
        this.intervalNanos = intervalNanos;
    }

    /**
     * At the start of an iteration: whether replies are recorded from now on (measurement), not only
     * paced (warm-up). The schedule starts again with the iteration's first request, so that JMH's
     * pause between iterations, with the client behind its schedule, is not taken for a stall.
     */
    void startIteration(boolean record) {
        recording = record;
        nextSend = 0;                                    // the next request starts the schedule (awaitNextSend)
    }

    /**
     * Waits for the next scheduled send time and returns the time to measure this request from:
     * its scheduled time if the previous reply came after it, else now.
     */
    long awaitNextSend() {
        long now = System.nanoTime();
        if (nextSend == 0) {
            nextSend = now;                              // the schedule starts with the iteration's first request
            lastReply = now;
        }
        long scheduled = nextSend;
        if (lastReply - scheduled > 0) {
            nextSend = scheduled + intervalNanos;        // the schedule goes on through the stall
            return scheduled;                            // held back by a late reply: the stall counts
        }
        while (scheduled - now > PARK_ABOVE_NANOS) {
            LockSupport.parkNanos(scheduled - now - PARK_ABOVE_NANOS);
            now = System.nanoTime();
        }
        while (now - scheduled < 0) {
            Thread.onSpinWait();
            now = System.nanoTime();
        }
        // Sent from idle: the schedule starts again from now, so that a late wake-up of this thread
        // or JMH's pause between iterations is not taken for a stall of the next requests.
        nextSend = now + intervalNanos;
        return now;
    }

    /** The reply to a request measured from {@code sentAt} came at {@code repliedAt}. */
    void replied(long sentAt, long repliedAt) {
        lastReply = repliedAt;
        if (!recording) {
            return;
        }
        if (count == latencies.length) {
            latencies = Arrays.copyOf(latencies, count * 2);
        }
        latencies[count++] = repliedAt - sentAt;
    }

    /** The recorded latencies' count and percentiles, in µs. */
    String summary() {
        long[] sorted = Arrays.copyOf(latencies, count);
        Arrays.sort(sorted);
        return String.format("n=%d p50=%.1f p90=%.1f p99=%.1f p99.9=%.1f max=%.1f us (from the scheduled send time)",
                count, percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99),
                percentile(sorted, 99.9), count == 0 ? Double.NaN : sorted[count - 1] / 1e3);
    }

    /** The nearest-rank percentile of sorted nanoseconds, in µs; NaN when none was recorded. */
    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e3;
    }
}
