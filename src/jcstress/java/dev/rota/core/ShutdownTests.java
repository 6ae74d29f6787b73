package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * A submission racing shutdown: the task is rejected, or accepted and then run or returned; never
 * dropped. Workers are not started, so an accepted task can only be queued (to run) or returned.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.ShutdownTests.*'}
 */
public final class ShutdownTests {
    private ShutdownTests() {}

    static boolean submit(Engine engine) {
        try {
            engine.execute(() -> {});
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** r1: accepted; r2: returned by shutdownNow. Accepted tasks must come back. */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "accepted, then returned by shutdownNow")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "rejected")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "accepted but neither run nor returned: task lost")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "rejected yet returned: a task the caller never gave")
    @State
    public static class SubmitRacingShutdownNow {
        final Engine engine = ParkingTests.oneWorkerEngine();
        boolean accepted;

        @Actor
        public void submitter() {
            accepted = submit(engine);
        }

        @Actor
        public void stopper(II_Result r) {
            r.r2 = engine.shutdownNow().size();
        }

        @Arbiter
        public void after(II_Result r) {
            r.r1 = accepted ? 1 : 0;
        }
    }

    /**
     * r1: accepted; r2: a worker would exit now. After shutdown() a worker may exit only when every
     * accepted task has been taken, so an accepted, still-queued task keeps the workers.
     */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "accepted: the workers stay to run it")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "rejected: the workers may exit")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "accepted, yet the workers would exit: task stranded")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "rejected, yet something is queued")
    @State
    public static class SubmitRacingShutdown {
        final Engine engine = ParkingTests.oneWorkerEngine();
        boolean accepted;

        @Actor
        public void submitter() {
            accepted = submit(engine);
        }

        @Actor
        public void closer() {
            engine.shutdown();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = accepted;
            r.r2 = engine.mayWorkerExit();
        }
    }

    /** A named group of an engine whose workers are not started. */
    static Group group(Engine engine) {
        return engine.dispatcher().newGroup("g", engine.dispatcher().baseCurrency(), 1, Group.UNBOUNDED, 16);
    }

    /**
     * G3 for a group: an offer racing the group's shutdown(). r1: accepted; r2: the group has
     * terminated. A refused offer reserved admission first and gave it back; a shutdown that saw the
     * reservation must not be left waiting for work that never comes (with parked workers, nothing
     * else would look at the group again).
     */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "accepted: the group waits for its task")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "refused: the group is done")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "refused, yet the group never terminates")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "accepted into a terminated group: task stranded")
    @State
    public static class OfferRacingGroupShutdown {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group group = group(engine);
        boolean accepted;

        @Actor
        public void submitter() {
            accepted = group.offer(() -> {}) == Group.ACCEPTED;
        }

        @Actor
        public void closer() {
            engine.dispatcher().shutdown(group);
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = accepted;
            r.r2 = group.isTerminated();
        }
    }

    /**
     * The same race with the group's shutdownNow(). r1: accepted; r2: tasks returned; r3: the group
     * has terminated. Every accepted task comes back, and the group terminates either way.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "accepted, returned, terminated")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "refused, terminated")
    @Outcome(id = ".*, .*, 0", expect = FORBIDDEN, desc = "the group never terminates")
    @Outcome(id = "1, 0, .*", expect = FORBIDDEN, desc = "accepted but not returned: task lost")
    @Outcome(id = "0, 1, .*", expect = FORBIDDEN, desc = "refused yet returned")
    @State
    public static class OfferRacingGroupShutdownNow {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group group = group(engine);
        boolean accepted;

        @Actor
        public void submitter() {
            accepted = group.offer(() -> {}) == Group.ACCEPTED;
        }

        @Actor
        public void stopper(III_Result r) {
            r.r2 = engine.shutdownNow(group).size();
        }

        @Arbiter
        public void after(III_Result r) {
            r.r1 = accepted ? 1 : 0;
            r.r3 = group.isTerminated() ? 1 : 0;
        }
    }

    /**
     * A worker's take racing its group's shutdownNow(), for a fork queued before it: the taker reads
     * whether the group was drained before it takes, as Worker.takeFromSlice does, and cancels what
     * it takes only if so (W2). r1: tasks returned; r2: taken; r3: cancelled by the taker.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "returned by the drain")
    @Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "taken before the drain, and run")
    @Outcome(id = "0, 1, 1", expect = FORBIDDEN, desc = "a fork queued before the drain cancelled, yet not returned")
    @Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "neither taken nor returned: task lost")
    @Outcome(id = "1, 1, .*", expect = FORBIDDEN, desc = "taken and returned: twice")
    @State
    public static class TakeRacingGroupShutdownNow {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group group = group(engine);
        final FutureTask<Void> fork = new FutureTask<>(() -> {}, null);
        boolean taken;
        boolean cancelled;

        {
            group.lanes[0].deque.push(fork);             // the worker's own deque, as a fork lands there
        }

        @Actor
        public void taker() {
            boolean drained = group.isStopDrained();
            Runnable task = group.lanes[0].deque.pop();
            taken = task != null;
            cancelled = taken && engine.cancelLeftover(task, drained, group);
        }

        @Actor
        public void stopper(III_Result r) {
            r.r1 = engine.shutdownNow(group).size();
        }

        @Arbiter
        public void after(III_Result r) {
            r.r2 = taken ? 1 : 0;
            r.r3 = cancelled ? 1 : 0;
        }
    }

    /**
     * The pool's drain flag: a join on a worker after the pool's shutdownNow finishes the forks left on
     * its deques (cancelling the futures among them) only once the drain is over (W2); until then they
     * are the drain's to return. Here a fork queued before the drain meets a join's help racing the
     * pool's shutdownNow. r1: tasks returned; r2: the fork was cancelled; r3: tasks left in the deque.
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "returned by the drain; the help found nothing left")
    @Outcome(id = "0, 1, 0", expect = FORBIDDEN, desc = "a fork queued before the drain cancelled by the help instead of returned")
    @Outcome(expect = FORBIDDEN, desc = "a fork lost, returned twice, or stranded")
    @State
    public static class LeftoverHelpRacingPoolDrain {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Lane lane = engine.defaultGroup().lanes[0];
        final FutureTask<Void> fork = new FutureTask<>(() -> {}, null);

        {
            lane.deque.push(fork);                       // the worker's own deque, as a fork lands there
        }

        @Actor
        public void joiningWorker() {
            engine.worker(0).helpOnce(false);           // as a join's help on the worker, the pool stopping or not
        }

        @Actor
        public void stopper(III_Result r) {
            r.r1 = engine.shutdownNow().size();
        }

        @Arbiter
        public void after(III_Result r) {
            r.r2 = fork.isCancelled() ? 1 : 0;
            r.r3 = lane.deque.size();
        }
    }
}
