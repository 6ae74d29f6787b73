package dev.rota.core;

/**
 * A task whose {@code cancel(true)} interrupts the thread that runs it, and says whether one was
 * asked for. A worker that runs another task inside a waiting one (a join's help) takes an
 * interrupt that arrives meanwhile as the helped task's, and clears it after that task; it sets it
 * again for the waiter when the waiter asks to be interrupted ({@link Engine#afterHelpedTask}).
 */
public interface InterruptOnCancel {
    /**
     * True once a {@code cancel(true)} of this task has been called, from before it interrupts the
     * task's thread, so that whoever sees the interrupt also sees this.
     */
    boolean interruptRequested();
}
