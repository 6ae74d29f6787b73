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
 * {@code TAKEN → FREE} when the spare is done.
 *
 * <p>A spare is reused: a release that took the assignment back returns the spare to the idle list,
 * where another worker may assign it at once. So the phase word carries, above the phase, a count
 * of the assignments made, and the spare's CAS expects the word it read before it read the worker:
 * {@code ASSIGNED} alone would let a spare that read the first worker, before its release, win the
 * next worker's assignment in the first one's name (an ABA), stand in for nobody and end it, leaving
 * the next worker blocked with no stand-in. The worker is written before the word (volatile), so a
 * spare that reads the word, then the worker, and wins its CAS on that word has read the worker of
 * that very assignment (a release in between would have moved the word, and a later assignment
 * would have counted up).
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

    /** The phase in the low two bits; above them, the assignments made so far (wrapping). */
    private static final int PHASE_BITS = 3;
    private static final int ONE_ASSIGNMENT = PHASE_BITS + 1;

    private volatile int phase = FREE;
    private volatile Worker worker;

    /** The blocking worker: hands itself to this spare. Requires the phase FREE. */
    void assign(Worker blocked) {
        worker = blocked;
        int free = phase;                                // FREE: no other thread writes it now
        PHASE.setVolatile(this, (free & ~PHASE_BITS) + ONE_ASSIGNMENT | ASSIGNED);
    }

    /**
     * The worker, no longer blocked: ends the stand-in. Returns true when the spare had not taken the
     * assignment, so this call ended it (and the caller does what the spare would have done at its end).
     */
    boolean release() {
        worker = null;
        int word = phase;
        return (word & PHASE_BITS) == ASSIGNED && PHASE.compareAndSet(this, word, word & ~PHASE_BITS | FREE);
    }

    /** The spare: the worker to stand in for, or null when there is no assignment it may take now. */
    Worker take() {
        int word = phase;                                // before the worker: see the class comment
        if ((word & PHASE_BITS) != ASSIGNED) {
            return null;
        }
        Worker blocked = worker;
        if (blocked != null && PHASE.compareAndSet(this, word, word & ~PHASE_BITS | TAKEN)) {
            return blocked;                              // the word did not move: this assignment's worker
        }
        return null;
    }

    /** The spare, while standing in: the worker it stands in for, null once released. */
    Worker current() {
        return worker;
    }

    /** The spare, after its last task for the assignment it took. */
    void done() {
        PHASE.setVolatile(this, phase & ~PHASE_BITS | FREE);
    }

    /** {@link #FREE}, {@link #ASSIGNED} or {@link #TAKEN}. */
    int phase() {
        return phase & PHASE_BITS;
    }
}
