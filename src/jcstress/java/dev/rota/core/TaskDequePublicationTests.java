package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.ZI_Result;

/**
 * Publication through {@link TaskDeque}: what the owner's push (slot, then release store of bottom)
 * publishes to a thief (the growth's, D4, is {@code TaskDequeTests.GrowthRacingSteal}'s). {@link TaskDeque#steal}
 * returns null for a slot it reads as null, the same answer as for a race lost, so a thief that reads
 * a published bottom but an unpublished slot loses the task silently: {@link TaskDequeTests}'s
 * outcomes accept that as "the owner keeps it". Here no other thread takes anything, so a steal that
 * comes after the thief has seen the element must get it, and must see the task's plain fields.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.TaskDequePublicationTests.*'}
 */
public final class TaskDequePublicationTests {
    private TaskDequePublicationTests() {}

    /** A task with a plain (non-final) field, written before the push, as FutureTask's callable is. */
    static final class Payload implements Runnable {
        int value;

        @Override
        public void run() {}
    }

    /**
     * The owner pushes one task whose plain field it set first; the thief looks whether the deque is
     * empty, then steals. r1: the thief saw the element before its steal; r2: the field as the thief
     * read it in the stolen task, -1 when the steal got nothing.
     */
    @JCStressTest
    @Outcome(id = {"false, -1", "false, 42"}, expect = ACCEPTABLE, desc = "the thief came before the push, or saw it only in the steal")
    @Outcome(id = "true, 42", expect = ACCEPTABLE, desc = "seen, stolen, its field visible")
    @Outcome(id = "true, -1", expect = FORBIDDEN, desc = "bottom published before the slot: the steal read a null slot and missed a task nobody else took")
    @Outcome(id = ".*, 0", expect = FORBIDDEN, desc = "stolen, but the field written before the push is not visible")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class PushPublishesToThief {
        final TaskDeque deque = new TaskDeque();

        @Actor
        public void owner() {
            Payload task = new Payload();
            task.value = 42;
            deque.push(task);
        }

        @Actor
        public void thief(ZI_Result r) {
            r.r1 = !deque.isEmpty();
            Runnable stolen = deque.steal();
            r.r2 = stolen == null ? -1 : ((Payload) stolen).value;
        }
    }

    /**
     * D2 between thieves (every other test has one thief): two steals race for one element; the CAS
     * of top gives it to exactly one. r1, r2: what each thief stole (0 nothing).
     */
    @JCStressTest
    @Outcome(id = {"1, 0", "0, 1"}, expect = ACCEPTABLE, desc = "one thief got it")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "taken twice")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "neither got it, with nobody else taking")
    @State
    public static class TwoThievesOneElement {
        final TaskDeque deque = new TaskDeque();

        public TwoThievesOneElement() {
            deque.push(new TaskDequeTests.Task(1));
        }

        @Actor
        public void first(II_Result r) {
            r.r1 = deque.steal() == null ? 0 : 1;
        }

        @Actor
        public void second(II_Result r) {
            r.r2 = deque.steal() == null ? 0 : 1;
        }
    }
}
