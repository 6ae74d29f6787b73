package dev.rota.core;

/**
 * The future whose own code a worker or a spare runs now, for a {@code cancel(true)} of it
 * ({@link WorkerContext#interruptForCancel}): null while the thread runs anything else, a task
 * nested inside that code included.
 *
 * <p>The canceller interrupts the thread only by taking the interrupt the cancel owes
 * ({@link InterruptOnCancel#takeOwedInterrupt}), and takes it only while it holds the slot with the
 * thread in the future's code. The thread, back in that code after a nested task, takes it itself
 * if it is still owed. One CAS decides who takes it, so the future's code gets one interrupt per
 * cancel: a thread that the canceller found in its code leaves nothing owed for a nested task's end
 * to set again, and one that the canceller missed (inside a nested task) takes the debt after it.
 *
 * <p>A nested task runs between {@link #leaveForNested} and {@link #returnFromNested}, which clears
 * the interrupts the nested task left before it puts the future back: a canceller that finds the
 * future back may take the debt and interrupt at once, and a clear after that would lose it.
 */
final class RunningFuture extends InterruptSlot<InterruptOnCancel> {
    /**
     * The running thread, before it runs a task nested inside the future's code: leaves the future,
     * waiting while a canceller holds it, and returns it (null for none) for {@link #returnFromNested}.
     */
    InterruptOnCancel leaveForNested() {
        return switchTo(null);
    }

    /**
     * The running thread, once the nested task has returned: clears the interrupts meant for that
     * task, then puts {@code waiting} (what {@link #leaveForNested} returned) back. The caller then
     * takes the debt of waiting's cancel, if still owed, and sets the interrupts the waiting code is
     * owed ({@link Engine#afterHelpedTask}).
     */
    void returnFromNested(InterruptOnCancel waiting) {
        Thread.interrupted();
        switchTo(waiting);
    }

    @Override
    boolean shouldInterrupt(InterruptOnCancel future) {
        return future.takeOwedInterrupt();
    }
}
