package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * G2, no lost activation: a submission to a runnable group that has just run dry races the
 * dispatcher's decision that the group has no work. Either the dispatcher sees the task and keeps
 * the group runnable, or the submitter sees IDLE and queues an activation; never neither, which
 * would leave a task that no worker is ever sent to. Workers are not started.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.ActivationTests.*'}
 */
public final class ActivationTests {
    private ActivationTests() {}

    /** r1: the task is queued; r2: the group is runnable or its activation is queued. */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "the task will be found")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "lost activation: a queued task in a group nobody picks")
    @Outcome(id = "false, .*", expect = FORBIDDEN, desc = "an accepted task vanished")
    @State
    public static class SubmitRacingDeactivation {
        final Engine engine = ParkingTests.oneWorkerEngine();
        final Group group = engine.dispatcher().newGroup("g", engine.dispatcher().baseCurrency(), 1, Group.UNBOUNDED, 16);

        public SubmitRacingDeactivation() {
            // Make the group runnable (applying the activation its first task queued, so that no
            // stale activation answers for the race below), then take its only task away, as a
            // worker that ran it dry would.
            group.offer(() -> {});
            engine.dispatcher().read(() -> null);
            Inbox inbox = group.lanes[0].inbox;
            inbox.tryAcquireConsumer();
            inbox.poll();
            inbox.releaseConsumer();
            group.tasksTaken(0, 1);
            setUpRunnable = group.runnable;
            setUpActivationQueued = engine.dispatcher().activationsPending();
        }

        private final boolean setUpRunnable;
        private final boolean setUpActivationQueued;

        @Actor
        public void submitter() {
            group.offer(() -> {});
        }

        @Actor
        public void dispatcher() {
            engine.dispatcher().reconcileNow(group);
        }

        @Arbiter
        public void after(ZZ_Result r) {
            // The setup must have left the group runnable with no activation queued, or r2 proves nothing.
            if (!setUpRunnable || setUpActivationQueued) {
                throw new IllegalStateException("set-up left runnable=" + setUpRunnable + ", activation queued=" + setUpActivationQueued);
            }
            r.r1 = group.hasWork();
            r.r2 = group.runnable || engine.dispatcher().activationsPending();
        }
    }

    /**
     * G2 for a fork that its worker will not run: worker 0, which the group's mask excludes (W5), pushes
     * a fork of the group, whose activation state is not IDLE (its task runs there), while a slice of
     * the group ends dry elsewhere and the dispatcher deactivates it. Only a worker the mask allows will
     * run the fork, and none picks a group that is neither runnable nor queued for activation.
     * r1: the fork is queued; r2: the group is runnable or its activation is queued.
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "the fork will be found")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "lost activation: a fork that no allowed worker is sent to")
    @Outcome(id = "false, .*", expect = FORBIDDEN, desc = "the fork vanished")
    @State
    public static class ForkOnAnExcludedWorkerRacingDeactivation {
        final Engine engine = ParkingTests.twoWorkerEngine();
        final Worker forking = engine.worker(0);
        final Group group = ParkingTests.groupOnWorkerOne(engine, "moved");

        public ForkOnAnExcludedWorkerRacingDeactivation() {
            group.noteWork();                            // runnable and not IDLE, as while its task runs on
            engine.dispatcher().read(() -> null);        // worker 0: the push then makes no CAS
            if (!group.runnable || group.activation() == Group.IDLE || engine.dispatcher().activationsPending()) {
                throw new IllegalStateException("set-up: the group is not runnable and active, or an activation is queued");
            }
        }

        @Actor
        public void forkingWorker() {
            forking.pushFork(group.lanes[0], () -> {});
        }

        @Actor
        public void dispatcher() {
            engine.dispatcher().reconcileNow(group);     // as a dry slice of the group ending on worker 1
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = group.hasWork();
            r.r2 = group.runnable || engine.dispatcher().activationsPending();
        }
    }

    /**
     * G2 and W5 for a join on a worker that the group's mask excludes since the fork was pushed:
     * worker 0, still allowed, pushes a fork (no fence, and no activation, since the group is not
     * IDLE) while the group is moved to worker 1 and a dry slice of the group ends there (the
     * dispatcher deactivates it). The forking task then joins a fork that is not its newest; the
     * join sees the new mask, may not help, and does not end the slice, so no slice end reconciles
     * the group: its recheck ({@link Worker#leaveForksToAllowedWorkers}) must leave the group
     * runnable or queued for activation, or no allowed worker ever takes the fork.
     * r1: the join saw the new mask; r2: the group is runnable or its activation is queued.
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "the join saw the move; the fork will be found")
    @Outcome(id = "false, .*", expect = ACCEPTABLE, desc = "the join saw the old mask: it may help, and pops the fork itself")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "lost activation: a joined fork that no allowed worker is sent to")
    @State
    public static class JoinOnAWorkerTheMaskNowExcludesRacingDeactivation {
        final Engine engine = ParkingTests.twoWorkerEngine();
        final Worker forking = engine.worker(0);
        final Group group = ParkingTests.groupOnWorker(engine, "moving", 0);

        public JoinOnAWorkerTheMaskNowExcludesRacingDeactivation() {
            group.noteWork();                            // runnable and not IDLE, as while its task runs on
            engine.dispatcher().read(() -> null);        // worker 0: the push then makes no CAS
            if (!group.runnable || group.activation() == Group.IDLE || engine.dispatcher().activationsPending()) {
                throw new IllegalStateException("set-up: the group is not runnable and active, or an activation is queued");
            }
        }

        @Actor
        public void forkingWorkerThenJoin(ZZ_Result r) {
            forking.pushFork(group.lanes[0], () -> {});
            if (!group.allows(0)) {                      // the join's check before it may help (W5)
                forking.leaveForksToAllowedWorkers(group);
                r.r1 = true;
            }
        }

        @Actor
        public void moverThenDispatcher() {
            group.restrictTo(WorkerMask.of(2, 1));
            engine.dispatcher().reconcileNow(group);     // as a dry slice of the group ending on worker 1
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = group.runnable || engine.dispatcher().activationsPending();
        }
    }
}
