package dev.rota.core;

/**
 * A task whose {@code cancel(true)} interrupts the thread that runs it, and owes that thread one
 * interrupt until it is delivered. A worker that runs another task inside a waiting one (a join's
 * help, a future run in place) takes an interrupt that arrives meanwhile as the nested task's, and
 * clears it after that task; the waiter's cancel then finds none of the waiter's own code to
 * interrupt, and the interrupt stays owed. The thread takes it when it is back in the waiter's code
 * ({@link Engine#afterHelpedTask}), or the canceller does when it finds the thread there
 * ({@link RunningFuture}): whoever takes it interrupts, so the waiter gets one interrupt per
 * cancel, not one per nested task that ends after it.
 */
public interface InterruptOnCancel {
    /**
     * True once, for the first caller after a {@code cancel(true)} that cancelled this task and owes
     * its thread an interrupt: that caller interrupts the thread. False for every later caller, and
     * when no {@code cancel(true)} cancelled this task: one that lost to a {@code cancel(false)} or
     * to the task's completion owes nothing, except where FutureTask's own interrupt is used (see
     * {@code BlockingFutureTask.cancel}).
     */
    boolean takeOwedInterrupt();
}
