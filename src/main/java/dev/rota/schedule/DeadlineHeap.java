package dev.rota.schedule;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * An indexed 4-ary min-heap of nodes ordered by deadline, then by sequence number (FIFO among equal
 * deadlines). Each node records its own slot, so {@link #remove} takes O(log n) instead of a scan.
 *
 * <p>Not thread-safe: the owner guards every call with one lock.
 */
final class DeadlineHeap<N extends DeadlineHeap.Node> {
    /*
     * Invariants (checked by checkInvariants(), which the tests call after every step):
     *   H1  slots [0, size) hold nodes, slots [size, capacity) hold null (no retention).
     *   H2  node at slot i reports heapIndex() == i; a node not in the heap reports NOT_IN_HEAP.
     *   H3  no node sorts before its parent, parent(i) = (i - 1) / 4.
     *
     * Why 4-ary: half the depth of a binary heap, so sift-up (insert, the common operation) does
     * half the moves, and the four children of a node sit next to each other in memory. Sift-down
     * compares four children per level, which suits a heap where most removals are cancellations
     * and the head is polled only when a task becomes due. The JDK's ForkJoinPool DelayScheduler
     * makes the same choice.
     *
     * Deadlines are System.nanoTime() values, so they are compared by signed difference, which
     * stays correct across the wrap of the nanoTime origin as long as any two deadlines in the heap
     * are less than 2^63 ns apart; the scheduler caps delays at 2^62 ns to keep that true.
     */

    /** What the heap needs from its elements. */
    interface Node {
        /** The System.nanoTime() at which this node becomes due; stable while the node is in a heap. */
        long deadline();

        /** Tie-breaker among equal deadlines: the lower sequence comes first. */
        long sequence();

        /** This node's slot, or {@link #NOT_IN_HEAP}; written only by the heap. */
        int heapIndex();

        void heapIndex(int index);
    }

    static final int NOT_IN_HEAP = -1;

    /** 64 slots cover the usual handful of timers without regrowth; also the floor for shrinking. */
    static final int INITIAL_CAPACITY = 64;

    private static final int ARITY_SHIFT = 2;               // 4 children per node
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8; // largest array HotSpot allocates

    /** Makes each backing array: {@code Node[]::new}, or for tests one that fails as the JVM may. */
    private final IntFunction<Node[]> arrays;
    private Node[] nodes;
    private int size;

    DeadlineHeap() {
        this(Node[]::new);
    }

    DeadlineHeap(IntFunction<Node[]> arrays) {
        this.arrays = arrays;
        this.nodes = arrays.apply(INITIAL_CAPACITY);
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Current length of the backing array (for the tests: it shrinks back when the heap empties). */
    int capacity() {
        return nodes.length;
    }

    /** The node due first, or null when empty. */
    N peek() {
        return size == 0 ? null : cast(nodes[0]);
    }

    /** Inserts a node that is in no heap. */
    void add(N node) {
        if (node.heapIndex() != NOT_IN_HEAP) {
            throw new IllegalArgumentException("node is already in a heap at index " + node.heapIndex());
        }
        if (size == nodes.length) {
            grow();
        }
        siftUp(size++, node);
    }

    /** Removes and returns the node due first, or null when empty. */
    N poll() {
        if (size == 0) {
            return null;
        }
        N head = cast(nodes[0]);
        removeAt(0);
        return head;
    }

    /** Removes {@code node} if this heap holds it; returns whether it did. */
    boolean remove(N node) {
        int i = node.heapIndex();
        if (i < 0 || i >= size || nodes[i] != node) {
            return false;
        }
        removeAt(i);
        return true;
    }

    /** Removes every node that matches and returns them; O(n) by rebuilding the heap (Floyd). */
    List<N> removeIf(Predicate<? super N> filter) {
        List<N> removed = new ArrayList<>();
        int kept = 0;
        for (int i = 0; i < size; i++) {
            N node = cast(nodes[i]);
            if (filter.test(node)) {
                node.heapIndex(NOT_IN_HEAP);
                removed.add(node);
            } else {
                place(kept++, node);
            }
        }
        Arrays.fill(nodes, kept, size, null);
        size = kept;
        for (int i = (size - 2) >>> ARITY_SHIFT; size > 1 && i >= 0; i--) {
            siftDown(i, nodes[i]);
        }
        shrinkIfSparse();
        return removed;
    }

    /** Removes and returns all nodes, in no particular order. */
    List<N> clear() {
        return removeIf(node -> true);
    }

    private void removeAt(int i) {
        Node removed = nodes[i];
        removed.heapIndex(NOT_IN_HEAP);
        int last = --size;
        Node moved = nodes[last];
        nodes[last] = null;
        if (i != last) {
            siftDown(i, moved);
            if (nodes[i] == moved) {   // did not go down: it may need to go up (removal mid-heap)
                siftUp(i, moved);
            }
        }
        shrinkIfSparse();
    }

    /** Moves {@code node} from slot {@code i} towards the root until its parent sorts before it. */
    private void siftUp(int i, Node node) {
        while (i > 0) {
            int parent = (i - 1) >>> ARITY_SHIFT;
            Node p = nodes[parent];
            if (!before(node, p)) {
                break;
            }
            place(i, p);
            i = parent;
        }
        place(i, node);
    }

    /** Moves {@code node} from slot {@code i} towards the leaves until no child sorts before it. */
    private void siftDown(int i, Node node) {
        for (;;) {
            long firstChild = ((long) i << ARITY_SHIFT) + 1;   // long: no overflow on huge heaps
            if (firstChild >= size) {
                break;
            }
            int first = (int) firstChild;
            int least = first;
            int end = Math.min(first + (1 << ARITY_SHIFT), size);
            for (int c = first + 1; c < end; c++) {
                if (before(nodes[c], nodes[least])) {
                    least = c;
                }
            }
            if (!before(nodes[least], node)) {
                break;
            }
            place(i, nodes[least]);
            i = least;
        }
        place(i, node);
    }

    private void place(int i, Node node) {
        nodes[i] = node;
        node.heapIndex(i);
    }

    private void grow() {
        int capacity = nodes.length;
        if (capacity == MAX_CAPACITY) {
            throw new IllegalStateException("heap is full: " + capacity + " nodes");
        }
        nodes = copyTo((int) Math.min((long) capacity << 1, MAX_CAPACITY));
    }

    /**
     * Halves the array while a quarter or less of it is used, so a burst of timers leaves no big
     * array behind. Growing doubles and shrinking waits for a quarter, so a size that hovers around
     * a power of two does not copy on every step. Called last by every removal, once the heap is
     * whole again; where the smaller array cannot be had (out of memory), the larger one stays and
     * the removal still completes: its caller holds nodes taken out (removeIf's list, say) that it
     * must not lose, and a later removal tries again.
     */
    private void shrinkIfSparse() {
        int capacity = nodes.length;
        while (capacity > INITIAL_CAPACITY && size <= capacity >>> 2) {
            capacity >>>= 1;
        }
        if (capacity != nodes.length) {
            try {
                nodes = copyTo(capacity);
            } catch (OutOfMemoryError keepTheLargerArray) {
                // H1 holds with either array; only the memory waits for the next removal.
            }
        }
    }

    /** The nodes in a new array of {@code capacity} slots, which holds all of them (H1: the rest are null). */
    private Node[] copyTo(int capacity) {
        Node[] copy = arrays.apply(capacity);
        System.arraycopy(nodes, 0, copy, 0, size);
        return copy;
    }

    /** True when {@code a} is due strictly before {@code b}. */
    static boolean before(Node a, Node b) {
        long byDeadline = a.deadline() - b.deadline();   // signed difference: wrap-safe
        if (byDeadline != 0) {
            return byDeadline < 0;
        }
        return a.sequence() - b.sequence() < 0;
    }

    /** Verifies H1-H3; returns a description of the first violation, or null. For tests. */
    String checkInvariants() {
        for (int i = 0; i < nodes.length; i++) {
            Node node = nodes[i];
            if (i >= size) {
                if (node != null) {
                    return "slot " + i + " beyond size " + size + " is not null";
                }
                continue;
            }
            if (node == null) {
                return "slot " + i + " below size " + size + " is null";
            }
            if (node.heapIndex() != i) {
                return "node at slot " + i + " reports index " + node.heapIndex();
            }
            if (i > 0 && before(node, nodes[(i - 1) >>> ARITY_SHIFT])) {
                return "node at slot " + i + " sorts before its parent";
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private N cast(Node node) {
        return (N) node;
    }
}
