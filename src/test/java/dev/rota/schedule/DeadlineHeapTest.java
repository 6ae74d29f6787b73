package dev.rota.schedule;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeadlineHeapTest {

    /** A plain node; ordered as the heap orders, so PriorityQueue can serve as the reference. */
    static final class TestNode implements DeadlineHeap.Node {
        static final Comparator<TestNode> ORDER =
                (a, b) -> DeadlineHeap.before(a, b) ? -1 : DeadlineHeap.before(b, a) ? 1 : 0;

        final long deadline;
        final long sequence;
        int index = DeadlineHeap.NOT_IN_HEAP;

        TestNode(long deadline, long sequence) {
            this.deadline = deadline;
            this.sequence = sequence;
        }

        @Override public long deadline() { return deadline; }
        @Override public long sequence() { return sequence; }
        @Override public int heapIndex() { return index; }
        @Override public void heapIndex(int i) { index = i; }

        @Override
        public String toString() {
            return "TestNode[" + deadline + "#" + sequence + "]";
        }
    }

    private final DeadlineHeap<TestNode> heap = new DeadlineHeap<>();

    private void assertValid() {
        assertNull(heap.checkInvariants());
    }

    @Test
    void shouldPollInDeadlineOrder() {
        long[] deadlines = {50, 10, 40, 20, 30, 60, 0, -5};
        for (int i = 0; i < deadlines.length; i++) {
            heap.add(new TestNode(deadlines[i], i));
            assertValid();
        }
        long[] polled = new long[deadlines.length];
        for (int i = 0; i < polled.length; i++) {
            polled[i] = heap.poll().deadline;
            assertValid();
        }
        assertEquals(List.of(-5L, 0L, 10L, 20L, 30L, 40L, 50L, 60L),
                java.util.Arrays.stream(polled).boxed().toList());
        assertNull(heap.poll());
        assertNull(heap.peek());
    }

    @Test
    void shouldBreakDeadlineTiesFirstInFirstOut() {
        for (int seq = 0; seq < 20; seq++) {
            heap.add(new TestNode(7, seq));
        }
        for (int seq = 0; seq < 20; seq++) {
            assertEquals(seq, heap.poll().sequence);
        }
    }

    @Test
    void shouldOrderDeadlinesAcrossTheNanoTimeWrap() {
        TestNode beforeWrap = new TestNode(Long.MAX_VALUE - 10, 0);
        TestNode afterWrap = new TestNode(Long.MAX_VALUE + 10, 1);   // wraps to a negative value
        heap.add(afterWrap);
        heap.add(beforeWrap);
        assertSame(beforeWrap, heap.poll());
        assertSame(afterWrap, heap.poll());
    }

    @Test
    void shouldRemoveAnyNodeByItsIndex() {
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            TestNode node = new TestNode((i * 37L) % 101, i);
            nodes.add(node);
            heap.add(node);
        }
        for (int i = 0; i < 100; i += 3) {
            assertTrue(heap.remove(nodes.get(i)));
            assertEquals(DeadlineHeap.NOT_IN_HEAP, nodes.get(i).index);
            assertValid();
        }
        assertFalse(heap.remove(nodes.get(0)), "a removed node is no longer there");
        long previous = Long.MIN_VALUE;
        int remaining = 0;
        for (TestNode node; (node = heap.poll()) != null; remaining++) {
            assertTrue(node.sequence % 3 != 0, "removed node came back: " + node);
            assertTrue(node.deadline >= previous);
            previous = node.deadline;
        }
        assertEquals(66, remaining);
    }

    @Test
    void shouldNotRemoveANodeOfAnotherHeap() {
        DeadlineHeap<TestNode> other = new DeadlineHeap<>();
        TestNode mine = new TestNode(1, 0);
        TestNode theirs = new TestNode(2, 1);
        heap.add(mine);
        other.add(theirs);
        assertFalse(heap.remove(theirs));
        assertEquals(1, heap.size());
        assertEquals(1, other.size());
    }

    @Test
    void shouldRefuseANodeThatIsAlreadyInAHeap() {
        TestNode node = new TestNode(1, 0);
        heap.add(node);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> heap.add(node));
        assertTrue(e.getMessage().contains("index 0"), e.getMessage());
    }

    @Test
    void shouldRemoveMatchingNodesAndKeepTheRestOrdered() {
        for (int i = 0; i < 500; i++) {
            heap.add(new TestNode((i * 7919L) % 1000, i));
        }
        List<TestNode> odd = heap.removeIf(node -> node.sequence % 2 == 1);
        assertEquals(250, odd.size());
        odd.forEach(node -> assertEquals(DeadlineHeap.NOT_IN_HEAP, node.index));
        assertValid();
        long previous = Long.MIN_VALUE;
        for (TestNode node; (node = heap.poll()) != null; ) {
            assertEquals(0, node.sequence % 2);
            assertTrue(node.deadline >= previous);
            previous = node.deadline;
        }
    }

    @Test
    void shouldShrinkBackWhenEmptiedSoABurstLeavesNoLargeArray() {
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            TestNode node = new TestNode(i % 977, i);
            nodes.add(node);
            heap.add(node);
        }
        assertTrue(heap.capacity() >= 100_000);
        for (TestNode node : nodes) {
            assertTrue(heap.remove(node));
        }
        assertTrue(heap.isEmpty());
        assertEquals(DeadlineHeap.INITIAL_CAPACITY, heap.capacity());
        assertValid();
    }

    @Test
    void shouldClearEverything() {
        for (int i = 0; i < 300; i++) {
            heap.add(new TestNode(i, i));
        }
        List<TestNode> all = heap.clear();
        assertEquals(300, all.size());
        assertTrue(heap.isEmpty());
        assertEquals(DeadlineHeap.INITIAL_CAPACITY, heap.capacity());
        assertValid();
    }

    @Test
    void shouldMatchAPriorityQueueUnderRandomInsertsPollsAndRemovals() {
        SplittableRandom random = new SplittableRandom(0x5EED);
        PriorityQueue<TestNode> reference = new PriorityQueue<>(TestNode.ORDER);
        List<TestNode> present = new ArrayList<>();
        long sequence = 0;
        for (int step = 0; step < 200_000; step++) {
            int op = random.nextInt(10);
            if (op < 5 || present.isEmpty()) {
                // Few distinct deadlines, so ties (and the FIFO tie-break) are common.
                TestNode node = new TestNode(random.nextLong(-500, 500), sequence++);
                heap.add(node);
                reference.add(node);
                present.add(node);
            } else if (op < 7) {
                TestNode expected = reference.poll();
                assertSame(expected, heap.poll(), "step " + step);
                removeFrom(present, expected);
            } else {
                TestNode victim = present.get(random.nextInt(present.size()));
                assertTrue(heap.remove(victim), "step " + step);
                assertTrue(reference.remove(victim));
                removeFrom(present, victim);
            }
            assertEquals(reference.size(), heap.size());
            assertSame(reference.peek(), heap.peek(), "step " + step);
            if (step % 1000 == 0) {
                assertValid();
            }
        }
        assertValid();
        while (!reference.isEmpty()) {
            assertSame(reference.poll(), heap.poll());
        }
        assertTrue(heap.isEmpty());
    }

    /** Unordered removal (swap with the last) from the test's own bookkeeping list. */
    private static void removeFrom(List<TestNode> list, TestNode node) {
        int i = list.indexOf(node);
        TestNode last = list.remove(list.size() - 1);
        if (last != node) {
            list.set(i, last);
        }
    }

    /**
     * Shrinking the array after a removal only gives memory back, and needs some to do it: where the
     * smaller array cannot be had (out of memory) the removal must still be whole. removeIf and
     * clear return every node they took out (the scheduler cancels those tasks in shutdown and
     * shutdownNow, and would lose them otherwise), poll and remove report theirs, and the heap keeps
     * its larger array.
     */
    @Test
    void shouldCompleteARemovalWhoseShrinkRunsOutOfMemory() {
        AtomicBoolean outOfMemory = new AtomicBoolean();
        DeadlineHeap<TestNode> heap = new DeadlineHeap<>(length -> {
            if (outOfMemory.get()) {
                throw new OutOfMemoryError("injected: no array of " + length);
            }
            return new DeadlineHeap.Node[length];
        });
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            TestNode node = new TestNode(i, i);
            nodes.add(node);
            heap.add(node);
        }
        int capacity = heap.capacity();
        outOfMemory.set(true);

        List<TestNode> removed = whole("removeIf, left with a quarter of its array",
                () -> heap.removeIf(node -> node.deadline >= 200));
        assertEquals(800, removed.size());
        assertEquals(200, heap.size());
        assertNull(heap.checkInvariants());
        assertSame(nodes.get(0), whole("poll", heap::poll));
        assertTrue(whole("remove", () -> heap.remove(nodes.get(1))));
        List<TestNode> rest = whole("clear", heap::clear);
        assertEquals(198, rest.size());
        assertTrue(heap.isEmpty());
        assertEquals(capacity, heap.capacity(), "the larger array kept");
        assertNull(heap.checkInvariants());

        outOfMemory.set(false);
        heap.add(nodes.get(0));
        heap.poll();
        assertEquals(DeadlineHeap.INITIAL_CAPACITY, heap.capacity(), "shrinks once memory is there again");
    }

    /** The removal's result; fails the test, rather than its JVM, where the injected OutOfMemoryError escapes. */
    private static <T> T whole(String removal, Supplier<T> call) {
        try {
            return call.get();
        } catch (OutOfMemoryError e) {
            throw new AssertionError(removal + " threw, its nodes taken out and not returned: " + e.getMessage());
        }
    }
}
