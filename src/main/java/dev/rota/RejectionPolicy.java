package dev.rota;

import java.util.concurrent.RejectedExecutionException;

/**
 * What a {@link TaskGroup} does with a task submitted while its queue is full, as
 * {@link java.util.concurrent.RejectedExecutionHandler} does for a {@code ThreadPoolExecutor}.
 * A submission after the group or its pool shut down is always refused with a
 * {@link RejectedExecutionException}, whatever the policy. A policy is called only for a full
 * queue, but the group may shut down between that answer and the call: a policy that runs the
 * task should look at {@link TaskGroup#isShutdown()} first, as {@link #CALLER_RUNS} does.
 */
@FunctionalInterface
public interface RejectionPolicy {

    /**
     * Throws {@link RejectedExecutionException} naming the group and its capacity. The default.
     */
    RejectionPolicy ABORT = (task, group) -> {
        throw new RejectedExecutionException("group " + group.name() + " is full (capacity " + group.queueCapacity()
                + "): task rejected: " + task);
    };

    /**
     * Runs the task in the submitting thread, which slows the submitter down to the pace the group
     * is served at (back-pressure); the task's CPU time is then charged to whatever group that thread
     * is running, if any. A group that shut down since its queue was found full refuses the task
     * instead, with a {@link RejectedExecutionException}, as it refuses any submission after its
     * shutdown; unlike {@code ThreadPoolExecutor}'s {@code CallerRunsPolicy}, which then discards the
     * task silently, so that a submitter never loses a task without hearing of it.
     */
    RejectionPolicy CALLER_RUNS = (task, group) -> {
        if (group.isShutdown()) {
            throw new RejectedExecutionException(group.describe() + " is shut down: task rejected: " + task);
        }
        task.run();
    };

    /**
     * Handles {@code task}, which {@code group} could not queue because its queue was full. It may
     * run the task, throw {@link RejectedExecutionException}, or drop it; the group has counted the
     * rejection already.
     */
    void rejected(Runnable task, TaskGroup group);
}
