package dev.rota;

/**
 * Figures of one {@link TaskGroup} at one moment. Counts are exact once the group is quiescent and
 * approximate while tasks run (each is read on its own, without stopping the workers).
 *
 * @param id             the group's {@link TaskGroup#id() number}, which no other group of any pool
 *                       has, even once this one has terminated and its name is used again
 * @param name           the group's name
 * @param tickets        the group's tickets, in its currency (0 once the group has terminated)
 * @param value          what those tickets are worth now, in base tickets (0 while the group is inactive)
 * @param cpuTimeNanos   CPU time charged to the group: the time its tasks ran, measured per slice
 * @param completedTasks tasks of the group that ran to completion or to an exception, counted as a
 *                       worker or spare takes and runs each, so a cancelled future skipped when a
 *                       worker reaches it counts too, as in {@code ThreadPoolExecutor}'s count; so
 *                       does a task that a {@code shutdownNow} drains and does not return (one its
 *                       waiter ran, or that was done already), as it would once a worker took it;
 *                       a periodic task counts once per time the timer hands it to the pool: each run,
 *                       and a run handed over that a shutdown then cancelled before it started (its
 *                       copy in the queue, skipped or drained, counts as a cancelled future's does,
 *                       where {@code ScheduledThreadPoolExecutor} takes it off its queue uncounted)
 * @param queuedTasks    tasks accepted and not yet started
 * @param rejectedTasks  submissions refused: queue full, or the group or pool shut down (for the
 *                       default group, the pool's refused {@code schedule*} calls too)
 * @param slices         slices charged: how many times the policy chose this group for a worker
 *                       (a task run by a spare thread counts as one slice)
 * @param longestSliceNanos the longest slice charged: a figure well above the pool's quantum means
 *                       tasks that run for long without returning to the pool
 */
public record GroupStats(long id, String name, long tickets, double value, long cpuTimeNanos, long completedTasks,
                         long queuedTasks, long rejectedTasks, long slices, long longestSliceNanos) {
}
