package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class TaskDequeTest {

    record Task(int id) implements Runnable {
        @Override
        public void run() {}
    }

    @Test
    void ownerPopsNewestFirst() {
        TaskDeque deque = new TaskDeque();
        for (int i = 0; i < 5; i++) {
            deque.push(new Task(i));
        }
        for (int i = 4; i >= 0; i--) {
            assertEquals(new Task(i), deque.pop());
        }
        assertNull(deque.pop());
        assertTrue(deque.isEmpty());
    }

    @Test
    void shouldStealOldestFirst() {
        TaskDeque deque = new TaskDeque();
        for (int i = 0; i < 5; i++) {
            deque.push(new Task(i));
        }
        assertEquals(new Task(0), deque.steal());
        assertEquals(new Task(1), deque.steal());
        assertEquals(new Task(4), deque.pop());
        assertEquals(2, deque.size());
    }

    @Test
    void growsPastItsInitialCapacityKeepingOrder() {
        TaskDeque deque = new TaskDeque();
        int n = TaskDeque.INITIAL_CAPACITY * 10 + 3;
        for (int i = 0; i < n; i++) {
            deque.push(new Task(i));
            if (i % 7 == 0) {
                assertEquals(new Task(i / 7), deque.steal());   // keep top moving while growing
            }
        }
        List<Integer> rest = new ArrayList<>();
        Runnable t;
        while ((t = deque.steal()) != null) {
            rest.add(((Task) t).id());
        }
        int firstLeft = (n - 1) / 7 + 1;
        assertEquals(n - firstLeft, rest.size());
        for (int i = 0; i < rest.size(); i++) {
            assertEquals(firstLeft + i, rest.get(i));
        }
    }

    @Test
    void sameTaskPushedTwiceIsTakenTwice() {
        TaskDeque deque = new TaskDeque();
        Task same = new Task(7);
        deque.push(same);
        assertSame(same, deque.steal());
        deque.push(same);
        assertSame(same, deque.pop(), "the slot a thief emptied still delivers the re-pushed task");
        assertNull(deque.pop());
    }

    /** An owner pushing and popping against two thieves: every element is taken exactly once. */
    @Test
    void everyElementTakenExactlyOnceUnderContention() throws Exception {
        int n = 2_000_000;
        TaskDeque deque = new TaskDeque();
        AtomicIntegerArray taken = new AtomicIntegerArray(n);
        Task[] tasks = new Task[n];
        for (int i = 0; i < n; i++) {
            tasks[i] = new Task(i);
        }
        CountDownLatch ownerDone = new CountDownLatch(1);
        Runnable thief = () -> {
            while (ownerDone.getCount() > 0 || !deque.isEmpty()) {
                Runnable r = deque.steal();
                if (r != null) {
                    taken.incrementAndGet(((Task) r).id());
                }
            }
        };
        Thread t1 = new Thread(thief);
        Thread t2 = new Thread(thief);
        t1.start();
        t2.start();
        for (int i = 0; i < n; i++) {
            deque.push(tasks[i]);
            if ((i & 3) == 0) {
                Runnable r = deque.pop();
                if (r != null) {
                    taken.incrementAndGet(((Task) r).id());
                }
            }
        }
        Runnable r;
        while ((r = deque.pop()) != null) {
            taken.incrementAndGet(((Task) r).id());
        }
        ownerDone.countDown();
        t1.join();
        t2.join();
        for (int i = 0; i < n; i++) {
            assertEquals(1, taken.get(i), "element " + i);
        }
    }
}
