package dev.rota.share;

/**
 * Non-negative weights in numbered slots, with their total and the slot that holds any point of
 * {@code [0, total)}, both in O(log n): the tree of partial ticket sums of lottery scheduling.
 */
final class PartialSumTree {
    /*
     * Layout: a complete binary tree in an array. sums[1] is the root, sums[i] has children 2i and
     * 2i + 1, slot s is the leaf sums[capacity + s]; capacity is a power of two.
     * Invariant: every inner node equals the double sum of its two children, recomputed from them on
     * each update rather than adjusted by a delta, so no rounding error builds up however many
     * updates are made; the total is exact up to the rounding of log2(capacity) additions per leaf.
     */
    private double[] sums;
    private int capacity;

    PartialSumTree(int initialCapacity) {
        capacity = Integer.highestOneBit(Math.max(2, initialCapacity - 1)) << 1;
        sums = new double[2 * capacity];
    }

    int capacity() {
        return capacity;
    }

    double total() {
        return sums[1];
    }

    double weight(int slot) {
        return slot < capacity ? sums[capacity + slot] : 0;
    }

    /** Sets the weight of {@code slot}, growing the tree if needed. */
    void set(int slot, double weight) {
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("weight must be finite and non-negative: " + weight);
        }
        if (slot >= capacity) {
            grow(slot);
        }
        int node = capacity + slot;
        sums[node] = weight;
        for (node >>>= 1; node >= 1; node >>>= 1) {
            sums[node] = sums[2 * node] + sums[2 * node + 1];
        }
    }

    /**
     * The slot whose share of {@code [0, total)} contains {@code point}: slot s owns
     * {@code [w0 + … + w(s-1), w0 + … + ws)}. Never returns a slot of weight 0, even where rounding
     * puts {@code point} at or past the total. Requires {@code total() > 0}.
     */
    int find(double point) {
        int node = 1;
        while (node < capacity) {
            double left = sums[2 * node];
            double right = sums[2 * node + 1];
            if (right <= 0 || (left > 0 && point < left)) {
                node = 2 * node;
            } else {
                point -= left;
                node = 2 * node + 1;
            }
        }
        return node - capacity;
    }

    /** Checks the invariant; for tests. Returns the index of the first bad node, or 0. */
    int firstInconsistentNode() {
        for (int node = capacity - 1; node >= 1; node--) {
            if (sums[node] != sums[2 * node] + sums[2 * node + 1]) {
                return node;
            }
        }
        return 0;
    }

    private void grow(int slot) {
        int newCapacity = capacity;
        while (newCapacity <= slot) {
            newCapacity <<= 1;
        }
        double[] grown = new double[2 * newCapacity];
        System.arraycopy(sums, capacity, grown, newCapacity, capacity);
        for (int node = newCapacity - 1; node >= 1; node--) {
            grown[node] = grown[2 * node] + grown[2 * node + 1];
        }
        sums = grown;
        capacity = newCapacity;
    }
}
