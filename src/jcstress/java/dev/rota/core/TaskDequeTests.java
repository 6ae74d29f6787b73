package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.IZ_Result;

/**
 * The owner's pop, take-back and growth racing thieves' steals on {@link TaskDeque}: every element is
 * taken exactly once (D2), also from an array being replaced (D4). A steal that misses a push here may
 * have come before it, so what a push publishes to a thief is tested apart, with the thief's look
 * first: {@link TaskDequePublicationTests}.
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

    /**
     * D2 for a join's take-back: the owner's {@link TaskDeque#tryUnpush} of its last fork races a steal
     * of it. r1: the join took it back (1) or not (0); r2: what the thief stole.
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the join took its fork back, to run it in place")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the thief stole it; the join waits for the thief's run")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "run twice: taken back and stolen")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost: neither taken back nor stolen, the join waits for ever")
    @State
    public static class TakeBackRacingSteal {
        final TaskDeque deque = new TaskDeque();
        final Task fork = new Task(1);

        public TakeBackRacingSteal() {
            deque.push(fork);
        }

        @Actor
        public void joiningOwner(II_Result r) {
            r.r1 = deque.tryUnpush(fork) ? 1 : 0;
        }

        @Actor
        public void thief(II_Result r) {
            r.r2 = id(deque.steal());
        }
    }

    /** Tasks enough to fill a deque's first array, and one more: the same instances for every state. */
    private static final Task[] FILL = new Task[TaskDeque.INITIAL_CAPACITY + 1];

    static {
        for (int i = 0; i < FILL.length; i++) {
            FILL[i] = new Task(i + 1);
        }
    }

    /**
     * D4: the owner's push into a full array replaces it by one twice as large while a thief steals,
     * reading the old array or the new one. The owner takes nothing while the thief steals, so the
     * steal has no race to lose: from either array it must get the oldest task, and a miss means it
     * read a published array whose copy it could not see yet. r1: what the thief stole (0 nothing);
     * r2: every task was then taken exactly once, by the thief or by the owner popping all that was left.
     */
    @JCStressTest
    @Outcome(id = "1, true", expect = ACCEPTABLE, desc = "the oldest stolen, from the old array or the new one")
    @Outcome(id = "0, true", expect = FORBIDDEN, desc = "missed with no competitor: the new array was published before its copy")
    @Outcome(id = ".*, false", expect = FORBIDDEN, desc = "a task lost or taken twice across the growth")
    @Outcome(expect = FORBIDDEN, desc = "the thief took a task other than the oldest")
    @State
    public static class GrowthRacingSteal {
        final TaskDeque deque = new TaskDeque();
        Runnable stolen;

        public GrowthRacingSteal() {
            for (int i = 0; i < TaskDeque.INITIAL_CAPACITY; i++) {
                deque.push(FILL[i]);                     // full: the next push grows the array
            }
        }

        @Actor
        public void owner() {
            deque.push(FILL[TaskDeque.INITIAL_CAPACITY]);
        }

        @Actor
        public void thief() {
            stolen = deque.steal();
        }

        @Arbiter
        public void after(IZ_Result r) {
            int[] taken = new int[FILL.length + 1];
            taken[id(stolen)]++;
            for (Runnable task; (task = deque.pop()) != null; ) {
                taken[id(task)]++;
            }
            boolean once = true;
            for (int id = 1; id <= FILL.length; id++) {
                once &= taken[id] == 1;
            }
            r.r1 = id(stolen);
            r.r2 = once;
        }
    }
}
