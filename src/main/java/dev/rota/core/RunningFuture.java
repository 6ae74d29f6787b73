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
 */
final class RunningFuture extends InterruptSlot<InterruptOnCancel> {
    @Override
    boolean shouldInterrupt(InterruptOnCancel future) {
        return future.takeOwedInterrupt();
    }
}
