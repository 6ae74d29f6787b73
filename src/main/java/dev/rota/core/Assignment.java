package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The hand-off of one blocked worker to a spare thread (S5 in {@link SpareThreads}): the blocking
 * worker {@link #assign assigns} itself, and later {@link #release releases} the spare; the spare
 * {@link #take takes} the assignment when it wakes. Each assignment is ended exactly once: by the
 * spare, if it took it, after its last task; otherwise by the release, which takes it back. A block
 * shorter than the spare's wake-up thus ends cleanly instead of leaving an assignment that nobody
 * will end.
 *
 * <p>Phases: {@code FREE → ASSIGNED} (assign), then {@code ASSIGNED → TAKEN} (the spare's CAS) or
 * {@code ASSIGNED → FREE} (the release's CAS): exactly one of the two CASes succeeds.
 * {@code TAKEN → FREE} when the spare is done. The worker is written before the phase (volatile),
 * so a spare that wins its CAS reads the worker of this assignment, or null if released already.
 */
final class Assignment {
    static final int FREE = 0;
    static final int ASSIGNED = 1;
    static final int TAKEN = 2;

    private static final VarHandle PHASE;

    static {
        try {
            PHASE = MethodHandles.lookup().findVarHandle(Assignment.class, "phase", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int phase = FREE;
    private volatile Worker worker;

    /** The blocking worker: hands itself to this spare. Requires the phase FREE. */
    void assign(Worker blocked) {
        worker = blocked;
        PHASE.setVolatile(this, ASSIGNED);
    }

    /**
     * The worker, no longer blocked: ends the stand-in. Returns true when the spare had not taken the
     * assignment, so this call ended it (and the caller does what the spare would have done at its end).
     */
    boolean release() {
        worker = null;
        return PHASE.compareAndSet(this, ASSIGNED, FREE);
    }

    /** The spare: the worker to stand in for, or null when there is no assignment it may take now. */
    Worker take() {
        Worker blocked = worker;
        if (blocked != null && phase == ASSIGNED && PHASE.compareAndSet(this, ASSIGNED, TAKEN)) {
            return blocked;
        }
        return null;
    }

    /** The spare, while standing in: the worker it stands in for, null once released. */
    Worker current() {
        return worker;
    }

    /** The spare, after its last task for the assignment it took. */
    void done() {
        PHASE.setVolatile(this, FREE);
    }

    int phase() {
        return phase;
    }
}
