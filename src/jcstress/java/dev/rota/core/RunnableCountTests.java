package dev.rota.core;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZZ_Result;

/**
 * The runnable counts that idle workers read without the dispatcher's lock (D3, D4): a submission to
 * an idle group races a lock holder that applies the queued activations. Once both are done, the
 * group's task is visible to every worker its mask allows, through the counts or the queued
 * activation, and counted for no other worker; an idle worker that saw neither would keep a dry slice,
 * or skip its pick, while the task waits. Workers are not started.
 * Run: {@code mvn -Pjcstress test-compile exec:exec@jcstress -Djcstress.tests='dev\.rota\.core\.RunnableCountTests.*'}
 */
public final class RunnableCountTests {
    private RunnableCountTests() {}

    /**
     * Group {@code a} (every worker) is runnable, as the group of a dry slice; group {@code b} (worker 0
     * only) is idle when its task is offered. r1: worker 0 sees others with work besides {@code a};
     * r2: worker 1 does; r3: the pool may have work; r4: b's activation is still queued.
     */
    @JCStressTest
    @Outcome(id = "true, false, true, false", expect = ACCEPTABLE, desc = "applied: b counted for worker 0 only")
    @Outcome(id = "true, true, true, true", expect = ACCEPTABLE, desc = "b's activation still queued: every worker looks")
    @Outcome(id = "false, .*, .*, .*", expect = FORBIDDEN, desc = "b's task hidden from the worker it may run on: a dry slice of a kept")
    @Outcome(id = ".*, .*, false, .*", expect = FORBIDDEN, desc = "the count published too low: idle workers skip the pick")
    @Outcome(id = "true, true, true, false", expect = FORBIDDEN, desc = "b counted for a worker its mask excludes")
    @Outcome(expect = FORBIDDEN, desc = "impossible")
    @State
    public static class ActivationRacingALockHolder {
        final Engine engine = ParkingTests.twoWorkerEngine();
        final Dispatcher dispatcher = engine.dispatcher();
        final Group a = dispatcher.newGroup("a", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        final Group b = ParkingTests.groupOnWorker(engine, "b", 0);

        public ActivationRacingALockHolder() {
            if (a.offer(() -> {}) != Group.ACCEPTED) {
                throw new IllegalStateException("set-up: offer refused");
            }
            dispatcher.read(() -> null);                  // a runnable, its activation applied: none queued
            if (!a.runnable || dispatcher.activationsPending()) {
                throw new IllegalStateException("set-up left runnable=" + a.runnable + ", activation queued="
                        + dispatcher.activationsPending());
            }
        }

        @Actor
        public void submitter() {
            if (b.offer(() -> {}) != Group.ACCEPTED) {
                throw new IllegalStateException("offer refused");
            }
        }

        @Actor
        public void lockHolder() {
            dispatcher.read(() -> null);                  // any lock hold applies the queued activations
        }

        @Arbiter
        public void after(ZZZZ_Result r) {
            r.r1 = dispatcher.othersMayHaveWork(a, 0);
            r.r2 = dispatcher.othersMayHaveWork(a, 1);
            r.r3 = dispatcher.mayHaveWork();
            r.r4 = dispatcher.activationsPending();
        }
    }
}
