package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The group whose tasks a thread runs now, published so that a shutdownNow of that group can
 * interrupt the thread while, and only while, it does.
 *
 * <p>Protocol: the running thread {@link #enter enters} a group before running its tasks and
 * {@link #exit exits} it after; an interrupter swaps the group for {@code INTERRUPTING}, interrupts
 * the thread and swaps the group back. {@code exit} must swap the group out, waiting while an
 * interrupter holds it, before it clears the thread's interrupt status. So an interrupt meant for
 * one group lands before that exit clears it, and never reaches a task of the next group.
 */
final class RunningGroup {
    private static final Object INTERRUPTING = new Object();
    private static final VarHandle GROUP;

    static {
        try {
            GROUP = MethodHandles.lookup().findVarHandle(RunningGroup.class, "group", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Object group;

    /** The running thread only. */
    void enter(Group running) {
        GROUP.setVolatile(this, running);
    }

    /** The running thread only: ends {@code running}, then clears any interrupt aimed at it. */
    void exit(Group running) {
        while (!GROUP.compareAndSet(this, running, null)) {
            Thread.onSpinWait();                         // an interrupter holds it for a moment
        }
        Thread.interrupted();
    }

    /**
     * The running thread only: leaves the group it runs now, if any, for {@code next}, waiting while
     * an interrupter holds it, and returns the group left (null for none), for a second call to
     * enter again. For a task of another group run inside a waiting task
     * ({@link WorkerContext#runAwaitedTask}): an interrupter of the group left that comes meanwhile
     * finds another group and interrupts nothing, so the caller tells such interrupts afterwards by
     * the state they leave ({@link Engine#runInsideWaiter}). Leaves the interrupt status alone.
     */
    Group switchTo(Group next) {
        while (true) {
            Object now = group;
            if (now != INTERRUPTING && GROUP.compareAndSet(this, now, next)) {
                return (Group) now;
            }
            Thread.onSpinWait();                         // an interrupter holds it for a moment
        }
    }

    /** Any thread: interrupts {@code thread} if it runs {@code target}'s tasks now. */
    void interruptIf(Group target, Thread thread) {
        if (group == target && GROUP.compareAndSet(this, target, INTERRUPTING)) {
            thread.interrupt();
            GROUP.setVolatile(this, target);
        }
    }
}
