package dev.rota.core;

import java.util.List;

/**
 * Work that the workers take besides their own inboxes and deques, such as the queues of task
 * groups. The engine consults it after a worker's own queues and before stealing, counts it when
 * deciding whether a worker may park or exit, and drains it at {@code shutdownNow()}.
 *
 * <p>The same no-loss rules as for inboxes hold (see {@link Engine}): an implementation admits
 * submissions through gates that {@link #close()} shuts, takes each task exactly once, and after a
 * producer's offer calls {@link Engine#signalWork()} so that a parked worker is woken (W3).
 */
public interface WorkSource {

    /**
     * A unit of work for the calling worker, or null. Must not block. The returned runnable is run
     * by the worker like a task; it may run several user tasks (a slice of one group) and must
     * report their exceptions itself through {@link Engine#reportUncaught}.
     *
     * @param worker the calling worker's index
     * @param cpu    the calling worker's CPU
     */
    Runnable poll(int worker, int cpu);

    /** True when {@link #poll} may find work; volatile reads only (used just before parking). */
    boolean hasWork();

    /** Refuses later submissions; idempotent. Called by shutdown and shutdownNow. */
    void close();

    /** True when closed and no accepted submission is still on its way into a queue. */
    boolean isDrained();

    /** Moves every accepted task that was never taken into {@code sink}, each exactly once (shutdownNow). */
    void drainTo(List<Runnable> sink);
}
