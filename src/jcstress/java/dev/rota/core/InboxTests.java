package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The consumer token of an {@link Inbox} (I1): the single-consumer queue is polled by whichever
 * thread holds the token, so its consumer-side fields pass from one holder to the next through the
 * token's release store and CAS; and a shutdownNow that takes the token for good while a worker
 * moves a batch to its deque (W1, E3) returns every task the worker did not keep, each once.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.InboxTests.*'}
 */
public final class InboxTests {
    private InboxTests() {}

    record Task(int id) implements Runnable {
        @Override
        public void run() {}
    }

    private static int id(Runnable task) {
        return task == null ? 0 : ((Task) task).id;
    }

    /**
     * Two workers take turns at one inbox holding two tasks: each waits for the token, takes one task
     * and gives the token back. The second holder must see the first one's take. r1, r2: the tasks
     * each took.
     */
    @JCStressTest
    @Outcome(id = {"1, 2", "2, 1"}, expect = ACCEPTABLE, desc = "each task taken once")
    @Outcome(id = {"1, 1", "2, 2"}, expect = FORBIDDEN, desc = "taken twice: the next holder did not see the last one's take")
    @Outcome(expect = FORBIDDEN, desc = "a task missed while it waited in the inbox")
    @State
    public static class ConsumersTakeTurns {
        final Inbox inbox = new Inbox(2);                 // two tasks fill a chunk: the second take crosses into the next

        public ConsumersTakeTurns() {
            inbox.offer(new Task(1));
            inbox.offer(new Task(2));
        }

        private int takeOne() {
            while (!inbox.tryAcquireConsumer()) {
                Thread.onSpinWait();
            }
            try {
                return id(inbox.relaxedPoll());
            } finally {
                inbox.releaseConsumer();
            }
        }

        @Actor
        public void first(II_Result r) {
            r.r1 = takeOne();
        }

        @Actor
        public void second(II_Result r) {
            r.r2 = takeOne();
        }
    }

    /**
     * W1 and E3: a worker moves its inbox's two tasks to its deque, the steps of
     * {@code Worker.takeFromInbox} (the oldest kept to run, the rest pushed, the take counted after
     * the token is given back), while the group's shutdownNow drains the group. r1: tasks the worker
     * kept to run; r2: tasks shutdownNow returned; r3: tasks left in the deque afterwards.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the worker moved both: one to run, one returned from its deque")
    @Outcome(id = "0, 2, 0", expect = ACCEPTABLE, desc = "the drain took the token first and returned both")
    @Outcome(id = {"0, 0, .*", "1, 0, .*", "0, 1, .*"}, expect = FORBIDDEN, desc = "a task lost: neither run nor returned")
    @Outcome(id = ".*, .*, [1-9]", expect = FORBIDDEN, desc = "a task stranded in the deque after the drain")
    @Outcome(expect = FORBIDDEN, desc = "a task both run and returned, or returned twice")
    @State
    public static class DrainRacingBatchMove {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group group = ShutdownTests.group(engine);
        final Lane lane = group.lanes[0];

        public DrainRacingBatchMove() {
            if (group.offer(new Task(1)) != Group.ACCEPTED || group.offer(new Task(2)) != Group.ACCEPTED) {
                throw new IllegalStateException("set-up: offer refused");
            }
        }

        @Actor
        public void worker(III_Result r) {
            Inbox inbox = lane.inbox;
            if (!inbox.tryAcquireConsumer()) {
                return;
            }
            Runnable kept;
            int n = 0;
            try {
                kept = inbox.relaxedPoll();
                if (kept != null) {
                    n++;
                    Runnable next = inbox.relaxedPoll();
                    if (next != null) {
                        lane.deque.push(next);
                        n++;
                    }
                }
            } finally {
                inbox.releaseConsumer();
            }
            if (n > 0) {
                group.tasksTakenByOwner(0, n);
                r.r1 = 1;
            }
        }

        @Actor
        public void stopper(III_Result r) {
            r.r2 = engine.shutdownNow(group).size();
        }

        @Arbiter
        public void after(III_Result r) {
            r.r3 = lane.deque.size();
        }
    }
}
