package dev.rota.schedule;

import java.util.concurrent.ForkJoinPool;

/**
 * The pool, as a {@link DelayScheduler} sees it: where due tasks go, and whom to tell that the
 * scheduler has drained after shutdown.
 */
public interface DueTaskSink {

    /**
     * Runs a due task on the pool. Called only from the scheduler's timer thread, so it must not
     * block. Accepts while the pool is running or shut down (a shut-down pool still runs delayed
     * one-shot tasks), refuses once it is stopped.
     *
     * @return false when the pool refuses; the scheduler then cancels the task, so that its future
     *     reports the refusal instead of never completing. Where this throws instead (out of memory),
     *     the task's future fails with what it threw; whatever state the failure left the pool in is
     *     the pool's, which the scheduler does not repair.
     */
    boolean submitDue(Runnable task);

    /**
     * Called once, when the scheduler holds nothing any more after {@link DelayScheduler#shutdown()}
     * or {@link DelayScheduler#shutdownNow()}: every due task has been handed over, so the pool may
     * terminate once its own queues drain. Called on whichever thread made the scheduler idle:
     * the timer thread, a thread that cancelled the last task, or the thread that shut it down
     * (from inside {@code shutdown()} itself when nothing was pending). Never called while the
     * scheduler holds its lock, so it may call back into the scheduler.
     */
    void schedulerIdle();

    /**
     * Called first on the timer thread, before it waits for any task. The timer is started by the
     * first schedule call, so it inherits that caller's CPU affinity (a pinned worker's, say); the
     * pool places it here. Must not throw; the default does nothing.
     */
    default void timerStarted() {
    }

    /**
     * Called when the future of a scheduled {@code Runnable} is cancelled, by its user or by a
     * shutdown, on the cancelling thread: {@code command} will not run through it (a run under way
     * finishes). A command that is itself a task others may wait on can be cancelled here, so that
     * they do not wait for a run that never comes. Called without the scheduler's lock; must not
     * throw. The default does nothing.
     */
    default void commandCancelled(Runnable command) {
    }

    /** What {@link #claimUnstartedCommand} found. */
    enum CommandClaim {
        /** The command starts only through its future (a plain Runnable): the future's own claim decides. */
        BY_ITS_FUTURE,
        /** The command's own start claim is taken: it never runs now. */
        CLAIMED,
        /** The command ran, runs or is done through another call (or its user cancelled it). */
        TAKEN_ELSEWHERE
    }

    /**
     * Called by a shutdownNow for the future of a scheduled one-shot {@code Runnable} that it takes
     * back (out of the heap, or drained from the pool's queues) before that future completed. For a
     * command with a start claim of its own, one that may also run through other calls than its
     * future (a task its user may run itself, through {@code invoke()} say), takes that claim, so
     * that the command never runs, and says whether it did: that claim alone decides whether the
     * task is handed back as never started, whatever a run of the future does meanwhile. Where
     * another call has it ({@link CommandClaim#TAKEN_ELSEWHERE}), the future completes as its own
     * run would have ({@link #commandRan}) instead of being cancelled, and is not handed back.
     * Called on the shutting-down thread, without the scheduler's lock; must not throw. The
     * default: {@link CommandClaim#BY_ITS_FUTURE}.
     */
    default CommandClaim claimUnstartedCommand(Runnable command) {
        return CommandClaim.BY_ITS_FUTURE;
    }

    /**
     * How a one-shot delayed task's future completes once its {@code Runnable} has run: one of the
     * three, once; later calls do nothing.
     */
    interface Outcome {
        /** The command returned normally: the future's value is null. */
        void completed();

        /** The command failed with {@code failure}: the future reports it as its cause. */
        void failed(Throwable failure);

        /** The command was cancelled: so is the future. */
        void cancelled();
    }

    /**
     * Called when the run of a one-shot scheduled {@code Runnable} has returned without throwing, on
     * the thread that ran it: {@code outcome} completes the delayed task's future. A command that
     * keeps its outcome to itself (a task that reports a failure to those who join it, rather than
     * throwing it from run(), and whose run may return at once when another run holds it) can
     * report that outcome instead, now or once it is known, from any thread; it must not block here.
     * Must not throw. The default completes the future at once, as ScheduledThreadPoolExecutor does.
     */
    default void commandRan(Runnable command, Outcome outcome) {
        outcome.completed();
    }

    /**
     * Waits in {@code blocker} until it is releasable: the wait of a {@code get()} on a delayed
     * task's future. The pool makes it a managed block on its own threads, so that a worker waiting
     * for a delayed task does not keep that task from running; the default just blocks.
     */
    default void block(ForkJoinPool.ManagedBlocker blocker) throws InterruptedException {
        while (!blocker.isReleasable() && !blocker.block()) {
            // block() returned false: not done yet
        }
    }
}
