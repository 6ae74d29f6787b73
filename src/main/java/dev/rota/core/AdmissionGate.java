package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Decides, atomically with shutdown, whether a submission is accepted, and lets the pool learn when
 * no accepted submission is still on its way into a queue.
 *
 * <pre>
 *   state: bit 31 = CLOSED, bits 0..30 = producers between enter() and exit()
 * </pre>
 *
 * <p>Invariants:
 * <ul>
 *   <li>G1: {@link #enter()} succeeds only while the gate is open, and once {@link #close()} has
 *       returned no later {@code enter()} succeeds.</li>
 *   <li>G2: when {@link #isDrained()} returns true, every producer that entered has exited, so every
 *       task accepted through this gate is already visible in its queue.</li>
 * </ul>
 *
 * <p>Memory ordering: {@code exit()} is a volatile read-modify-write after the producer's queue
 * offer, and {@code isDrained()} a volatile read before the consumer looks at the queue, so the offer
 * happens-before the look whenever the count read is the one that exit() left.
 */
public final class AdmissionGate {
    static final int CLOSED = 1 << 31;
    private static final int PRODUCERS = ~CLOSED;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(AdmissionGate.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int state;

    /** Registers a producer; false when the gate is closed (the submission must be rejected). */
    public boolean enter() {
        int s = state;
        while ((s & CLOSED) == 0) {
            int witness = (int) STATE.compareAndExchange(this, s, s + 1);
            if (witness == s) {
                return true;
            }
            s = witness;
        }
        return false;
    }

    /** Ends the registration made by a successful {@link #enter()}. */
    public void exit() {
        STATE.getAndAdd(this, -1);
    }

    /** Refuses all later entries (G1). Idempotent. */
    public void close() {
        STATE.getAndBitwiseOr(this, CLOSED);
    }

    public boolean isClosed() {
        return (state & CLOSED) != 0;
    }

    /** True when closed and no producer is inside (G2). */
    public boolean isDrained() {
        return state == CLOSED;
    }

    /** Producers currently inside; for tests and diagnostics. */
    int producers() {
        return state & PRODUCERS;
    }
}
