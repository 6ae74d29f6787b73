package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The hand-off around the JCTools inbox: {@link Group#offer(Runnable, java.util.function.BiConsumer)}
 * calls its {@code accepted} callback once the admission has taken the task and before the inbox
 * publishes it, and relies on the queue's release store (and the consumer's acquire load) to make
 * what the callback wrote visible to whoever takes the task ({@code RotaTask.bindGroup},
 * {@code GroupFuture.acceptedAsItself} write there). A worker that takes the task must see it.
 * The workers' threads are never started; one actor submits from outside the pool, the other plays
 * a worker's take from the lane's inbox (token, relaxedPoll, token back), as {@code Worker.takeFromInbox}.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.InboxHandoffTests.*'}
 */
public final class InboxHandoffTests {
    private InboxHandoffTests() {}

    /** A task with plain fields: one set before the offer, one by the accepted callback. */
    static final class Marked implements Runnable {
        int before;
        int accepted;

        @Override
        public void run() {}
    }

    /**
     * r1: the field the submitter wrote before offering, as the taker read it (-1 when the take found
     * nothing); r2: the field the accepted callback wrote (-1 likewise).
     */
    @JCStressTest
    @Outcome(id = "-1, -1", expect = ACCEPTABLE, desc = "the take came before the task was visible")
    @Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "taken, with both writes visible")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "taken before the accepted callback's write was published: the callback ran after the offer")
    @Outcome(id = "0, .*", expect = FORBIDDEN, desc = "taken, but the submitter's write before the offer is not visible")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class AcceptedCallbackPublishedWithTask {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group group = ShutdownTests.group(engine);
        final Inbox inbox = group.lanes[0].inbox;

        @Actor
        public void submitter() {
            Marked task = new Marked();
            task.before = 1;
            if (group.offer(task, (t, g) -> ((Marked) t).accepted = 2) != Group.ACCEPTED) {
                throw new IllegalStateException("offer refused");
            }
        }

        @Actor
        public void worker(II_Result r) {
            if (!inbox.tryAcquireConsumer()) {
                throw new IllegalStateException("the inbox's consumer token is taken");
            }
            Runnable task;
            try {
                task = inbox.relaxedPoll();
            } finally {
                inbox.releaseConsumer();
            }
            if (task == null) {
                r.r1 = -1;
                r.r2 = -1;
            } else {
                Marked m = (Marked) task;
                r.r1 = m.before;
                r.r2 = m.accepted;
                group.tasksTakenByOwner(0, 1);
            }
        }
    }
}
