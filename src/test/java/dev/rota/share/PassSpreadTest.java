package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Narrowing the gaps between passes: order and ties kept, narrow gaps exact, the spread bounded. */
class PassSpreadTest {

    @Test
    void shouldLeaveASpreadWithinTheTargetAsItIs() {
        PassHeap heap = heapOf(100, 5, 300, 5);
        assertEquals(300, PassSpread.bound(heap, 1_000));
        assertEquals(100, heap.pass(0));
        assertEquals(5, heap.pass(1));
        assertEquals(300, heap.pass(2));
        assertEquals(5, heap.pass(3));
    }

    @Test
    void shouldNarrowOnlyTheWidestGaps() {
        // Sorted: 0, 10, 10 (tie), 1_000_010, 1_000_030, 3_000_030; gaps 10, 0, 10^6, 20, 2×10^6.
        PassHeap heap = heapOf(1_000_010, 10, 0, 3_000_030, 10, 1_000_030);
        long greatest = PassSpread.bound(heap, 1_000);
        // Kept: 10 + 0 + 20 = 30; the two wide gaps share the rest, 485 each.
        assertEquals(0, heap.pass(2));
        assertEquals(10, heap.pass(1));
        assertEquals(10, heap.pass(4));
        assertEquals(10 + 485, heap.pass(0));
        assertEquals(10 + 485 + 20, heap.pass(5));
        assertEquals(10 + 485 + 20 + 485, heap.pass(3));
        assertEquals(heap.pass(3), greatest);
    }

    @Test
    void shouldKeepOrderAcrossWrapAroundUnderRandomPasses() {
        SplittableRandom random = new SplittableRandom(11);
        for (int trial = 0; trial < 500; trial++) {
            int n = 1 + random.nextInt(40);
            long least = random.nextLong();
            long[] passes = new long[n];
            for (int i = 0; i < n; i++) {
                long offset = random.nextInt(4) == 0 ? random.nextLong(1L << 62) : random.nextLong(1 << 20);
                passes[i] = least + (random.nextInt(8) == 0 && i > 0 ? passes[i - 1] - least : offset);
            }
            passes[0] = least;
            PassHeap heap = heapOf(passes);
            Integer[] before = orderOf(heap, n, least);
            long target = 1L << (20 + random.nextInt(40));
            long greatest = PassSpread.bound(heap, target);
            long newLeast = heap.pass(heap.peek());
            assertEquals(least, newLeast, "trial " + trial);
            assertTrue(greatest - least <= target, "trial " + trial);
            Integer[] after = orderOf(heap, n, least);
            assertEquals(Arrays.asList(before), Arrays.asList(after), "trial " + trial);
            for (int i = 1; i < n; i++) {
                long oldGap = passes[before[i]] - passes[before[i - 1]];
                long newGap = heap.pass(after[i]) - heap.pass(after[i - 1]);
                assertTrue(newGap <= oldGap, "trial " + trial + ", gap " + i + ": " + oldGap + " -> " + newGap);
                assertEquals(oldGap == 0, newGap == 0, "trial " + trial + ", gap " + i + ": ties stay ties, "
                        + "and no two passes apart come to tie: " + oldGap + " -> " + newGap);
            }
        }
    }

    private static Integer[] orderOf(PassHeap heap, int n, long least) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingLong(c -> heap.pass(c) - least).thenComparing(c -> c));
        return order;
    }

    private static PassHeap heapOf(long... passes) {
        PassHeap heap = new PassHeap();
        for (int client = 0; client < passes.length; client++) {
            heap.add(client, passes[client]);
        }
        return heap;
    }
}
