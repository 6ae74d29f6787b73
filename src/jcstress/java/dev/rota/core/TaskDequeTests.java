package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The owner's pop racing thieves' steals on {@link TaskDeque}: every element is taken exactly once.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.TaskDequeTests.*'}
 */
public final class TaskDequeTests {
    private TaskDequeTests() {}

    private static int id(Runnable task) {
        return task == null ? 0 : ((Task) task).id;
    }

    record Task(int id) implements Runnable {
        @Override
        public void run() {}
    }

    /** One element: the owner's pop and one steal race for the last element (the CAS case). */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the owner popped it")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the thief stole it")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "last element lost: neither pop nor steal got it")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "last element taken twice")
    @State
    public static class LastElement {
        final TaskDeque deque = new TaskDeque();

        public LastElement() {
            deque.push(new Task(1));
        }

        @Actor
        public void owner(II_Result r) {
            r.r1 = id(deque.pop());
        }

        @Actor
        public void thief(II_Result r) {
            r.r2 = id(deque.steal());
        }
    }

    /**
     * Two elements: the owner pops twice while a thief steals twice; the arbiter then takes what is
     * left. Counts how many times each element was taken: exactly once each.
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "each element taken exactly once")
    @Outcome(expect = FORBIDDEN, desc = "an element lost or taken twice")
    @State
    public static class TwoElements {
        final TaskDeque deque = new TaskDeque();
        Runnable popped1;
        Runnable popped2;
        Runnable stolen1;
        Runnable stolen2;

        public TwoElements() {
            deque.push(new Task(1));
            deque.push(new Task(2));
        }

        @Actor
        public void owner() {
            popped1 = deque.pop();
            popped2 = deque.pop();
        }

        @Actor
        public void thief() {
            stolen1 = deque.steal();
            stolen2 = deque.steal();
        }

        @Arbiter
        public void count(II_Result r) {
            int[] taken = new int[3];
            for (Runnable t : new Runnable[] {popped1, popped2, stolen1, stolen2, deque.pop(), deque.pop()}) {
                taken[id(t)]++;
            }
            r.r1 = taken[1];
            r.r2 = taken[2];
        }
    }

    /**
     * The owner pushes while a thief steals from an empty deque; afterwards whatever was not stolen
     * is still there for the owner: nothing vanishes.
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the thief got it")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the owner popped it afterwards")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "pushed but stranded: the element vanished")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "taken twice")
    @State
    public static class PushRacingSteal {
        final TaskDeque deque = new TaskDeque();

        @Actor
        public void owner() {
            deque.push(new Task(1));
        }

        @Actor
        public void thief(II_Result r) {
            r.r1 = id(deque.steal());
        }

        @Arbiter
        public void after(II_Result r) {
            r.r2 = id(deque.pop());
        }
    }
}
