package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a thread runs now (a group's tasks, a future's own code), published so that another thread
 * can interrupt it for that, and only while it runs it.
 *
 * <p>Protocol: the running thread {@link #enter enters} a holder before running its code and
 * {@link #exit exits} it, or {@link #switchTo switches} to another, after; an interrupter swaps the
 * holder for {@code INTERRUPTING}, interrupts the thread and swaps the holder back. Exits and
 * switches swap the holder out with a CAS, waiting while an interrupter holds it, before the thread
 * clears its interrupt status. So an interrupt meant for one holder lands before the thread leaves
 * it, and never reaches what the thread runs next. An interrupter asks {@link #shouldInterrupt}
 * while it holds the slot: the thread is still in that holder when the interrupt lands.
 *
 * @param <T> what the thread runs
 */
class InterruptSlot<T> {
    private static final Object INTERRUPTING = new Object();
    private static final VarHandle HELD;

    static {
        try {
            HELD = MethodHandles.lookup().findVarHandle(InterruptSlot.class, "held", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Object held;

    /**
     * Asked by an interrupter that found the thread running {@code target}, while the thread cannot
     * leave it: whether to interrupt it. Always here.
     */
    boolean shouldInterrupt(T target) {
        return true;
    }

    /** The running thread only, holding nothing. */
    void enter(T running) {
        HELD.setVolatile(this, running);
    }

    /** The running thread only: ends {@code running}, then clears any interrupt aimed at it. */
    void exit(T running) {
        while (!HELD.compareAndSet(this, running, null)) {
            Thread.onSpinWait();                         // an interrupter holds it for a moment
        }
        Thread.interrupted();
    }

    /**
     * The running thread only: leaves what it holds now, if anything, for {@code next} (null:
     * nothing), waiting while an interrupter holds it, and returns what it left (null for nothing),
     * for a second call to enter again. An interrupter of what was left that comes meanwhile finds
     * another holder and interrupts nothing, so the caller tells such interrupts afterwards by the
     * state they leave. Leaves the interrupt status alone.
     */
    @SuppressWarnings("unchecked")
    T switchTo(T next) {
        while (true) {
            Object now = held;
            if (now != INTERRUPTING && HELD.compareAndSet(this, now, next)) {
                return (T) now;
            }
            Thread.onSpinWait();                         // an interrupter holds it for a moment
        }
    }

    /** Any thread: interrupts {@code thread} if it runs {@code target} now and {@link #shouldInterrupt} agrees. */
    void interruptIf(T target, Thread thread) {
        if (held == target && HELD.compareAndSet(this, target, INTERRUPTING)) {
            try {
                if (shouldInterrupt(target)) {
                    thread.interrupt();
                }
            } finally {
                HELD.setVolatile(this, target);          // the thread waits for this in exit and switchTo
            }
        }
    }
}
