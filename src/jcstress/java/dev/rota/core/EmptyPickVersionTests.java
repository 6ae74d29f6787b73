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
 * The empty-pick skip of {@code Worker.findTask}: a worker with no slice whose last pick found
 * nothing takes the dispatcher's lock again only once {@link Dispatcher#version()} has moved past
 * the version it read before that pick, or an activation is queued. A group made runnable for the
 * worker while it picks (a mask change that lets it in, an activation queued by an offer) must
 * either be seen by that pick, or leave the worker's next look with a new version or a queued
 * activation: else the worker skips the pick for as long as nothing else changes, beside a task it
 * may run. The workers' threads are never started; one actor plays the worker's look
 * ({@link Worker#runOneTask()}: the version read, the pick under the lock, the take), the other the
 * change; the arbiter plays the worker's next look, after both.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.EmptyPickVersionTests.*'}
 */
public final class EmptyPickVersionTests {
    private EmptyPickVersionTests() {}

    /**
     * A runnable group that only worker 1 may run, its task on worker 1's deque (as a fork there), is
     * opened to worker 0 while worker 0, with no slice, picks. r1: worker 0's look ran the task;
     * r2: its next look, after the mask change, ran it.
     */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the pick saw the new mask and took the task")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the pick saw the old mask; the next look saw a new version and picked again")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "missed for ever: old version kept, no activation, a runnable group the worker may serve")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "one task run twice")
    @State
    public static class MaskChangeRacingEmptyPick {
        final Engine engine = ParkingTests.twoWorkerEngine();
        final Worker worker = engine.worker(0);
        final Group group = ParkingTests.groupOnWorkerOne(engine, "opened");

        public MaskChangeRacingEmptyPick() {
            group.lanes[1].deque.push(() -> {});         // a fork on worker 1's deque: worker 0 steals from deques at every look
            group.noteWork();                            // queues the activation...
            engine.dispatcher().read(() -> null);        // ...applied here: runnable, none pending
            if (!group.runnable || engine.dispatcher().activationsPending()) {
                throw new IllegalStateException("set-up: not runnable, or an activation pending");
            }
        }

        @Actor
        public void maskChanger() {
            group.restrictTo(WorkerMask.all(2));
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.runOneTask();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.runOneTask();
        }
    }

    /**
     * An offer to an idle group that only worker 0 may run (it queues the group's activation) while
     * worker 0, with no slice, picks; another group, runnable on worker 1 only, sends worker 0 to the
     * lock (the runnable count), where it finds nothing it may serve. An activation queued after that
     * lock raises no version until a lock holder applies it, so the queued activation alone must send
     * the worker's next look to the lock. r1: worker 0's look ran the task; r2: its next look ran it.
     */
    @JCStressTest
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "the pick applied the activation and took the task")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "the pick came first; the next look saw the queued activation")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "missed for ever: old version kept, the activation ignored, a task queued")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "one task run twice")
    @State
    public static class OfferRacingEmptyPick {
        final Engine engine = ParkingTests.twoWorkerEngine();
        final Worker worker = engine.worker(0);
        final Group target = ParkingTests.groupOnWorker(engine, "target", 0);
        final Group elsewhere = ParkingTests.groupOnWorkerOne(engine, "elsewhere");

        public OfferRacingEmptyPick() {
            elsewhere.lanes[1].deque.push(() -> {});     // runnable, but not for worker 0
            elsewhere.noteWork();
            engine.dispatcher().read(() -> null);
            if (!elsewhere.runnable || target.runnable || engine.dispatcher().activationsPending()) {
                throw new IllegalStateException("set-up: wrong runnable state, or an activation pending");
            }
        }

        @Actor
        public void submitter() {
            if (target.offer(() -> {}) != Group.ACCEPTED) {
                throw new IllegalStateException("offer refused");
            }
        }

        @Actor
        public void worker(ZZ_Result r) {
            r.r1 = worker.runOneTask();
        }

        @Arbiter
        public void after(ZZ_Result r) {
            r.r2 = worker.runOneTask();
        }
    }
}
