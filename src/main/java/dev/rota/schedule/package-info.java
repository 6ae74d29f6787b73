/**
 * Delayed and periodic tasks: the machinery behind the pool's
 * {@link java.util.concurrent.ScheduledExecutorService} methods.
 *
 * <p>A pool owns one {@link dev.rota.schedule.DelayScheduler}, forwards the four {@code schedule*}
 * methods to it, and implements {@link dev.rota.schedule.DueTaskSink} to receive tasks as they
 * come due. The pool's shutdown wiring:
 * <ul>
 *   <li>{@code shutdown()}: mark the pool shut down (it still accepts due tasks), then call
 *       {@code scheduler.shutdown()}; terminate once the pool's queues are empty, no task runs and
 *       {@code scheduler.isIdle()} (the scheduler calls {@code schedulerIdle()} when it gets there).
 *   <li>{@code shutdownNow()}: mark the pool stopped (refuse due tasks), then return
 *       {@code scheduler.shutdownNow()} plus the pool's own drained queue.
 * </ul>
 * Internal: not exported by the module.
 */
package dev.rota.schedule;
