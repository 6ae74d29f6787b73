package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.rota.affinity.NoAffinity;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * No lost wake-up: a submission, or a change of a group's mask, racing a worker's decision to park.
 * The workers' threads are never started; the actors play the producer (or the caller of
 * {@link Group#restrictTo}) and the worker's {@link Worker#prepareToPark()}.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.ParkingTests.*'}
 */
public final class ParkingTests {
    private ParkingTests() {}

    static Engine oneWorkerEngine() {
        return new Engine("jcstress", new int[] {0}, new int[][] {{}}, new NoAffinity("test"), false, null, true);
    }

    /** A group of {@code engine} (two workers) that only worker 1 may run. */
    static Group groupOnWorkerOne(Engine engine, String name) {
        return groupOnWorker(engine, name, 1);
    }

    /** A group of {@code engine} (two workers) that only {@code worker} may run. */
    static Group groupOnWorker(Engine engine, String name, int worker) {
        Dispatcher dispatcher = engine.dispatcher();
        Group group = dispatcher.newGroup(name, dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        group.restrictTo(WorkerMask.of(2, worker));
        return group;
    }

    static Engine twoWorkerEngine() {
        return new Engine("jcstress", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"), false, null,
                true);
    }

    /** r1: the worker decided to sleep; r2: it is still PARKED after both actors ran. */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "the worker saw the task in its last search")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the worker slept and the producer woke it")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "lost wake-up: asleep with a task in its inbox")
    @Outcome(id = "false, true", expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class OfferRacingPark {
        final Engine engine = oneWorkerEngine();
        final Worker worker = engine.worker(0);

        @Actor
        public void producer() {
            engine.execute(() -> {});
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.isParked();
        }
    }

    /**
     * A group that holds a task in worker 1's inbox and allowed only worker 1 is opened to worker 0
     * while worker 0 decides to park. r1: worker 0 decided to sleep; r2: it is still PARKED after
     * both actors ran.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "the worker saw the new mask and the task")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the worker slept and the mask change woke it")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "lost wake-up: asleep while a task it may run waits")
    @Outcome(id = "false, true", expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class MaskChangeRacingPark {
        final Engine engine = twoWorkerEngine();
        final Worker worker = engine.worker(0);
        final Group group;

        public MaskChangeRacingPark() {
            group = groupOnWorkerOne(engine, "placed");
            if (group.offer(() -> {}) != Group.ACCEPTED) {
                throw new IllegalStateException("set-up: offer refused");
            }
            engine.dispatcher().read(() -> null);        // applies the queued activation: none pending now
        }

        @Actor
        public void maskChanger() {
            group.restrictTo(WorkerMask.all(2));
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.isParked();
        }
    }

    /**
     * W6: after shutdown, worker 0 (which may not run the group's task) decides to park while worker
     * 1 takes the group's last task and, finding that every worker may now exit, wakes the others.
     * r1: worker 0 decided to sleep; r2: it is still PARKED after both actors ran.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "worker 0 saw that it may exit")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "worker 0 slept and the exiting worker woke it")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "lost wake-up: asleep for ever after shutdown, the pool never terminates")
    @Outcome(id = "false, true", expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class LastTakeRacingParkAfterShutdown {
        final Engine engine = twoWorkerEngine();
        final Worker worker = engine.worker(0);
        final Worker exiting = engine.worker(1);
        final Group group;

        public LastTakeRacingParkAfterShutdown() {
            group = groupOnWorkerOne(engine, "placed");
            if (group.offer(() -> {}) != Group.ACCEPTED) {
                throw new IllegalStateException("set-up: offer refused");
            }
            engine.dispatcher().read(() -> null);        // applies the queued activation: none pending now
            engine.shutdown();
        }

        @Actor
        public void exitingWorker() {
            Inbox inbox = group.lanes[1].inbox;
            if (!inbox.tryAcquireConsumer()) {
                throw new IllegalStateException("the inbox's consumer token is taken");
            }
            try {
                if (inbox.relaxedPoll() == null) {
                    throw new IllegalStateException("the task is not in the inbox");
                }
            } finally {
                inbox.releaseConsumer();
            }
            group.tasksTakenByOwner(1, 1);
            if (engine.mayWorkerExit()) {                // as Worker.dutyCycle, once the task has run
                exiting.wakeOthersToExit();
            }
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.isParked();
        }
    }

    /**
     * W5: after shutdown, worker 1, the only worker a group's mask allows, finds nothing queued and
     * exits, while worker 0, which the mask excludes, pushes a fork of that group (made by a task
     * that kept running there) and decides to park. Once worker 1 has exited the mask lapses, so
     * worker 0 must either see the fork as its own work or be woken by the exit; had worker 1 seen
     * the fork, it would not exit, and would take it itself.
     * r1: worker 0 decided to sleep; r2: worker 1 exited; r3: worker 0 is still PARKED after both.
     */
    @JCStressTest
    @Outcome(id = "false, true, false", expect = ACCEPTABLE, desc = "worker 0 saw the lapsed mask and its fork")
    @Outcome(id = "true, true, false", expect = ACCEPTABLE, desc = "worker 0 slept and the exiting worker woke it")
    @Outcome(id = {"false, false, false", "true, false, true", "true, false, false"}, expect = ACCEPTABLE,
            desc = "worker 1 saw the fork and stays to take it")
    @Outcome(id = "true, true, true", expect = FORBIDDEN, desc = "lost fork: its only worker asleep, the allowed one gone")
    @Outcome(id = {"false, true, true", "false, false, true"}, expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class AllowedWorkerExitRacingParkWithAFork {
        final Engine engine = twoWorkerEngine();
        final Worker worker = engine.worker(0);
        final Worker exiting = engine.worker(1);
        final Group group;

        public AllowedWorkerExitRacingParkWithAFork() {
            group = groupOnWorkerOne(engine, "moved");
            engine.shutdown();
        }

        @Actor
        public void exitingWorker(ZZZ_Result r) {
            if (engine.mayWorkerExit()) {                // as Worker.dutyCycle
                exiting.exitAfterShutdown();
                r.r2 = true;
            }
        }

        @Actor
        public void worker(ZZZ_Result r) {
            group.lanes[0].deque.push(() -> {});         // the fork, on worker 0's own deque
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZZ_Result r) {
            r.r3 = worker.isParked();
        }
    }

    /**
     * W3 for a fork that its own worker may run: worker 0 pushes a fork of a group that both workers
     * may run and that is active (so the push makes no CAS, which would fence it), while worker 1
     * decides to park. Worker 0's task may wait for the fork without joining it (a latch, a plain
     * get), so worker 1 must see the fork or be woken: a fork is there for any idle worker to take.
     * r1: worker 1 decided to sleep; r2: it is still PARKED after both actors ran.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "worker 1 saw the fork in its last search")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "worker 1 slept and the push woke it")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "lost wake-up: the push passed the parked count's read")
    @Outcome(id = "false, true", expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class ForkOnAnAllowedWorkerRacingPark {
        final Engine engine = twoWorkerEngine();
        final Worker forking = engine.worker(0);
        final Worker worker = engine.worker(1);
        final Group group = ShutdownTests.group(engine);

        public ForkOnAnAllowedWorkerRacingPark() {
            group.noteWork();                            // active, as while its task runs on worker 0
            engine.dispatcher().read(() -> null);
        }

        @Actor
        public void forkingWorker() {
            forking.pushFork(group.lanes[0], () -> {});
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.isParked();
        }
    }

    /**
     * W3 for forks that their worker will not run (W5): worker 0, which its group's mask no longer
     * allows, pushes a fork of that group while worker 1, the one the mask allows, decides to park.
     * r1: worker 1 decided to sleep; r2: it is still PARKED after both actors ran.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "worker 1 saw the fork in its last search")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "worker 1 slept and the push woke it")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "lost wake-up: the fork's only worker asleep")
    @Outcome(id = "false, true", expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class ForkOnAnExcludedWorkerRacingPark {
        final Engine engine = twoWorkerEngine();
        final Worker forking = engine.worker(0);
        final Worker worker = engine.worker(1);
        final Group group;

        public ForkOnAnExcludedWorkerRacingPark() {
            group = groupOnWorkerOne(engine, "moved");
            group.noteWork();                            // not idle, as while its task runs on worker 0: the
            engine.dispatcher().read(() -> null);        // push then makes no CAS, which would fence it
        }

        @Actor
        public void forkingWorker() {
            forking.pushFork(group.lanes[0], () -> {});
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.isParked();
        }
    }

    /**
     * W3 for a fork pushed just before a mask change excluded its worker: worker 0, which the
     * group's mask allows, pushes a fork (signalling by that mask, so not worker 1) and ends its
     * slice of the group (the dispatcher's lock, then {@link Worker#signalForksLeftBehind}), while
     * the group is moved to worker 1, which then decides to park. Worker 0 will not run the fork
     * once it has seen the new mask (W5), so worker 1 must see it or be woken.
     * r1: worker 1 decided to sleep; r2: it is still PARKED after both actors ran.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "worker 1 saw the fork in its last search")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "worker 1 slept and worker 0's slice end woke it")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "lost wake-up: the fork's only worker asleep")
    @Outcome(id = "false, true", expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class ForkRacingAMaskChange {
        final Engine engine = twoWorkerEngine();
        final Worker forking = engine.worker(0);
        final Worker worker = engine.worker(1);
        final Group group;

        public ForkRacingAMaskChange() {
            group = groupOnWorker(engine, "moving", 0);
            group.noteWork();                            // not idle, as while its task runs on worker 0
            engine.dispatcher().read(() -> null);
        }

        @Actor
        public void forkingWorker() {
            forking.pushFork(group.lanes[0], () -> {});
            engine.dispatcher().read(() -> null);        // the slice's end takes the dispatcher's lock
            forking.signalForksLeftBehind(group);
        }

        @Actor
        public void moverThenWorker(ZZ_Result r) {
            group.restrictTo(WorkerMask.of(2, 1));
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.isParked();
        }
    }

    /**
     * An offer racing a mask change, with every worker parked: a group that only worker 0 may run is
     * moved to worker 1 while an outside thread submits to it, routed by the mask it read. Whichever
     * mask the routing read, the only worker the new mask allows must be woken: by restrictTo's look
     * for work, or by the submitter's wake-up, which reads the mask after its reservation.
     * r1: worker 0 is still PARKED after both actors ran; r2: worker 1 is.
     */
    @JCStressTest
    @Outcome(id = {"true, false", "false, false"}, expect = ACCEPTABLE, desc = "worker 1 woken (worker 0 too, by the old mask)")
    @Outcome(id = ".*, true", expect = FORBIDDEN, desc = "lost wake-up: the task's only allowed worker asleep")
    @State
    public static class OfferRacingMaskChange {
        final Engine engine = twoWorkerEngine();
        final Group group = groupOnWorker(engine, "moving", 0);

        public OfferRacingMaskChange() {
            if (!engine.worker(0).prepareToPark() || !engine.worker(1).prepareToPark()) {
                throw new IllegalStateException("set-up: a worker saw work");
            }
        }

        @Actor
        public void submitter() {
            if (group.offer(() -> {}) != Group.ACCEPTED) {
                throw new IllegalStateException("offer refused");
            }
        }

        @Actor
        public void mover() {
            group.restrictTo(WorkerMask.of(2, 1));
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = engine.worker(0).isParked();
            r.r2 = engine.worker(1).isParked();
        }
    }

    /**
     * The parked count (W3) while a worker parks: worker 1 is parked; worker 0 decides to park while a
     * producer submits a task that only worker 0 may run (which wakes worker 0 if it finds it PARKED)
     * and then one that only worker 1 may run. The second submission reads the parked count to decide
     * whether anyone is to be woken: a count that missed worker 1 leaves it asleep.
     * r1: worker 0 is still PARKED after both actors ran; r2: worker 1 is.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "both awake: each task's worker saw it or was woken")
    @Outcome(id = ".*, true", expect = FORBIDDEN, desc = "lost wake-up: worker 1 asleep with a task only it may run")
    @Outcome(id = "true, .*", expect = FORBIDDEN, desc = "lost wake-up: worker 0 asleep with a task only it may run")
    @State
    public static class WakeDuringParkRacingAnotherOffer {
        final Engine engine = twoWorkerEngine();
        final Worker worker = engine.worker(0);
        final Group zero = groupOnWorker(engine, "zero", 0);
        final Group one = groupOnWorker(engine, "one", 1);

        public WakeDuringParkRacingAnotherOffer() {
            if (!engine.worker(1).prepareToPark()) {
                throw new IllegalStateException("set-up: worker 1 saw work");
            }
        }

        @Actor
        public void producer() {
            if (zero.offer(() -> {}) != Group.ACCEPTED || one.offer(() -> {}) != Group.ACCEPTED) {
                throw new IllegalStateException("offer refused");
            }
        }

        @Actor
        public void worker() {
            worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r1 = worker.isParked();
            r.r2 = engine.worker(1).isParked();
        }
    }

    /**
     * W6 and E2: after shutdown, with nothing queued, the worker decides to park while a submitter
     * that read its group open before the shutdown is refused as CLOSED: its reservation stands for a
     * moment, and a last look that sees it there may find that the worker may not exit yet. The group
     * is held from terminating (as a group's shutdownNow holds it while it drains), so that the looks
     * still see it. The submitter plays {@link Group#offer}'s part after its run-state read.
     * r1: the worker decided to sleep; r2: it is still PARKED after both actors ran, with nothing
     * left anywhere.
     */
    @JCStressTest
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "the worker saw that it may exit")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the worker slept on the refused reservation and the refusal woke it")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "lost wake-up: asleep for ever after shutdown, the pool never terminates")
    @Outcome(id = "false, true", expect = FORBIDDEN, desc = "did not sleep yet left PARKED")
    @State
    public static class RefusedSubmissionRacingParkAfterShutdown {
        final Engine engine = oneWorkerEngine();
        final Worker worker = engine.worker(0);
        final Group group;

        public RefusedSubmissionRacingParkAfterShutdown() {
            Dispatcher dispatcher = engine.dispatcher();
            group = dispatcher.newGroup("held", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
            dispatcher.drainStarted(group);              // a termination hold: the group stays live
            engine.shutdown();
        }

        @Actor
        public void refusedSubmitter() {
            if (group.admission.admit(0) != Group.CLOSED) {
                throw new IllegalStateException("set-up: the admission is open");
            }
            group.refusedAsClosed();
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.prepareToPark();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.isParked();
        }
    }
}
