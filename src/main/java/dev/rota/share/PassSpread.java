package dev.rota.share;

import java.util.Arrays;

/**
 * Bounds how far apart the competing passes lie without changing their order. Where CPU masks
 * leave sets of workers served at different paces, the passes of their clients part without
 * bound, and passes compared by signed difference must stay within 2^63 of each other. Narrowing
 * the widest gaps between consecutive passes to one common width, with the least pass left where
 * it is, keeps every pair in its order (ties stay ties) and every gap narrower than that width
 * exactly as it was: only a lead wider than the width is cut, and with the widths the stride
 * scheduler asks for that is a lead of millions of quanta, which no pick could see for as long.
 * O(n log n), for the rare calls where the spread has grown past its limit.
 */
final class PassSpread {

    private PassSpread() {
    }

    /**
     * Narrows the widest gaps between the heap's passes until the greatest lies at most
     * {@code target} above the least, and returns the greatest pass. Requires a non-empty heap whose
     * passes all lie less than 2^63 above its least.
     */
    static long bound(PassHeap heap, long target) {
        int n = heap.size();
        long least = heap.pass(heap.peek());
        Integer[] order = new Integer[n];
        for (int slot = 0; slot < n; slot++) {
            order[slot] = heap.clientAt(slot);
        }
        // Offsets from the least are in [0, 2^63): the order of signed differences, the heap's own.
        Arrays.sort(order, (a, b) -> {
            int byOffset = Long.compare(heap.pass(a) - least, heap.pass(b) - least);
            return byOffset != 0 ? byOffset : Integer.compare(a, b);
        });
        long spread = heap.pass(order[n - 1]) - least;
        if (spread <= target) {
            return least + spread;
        }
        long[] gap = new long[n - 1];
        for (int i = 0; i < n - 1; i++) {
            gap[i] = heap.pass(order[i + 1]) - heap.pass(order[i]);
        }
        long width = commonWidth(gap, spread, target);
        long offset = 0;
        for (int i = 1; i < n; i++) {
            // Each update lowers a pass to at least its predecessor's new one and at most its own old
            // one, so the heap's order holds at every step and no update moves a client.
            offset += Math.min(gap[i - 1], width);
            heap.update(order[i], least + offset);
        }
        return least + offset;
    }

    /**
     * The greatest width w such that the gaps, each cut to at most w, sum to at most
     * {@code target} (water-filling from the widest down). {@code total} is the sum of the gaps.
     */
    private static long commonWidth(long[] gaps, long total, long target) {
        long[] sorted = gaps.clone();
        Arrays.sort(sorted);
        int m = sorted.length;
        long rest = total;                               // the sum of the m - k narrowest gaps
        for (int k = 1; k <= m; k++) {
            rest -= sorted[m - k];
            long width = (target - rest) / k;
            long next = k < m ? sorted[m - k - 1] : 0;
            if (width >= next) {
                return width;                            // the k widest cut to width, the rest kept
            }
        }
        throw new AssertionError("unreachable: at k = m the width is target / m >= 0");
    }
}
