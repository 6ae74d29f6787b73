package dev.rota.contract;

import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;

/**
 * Waits for the cancellations a {@link ExecutorFactory.QueuedTaskFate#CANCELLED} pool (ForkJoinPool)
 * still owes after it reported termination.
 *
 * <p>JDK 25's ForkJoinPool can report {@code isTerminated()} while a task accepted in a race with
 * {@code shutdownNow()} is not yet cancelled: either another thread has taken it out of a queue and
 * not yet called {@code cancel}, or a submitter that passed the shutdown check pushed it after the
 * queues were last cleaned; a later {@code isTerminated()} call cleans the queues again. The task
 * never runs, so nothing is lost, but its cancellation is late. Tests of such pools therefore poll
 * {@code isTerminated()} (within the liveness bound) until every accepted task is accounted for,
 * and separately assert that no task ran meanwhile. Pools that return queued tasks from
 * {@code shutdownNow()} get no such grace: their count must be right when termination is reported.
 */
public final class LateCancellations {

    private LateCancellations() {
    }

    /** Polls {@code pool.isTerminated()} until {@code unresolved} reaches zero or the liveness bound passes. */
    public static void settle(ExecutorService pool, LongSupplier unresolved) throws InterruptedException {
        try {
            Liveness.awaitCondition(() -> pool.isTerminated() && unresolved.getAsLong() <= 0,
                    "late cancellations after termination");
        } catch (AssertionError stillUnresolved) {
            // The caller's own accounting assertion reports the counts.
        }
    }
}
