package dev.rota.share;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * Binary min-heap of client ids keyed by pass, with each client's heap position indexed by id, so
 * that insert, remove and change of pass cost O(log n) and the least pass is found in O(1).
 *
 * <p>Passes are compared by signed difference ({@code a - b < 0}), which orders them correctly across
 * wrap-around as long as any two live passes differ by less than 2^63. Equal passes are ordered by
 * id, so the order is deterministic.
 */
final class PassHeap {
    private static final int ABSENT = -1;

    private int[] heap = new int[16];
    private int size;
    /** Heap slot of each client id, or {@link #ABSENT}. */
    private int[] slotOf = new int[16];
    /** Pass of each client id; meaningful while present. */
    private long[] passOf = new long[16];
    /** Scratch for {@link #firstMatching}: heap slots still to visit, a min-heap by their clients' passes. */
    private int[] frontier = new int[16];

    PassHeap() {
        Arrays.fill(slotOf, ABSENT);
    }

    int size() {
        return size;
    }

    boolean contains(int client) {
        return client < slotOf.length && slotOf[client] != ABSENT;
    }

    /** The client with the least pass; requires {@code size() > 0}. */
    int peek() {
        return heap[0];
    }

    /**
     * The client of least pass among those {@code eligible} accepts, or -1 when none does. Visits
     * the heap best first (a frontier of slots ordered like the heap itself), so it costs
     * O(k log k) for the k clients it passes over, O(1) when the least is eligible.
     */
    int firstMatching(IntPredicate eligible) {
        if (size == 0) {
            return -1;
        }
        if (eligible.test(heap[0])) {
            return heap[0];
        }
        int frontierSize = 0;
        if (frontier.length < size) {
            frontier = new int[Math.max(size, frontier.length * 2)];
        }
        frontierSize = pushChildren(0, frontierSize);
        while (frontierSize > 0) {
            int slot = frontier[0];
            frontierSize = popFrontier(frontierSize);
            if (eligible.test(heap[slot])) {
                return heap[slot];
            }
            frontierSize = pushChildren(slot, frontierSize);
        }
        return -1;
    }

    private int pushChildren(int slot, int frontierSize) {
        for (int child = 2 * slot + 1; child <= 2 * slot + 2 && child < size; child++) {
            int at = frontierSize++;
            while (at > 0 && before(heap[child], heap[frontier[(at - 1) >>> 1]])) {
                frontier[at] = frontier[(at - 1) >>> 1];
                at = (at - 1) >>> 1;
            }
            frontier[at] = child;
        }
        return frontierSize;
    }

    /** Removes the frontier's best slot; returns the new frontier size. */
    private int popFrontier(int frontierSize) {
        int last = frontier[--frontierSize];
        int at = 0;
        while (true) {
            int child = 2 * at + 1;
            if (child >= frontierSize) {
                break;
            }
            if (child + 1 < frontierSize && before(heap[frontier[child + 1]], heap[frontier[child]])) {
                child++;
            }
            if (!before(heap[frontier[child]], heap[last])) {
                break;
            }
            frontier[at] = frontier[child];
            at = child;
        }
        frontier[at] = last;
        return frontierSize;
    }

    /** The client in heap slot {@code slot}, for iteration in no particular order. */
    int clientAt(int slot) {
        return heap[slot];
    }

    long pass(int client) {
        return passOf[client];
    }

    void add(int client, long pass) {
        if (client >= slotOf.length) {
            int length = Math.max(client + 1, slotOf.length * 2);
            int old = slotOf.length;
            slotOf = Arrays.copyOf(slotOf, length);
            Arrays.fill(slotOf, old, length, ABSENT);
            passOf = Arrays.copyOf(passOf, length);
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        passOf[client] = pass;
        heap[size] = client;
        slotOf[client] = size;
        size++;
        siftUp(size - 1);
    }

    void remove(int client) {
        int slot = slotOf[client];
        slotOf[client] = ABSENT;
        size--;
        if (slot == size) {
            return;
        }
        int last = heap[size];
        heap[slot] = last;
        slotOf[last] = slot;
        restore(slot);
    }

    void update(int client, long pass) {
        passOf[client] = pass;
        restore(slotOf[client]);
    }

    private void restore(int slot) {
        if (slot > 0 && before(heap[slot], heap[(slot - 1) >>> 1])) {
            siftUp(slot);
        } else {
            siftDown(slot);
        }
    }

    private boolean before(int a, int b) {
        long difference = passOf[a] - passOf[b];
        return difference < 0 || (difference == 0 && a < b);
    }

    private void siftUp(int slot) {
        int client = heap[slot];
        while (slot > 0) {
            int parent = (slot - 1) >>> 1;
            if (!before(client, heap[parent])) {
                break;
            }
            place(heap[parent], slot);
            slot = parent;
        }
        place(client, slot);
    }

    private void siftDown(int slot) {
        int client = heap[slot];
        while (true) {
            int child = 2 * slot + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], client)) {
                break;
            }
            place(heap[child], slot);
            slot = child;
        }
        place(client, slot);
    }

    private void place(int client, int slot) {
        heap[slot] = client;
        slotOf[client] = slot;
    }
}
