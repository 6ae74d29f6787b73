package dev.rota.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts how often each of a fixed set of numbered tasks ran, so a test can prove "exactly once".
 * Tasks are {@link CountedTask} records, so a test can also recognise them by identity in
 * {@code shutdownNow()}'s list.
 */
public final class RunCounter {

    private static final int OFFENDERS_SHOWN = 10;

    private final AtomicIntegerArray runs;
    private final LongAdder total = new LongAdder();

    public RunCounter(int tasks) {
        if (tasks < 0) {
            throw new IllegalArgumentException("task count must be >= 0: " + tasks);
        }
        runs = new AtomicIntegerArray(tasks);
    }

    public CountedTask task(int id) {
        if (id < 0 || id >= runs.length()) {
            throw new IllegalArgumentException("task id out of [0, " + runs.length() + "): " + id);
        }
        return new CountedTask(this, id);
    }

    public int runs(int id) {
        return runs.get(id);
    }

    public long total() {
        return total.sum();
    }

    public int tasks() {
        return runs.length();
    }

    /** Number of tasks in [0, tasks) that never ran. */
    public int neverRan() {
        int count = 0;
        for (int i = 0; i < runs.length(); i++) {
            if (runs.get(i) == 0) {
                count++;
            }
        }
        return count;
    }

    /** Fails unless every task in [0, tasks) ran exactly once; the message names the first offenders. */
    public void assertEachRanOnce() {
        assertEachRanAtMostOnce();
        int missing = neverRan();
        if (missing != 0) {
            fail(missing + " of " + runs.length() + " tasks never ran, e.g. " + offenders(0));
        }
        assertEquals(runs.length(), total(), "total runs");
    }

    public void assertEachRanAtMostOnce() {
        for (int i = 0; i < runs.length(); i++) {
            if (runs.get(i) > 1) {
                fail("tasks ran more than once, e.g. " + offenders(2));
            }
        }
    }

    private String offenders(int minimumRunsOrZero) {
        StringBuilder shown = new StringBuilder();
        int found = 0;
        for (int i = 0; i < runs.length() && found < OFFENDERS_SHOWN; i++) {
            int n = runs.get(i);
            if (minimumRunsOrZero == 0 ? n == 0 : n >= minimumRunsOrZero) {
                shown.append(found++ == 0 ? "" : ", ").append('#').append(i).append(" ran ").append(n);
            }
        }
        return shown.toString();
    }

    void ran(int id) {
        runs.incrementAndGet(id);
        total.increment();
    }

    /** One numbered task of a {@link RunCounter}. */
    public record CountedTask(RunCounter counter, int id) implements Runnable {
        @Override
        public void run() {
            counter.ran(id);
        }
    }
}
