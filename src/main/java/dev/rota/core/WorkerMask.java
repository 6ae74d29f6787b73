package dev.rota.core;

import java.util.Arrays;

/**
 * The workers a group may run on, as a flag per worker and as their ascending list; immutable, so
 * that a submitter reads both halves of one mask.
 */
public record WorkerMask(boolean[] allows, int[] workers) {

    /** Every one of {@code n} workers. */
    public static WorkerMask all(int n) {
        int[] list = new int[n];
        for (int w = 0; w < n; w++) {
            list[w] = w;
        }
        return of(n, list);
    }

    /**
     * The listed workers of a pool of {@code n}.
     *
     * @throws IllegalArgumentException if the list is empty or names a worker outside {@code [0, n)}
     */
    public static WorkerMask of(int n, int... workers) {
        boolean[] flags = new boolean[n];
        for (int w : workers) {
            if (w < 0 || w >= n) {
                throw new IllegalArgumentException("no worker " + w + " in a pool of " + n + " workers");
            }
            flags[w] = true;
        }
        int[] list = new int[n];
        int k = 0;
        for (int w = 0; w < n; w++) {
            if (flags[w]) {
                list[k++] = w;
            }
        }
        if (k == 0) {
            throw new IllegalArgumentException("a group needs at least one worker");
        }
        return new WorkerMask(flags, Arrays.copyOf(list, k));
    }

    public boolean allows(int worker) {
        return allows[worker];
    }

    public boolean isAll() {
        return workers.length == allows.length;
    }
}
