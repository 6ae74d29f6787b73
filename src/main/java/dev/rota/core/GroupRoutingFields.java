package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The fields of a {@link Group} that every submission reads and that seldom change: where its tasks
 * go (engine, lanes, mask), whether they are admitted, and its run state.
 *
 * <p>They live in a superclass for the sake of layout: HotSpot lays out a superclass's fields before
 * its subclass's, whatever their types. (Within one class it lays out longs, then ints, booleans
 * and references, which put these references on the same line as the activation state, written
 * each time the group runs dry or gets work again.) {@link HeaderLinePad} keeps them off the line
 * they would share with the object before in memory, {@link GroupRoutingLinePad} off the
 * activation state's line after them.
 */
abstract class GroupRoutingFields extends HeaderLinePad {
    static final VarHandle RUN_STATE;

    static {
        try {
            RUN_STATE = MethodHandles.lookup().findVarHandle(GroupRoutingFields.class, "runState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Engine engine;
    final Lane[] lanes;
    /** Admission into the bounded queue; its counters have cache lines of their own. */
    final Admission admission;
    /** G3; moved up by {@link Group#advanceRunState} and {@link Group#terminate}. */
    volatile int runState = Group.OPEN;
    /**
     * Set once a shutdownNow (the group's or the pool's) has drained the group's queues; what a
     * worker or spare takes from them afterwards is a fork made after the drain (W2). Written once,
     * after the drain; read before each take.
     */
    volatile boolean stopDrained;
    /** The workers allowed to run this group's tasks; every worker by default. Replaced whole. */
    volatile WorkerMask mask;

    GroupRoutingFields(Engine engine, int capacity) {
        int workers = engine.workerCount();
        this.engine = engine;
        this.lanes = new Lane[workers];
        this.admission = new Admission(capacity, workers);
        this.mask = WorkerMask.all(workers);
    }
}
