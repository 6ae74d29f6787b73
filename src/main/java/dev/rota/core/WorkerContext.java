package dev.rota.core;

import java.util.function.BooleanSupplier;

/**
 * What a task learns about the thread it runs on: whether it is a pool worker, and the worker's
 * own operations that fork/join needs (push on its deque, help while waiting).
 */
public final class WorkerContext {
    /**
     * Most tasks that one thread runs nested inside waiting ones ({@link #helpOnce()}). A join helps
     * with any task of its group, and that task may wait and help in turn: without a bound, tasks
     * that all wait for one slow task nest as deep as the queue is long, and a StackOverflowError
     * fails one of them or strikes between taking a task and running it, which loses the task.
     * Past the bound a join waits as a managed block, so a spare thread, with a stack of its own,
     * runs the core's tasks meanwhile (ForkJoinPool compensates in the same way when it cannot
     * help); only when no spare can stand in (the bound on spares) does it help on, deeper, up to
     * {@link #MAX_HELP_DEPTH_WITHOUT_SPARE}. A divide-and-conquer join mostly runs its own fork in
     * place, which does not count; only the tasks run while a stolen fork is awaited do, and 32 of
     * those nested (some 300 frames of the pool's own) is past what such a computation usually reaches.
     */
    static final int MAX_HELP_DEPTH = 32;

    /**
     * Most tasks nested on one thread when a join helps past {@link #MAX_HELP_DEPTH} because no spare
     * could stand in ({@link #helpPastBound}). Past it the join waits, and asks again for a spare
     * each time it wakes up to look: a wait that may last until another thread runs what it waits
     * for, rather than a StackOverflowError that would fail or lose tasks. One nested help costs some
     * 1.3 KB of stack once compiled (about 750 levels fill a default 1 MB thread stack), so 64 leave
     * most of the stack to the tasks' own frames.
     */
    static final int MAX_HELP_DEPTH_WITHOUT_SPARE = 64;

    /**
     * Most tasks nested on one thread when a join past {@link #MAX_HELP_DEPTH_WITHOUT_SPARE} runs the
     * very task it waits for ({@link #runJoinedTaskPastBound}), or a wait with no spare runs the task
     * it awaits ({@link #runAwaitedTask}). Such runs follow what the tasks wait for, not the length
     * of a queue, and end the waits they serve.
     */
    static final int MAX_JOINED_RUN_DEPTH = 2 * MAX_HELP_DEPTH_WITHOUT_SPARE;

    /**
     * Most helped tasks a join may run nested on one thread: {@link #MAX_HELP_DEPTH} for a join that
     * may still block with a spare ({@code bounded}), {@link #MAX_HELP_DEPTH_WITHOUT_SPARE} for one
     * that found none ({@link #helpPastBound}).
     */
    static int helpDepthLimit(boolean bounded) {
        return bounded ? MAX_HELP_DEPTH : MAX_HELP_DEPTH_WITHOUT_SPARE;
    }

    private WorkerContext() {}

    private static Worker current() {
        return Thread.currentThread() instanceof WorkerThread wt ? wt.worker : null;
    }

    /**
     * The engine the calling thread runs tasks for: a worker's, or that of the pool a spare stands in
     * for; null for any other thread.
     */
    public static Engine currentEngine() {
        Thread t = Thread.currentThread();
        return t instanceof WorkerThread wt ? wt.worker.engine
                : t instanceof SpareThreads.SpareThread st ? st.spare.engine() : null;
    }

    /** True when the calling thread runs tasks for {@code engine}: one of its workers, or a spare standing in for one. */
    public static boolean runsTasksFor(Engine engine) {
        return engine != null && currentEngine() == engine;
    }

    /**
     * The group whose task the calling thread runs (on a worker or a spare thread of any pool), or
     * null for a thread outside every pool.
     */
    public static Group currentGroup() {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.currentGroup();
        }
        if (t instanceof SpareThreads.SpareThread st) {
            return st.spare.group;
        }
        return null;
    }

    /**
     * Stops the calling worker's slice clock while its task waits (the wait is not CPU time of the
     * group); returns a token for {@link #resumeClock}. A no-op on any other thread.
     */
    public static boolean pauseClock() {
        Worker w = current();
        return w != null && w.pauseClock();
    }

    /** Restarts the clock stopped by {@link #pauseClock()}. */
    public static void resumeClock(boolean token) {
        Worker w = current();
        if (w != null) {
            w.resumeClock(token);
        }
    }

    /** Pushes {@code task} on the calling worker's deque; false when the caller is not a worker. */
    public static boolean pushLocal(Runnable task) {
        Worker w = current();
        if (w == null) {
            return false;
        }
        w.pushLocal(task);
        return true;
    }

    /**
     * Pops {@code task} if it is the newest on the calling worker's deque, or takes it back from the
     * calling spare's deferred forks, and runs it here; false, without running it, otherwise. The
     * run counts as a completed task of its group, as it would had a worker taken it from the
     * queue: while queued it counted in the group's {@code queuedTasks()}.
     */
    public static boolean runIfUnpushed(Runnable task) {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.runIfUnpushed(task);
        }
        if (t instanceof SpareThreads.SpareThread st && st.spare.tryUnpushDeferred(task)) {
            Group group = st.spare.group;
            task.run();
            st.spare.engine().countSpareTask(group);
            return true;
        }
        return false;
    }

    /**
     * Makes {@code task} the task the calling worker or spare runs now, and returns the one it
     * replaces, to be put back with a second call once {@code task} returns; a no-op returning null
     * on any other thread. For a future run inside another task (an ExecutorCompletionService's
     * wrapper of the pool's own future): a join inside it then helps on behalf of that future, and a
     * {@code cancel(true)} of it reaches it through {@link InterruptOnCancel} ({@link Engine#afterHelpedTask}).
     */
    public static Runnable swapRunningTask(Runnable task) {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.swapCurrentTask(task);
        }
        if (t instanceof SpareThreads.SpareThread st) {
            Runnable outer = st.spare.currentTask;
            st.spare.currentTask = task;
            return outer;
        }
        return null;
    }

    /** What {@link #enterFuture} returns on a thread that runs no tasks for a pool. */
    public static final Object NOT_A_POOL_THREAD = new Object();

    /**
     * On a worker or spare: publishes {@code future} as the future whose own code the thread runs
     * now, so that {@link #interruptForCancel} reaches the thread while it does and not while a task
     * nested inside it runs; returns what it replaces, for {@link #exitFuture}. Returns
     * {@link #NOT_A_POOL_THREAD} on any other thread, and publishes nothing.
     */
    public static Object enterFuture(InterruptOnCancel future) {
        RunningFuture slot = runningFutureSlot(Thread.currentThread());
        return slot == null ? NOT_A_POOL_THREAD : slot.switchTo(future);
    }

    /**
     * Ends what {@link #enterFuture} began ({@code outer}, what it returned), waiting while a
     * {@link #interruptForCancel} is under way, so that its interrupt lands before.
     */
    public static void exitFuture(Object outer) {
        RunningFuture slot = runningFutureSlot(Thread.currentThread());
        if (slot != null) {
            slot.switchTo((InterruptOnCancel) outer);
        }
    }

    /**
     * For a {@code cancel(true)} of {@code future}, which {@code thread} runs: on a worker or spare,
     * interrupts it if it runs the future's own code now (see {@link #enterFuture}) and the interrupt
     * the cancel owes is still to be taken ({@link RunningFuture}), and returns true; returns false,
     * interrupting nothing, for any other thread.
     */
    public static boolean interruptForCancel(InterruptOnCancel future, Thread thread) {
        RunningFuture slot = runningFutureSlot(thread);
        if (slot == null) {
            return false;
        }
        slot.interruptIf(future, thread);
        return true;
    }

    /** The slot of the future whose own code {@code thread} runs, for a worker or a spare; null for any other thread. */
    private static RunningFuture runningFutureSlot(Thread thread) {
        if (thread instanceof WorkerThread wt) {
            return wt.worker.runningFuture;
        }
        return thread instanceof SpareThreads.SpareThread st ? st.spare.runningFuture : null;
    }

    /**
     * Takes {@code task} back, without running it, if it is the newest on the calling worker's deque
     * of the running task's group, or the newest of the calling spare's deferred forks; false
     * otherwise, and on any other thread. Taken back, it no longer counts in its group's {@code queuedTasks()}.
     */
    public static boolean tryUnpush(Runnable task) {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.tryUnpush(task);
        }
        return t instanceof SpareThreads.SpareThread st && st.spare.tryUnpushNewestDeferred(task);
    }

    /**
     * The tasks on the calling worker's deque of the running task's group beyond the pool's parked
     * workers, or 0 (see {@code RotaTask.getSurplusQueuedTaskCount}); 0 on any other thread.
     */
    public static int surplusQueuedTasks() {
        Worker w = current();
        return w == null ? 0 : w.surplusQueuedTasks();
    }

    /** See {@code RotaTask.getQueuedTaskCount}: the calling worker's queued tasks of the running task's group. */
    public static int queuedLocalTasks() {
        Worker w = current();
        return w == null ? 0 : w.queuedLocalTasks();
    }

    /**
     * Runs {@code task}, a fork that its group refused on the calling spare (which has no deque):
     * in place, within a bounded nesting (see {@link SpareThreads}, S6).
     */
    public static void runRefusedFork(Runnable task) {
        if (Thread.currentThread() instanceof SpareThreads.SpareThread st) {
            st.spare.runRefusedFork(task);
        } else {
            task.run();
        }
    }

    /**
     * For a task that waits for {@code task}, queued in {@code target} (a group of the calling
     * thread's pool), where no spare can stand in ({@link Engine#blockWithSpare}): runs it on the
     * calling worker or spare, as one of target's tasks, if target may run on that thread's CPU and
     * {@code claim} then claims it (false when a run elsewhere, or a drain, has it). True when it
     * ran; false at once on any other thread, or for a group of another pool. Without it, a task
     * that every worker and spare waits for would wait in its queue for ever.
     *
     * <p>Up to {@link #MAX_JOINED_RUN_DEPTH} tasks nested on the thread, as for a join's run of the
     * task it joins: the waits that find no spare are typically those deep in joins' help, where
     * every thread of the pool runs helped tasks nested in one another and the innermost waits. With
     * the bound of the helps themselves ({@link #MAX_HELP_DEPTH}), that innermost waiter could not
     * run what it waits for either, and with every other thread waiting on what it holds the pool
     * would wait for ever.
     */
    public static boolean runAwaitedTask(Group target, Runnable task, BooleanSupplier claim) {
        return runAwaitedTask(target, task, claim, MAX_JOINED_RUN_DEPTH);
    }

    /**
     * True when the calling worker or spare may not run {@code target}'s tasks because target's mask
     * leaves out its CPU (a spare's: that of the worker it stands or last stood in for), so that
     * {@link #runAwaitedTask} refuses them for as long as the mask stays; false on any other thread.
     */
    public static boolean keptOffByMask(Group target) {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return !target.allows(wt.worker.index);
        }
        if (t instanceof SpareThreads.SpareThread st) {
            Worker near = st.spare.lastStoodFor;
            return near != null && !target.allows(near.index);
        }
        return false;
    }

    /**
     * As {@link #runAwaitedTask}, for a join of a fork of the waiter's own group that can help no
     * deeper and found no spare ({@link #helpPastBound} refused): runs the joined task itself,
     * wherever it waits in the queues, up to {@link #MAX_JOINED_RUN_DEPTH} tasks nested on this
     * thread. So the join follows what it waits for, as a ForkJoinPool join runs the task it awaits
     * from its own queue, rather than wait for ever on a task queued under the waiters that it
     * no longer helps with.
     */
    public static boolean runJoinedTaskPastBound(Group target, Runnable task, BooleanSupplier claim) {
        return runAwaitedTask(target, task, claim, MAX_JOINED_RUN_DEPTH);
    }

    private static boolean runAwaitedTask(Group target, Runnable task, BooleanSupplier claim, int maxDepth) {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.engine == target.engine && wt.worker.runAwaitedTask(target, task, claim, maxDepth);
        }
        if (t instanceof SpareThreads.SpareThread st) {
            Engine engine = st.spare.engine();
            return engine == target.engine && engine.runAwaitedTaskAsSpare(st.spare, target, task, claim, maxDepth);
        }
        return false;
    }

    /**
     * True when the calling thread runs tasks for a pool: a worker, or a spare standing in for one. A
     * join there helps ({@link #helpOnce()}) rather than only waiting.
     */
    public static boolean runsTasks() {
        Thread t = Thread.currentThread();
        return t instanceof WorkerThread || t instanceof SpareThreads.SpareThread;
    }

    /**
     * True when the calling thread is a worker or spare of a pool that is stopping, or {@code group}
     * (null: none) is: the interrupts of those shutdownNow calls are meant for every task the thread
     * runs, where other interrupts are meant for one task.
     */
    public static boolean poolOrGroupStopping(Group group) {
        return poolStopping() || (group != null && group.runState() >= Group.STOP);
    }

    /** True when the calling thread is a worker or spare of a pool that is stopping (shutdownNow). */
    public static boolean poolStopping() {
        Engine engine = currentEngine();
        return engine != null && engine.isStopping();
    }

    /**
     * Runs one other task on the calling worker or spare, if there is one (a spare takes only its
     * task's group's); false when there was none, the caller runs no tasks, or it already runs
     * {@link #MAX_HELP_DEPTH} helped tasks nested in one another.
     */
    public static boolean helpOnce() {
        return help(true);
    }

    /**
     * As {@link #helpOnce()}, past its bounds too ({@link #MAX_HELP_DEPTH}, and the quantum of a
     * slice while other groups wait): for a join that should block but found no spare to stand in
     * ({@link Engine#blockWithSpare}), where only this thread may run the task it waits for. False,
     * too, once the thread runs {@link #MAX_HELP_DEPTH_WITHOUT_SPARE} helped tasks nested in one another.
     */
    public static boolean helpPastBound() {
        return help(false);
    }

    private static boolean help(boolean bounded) {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.helpOnce(bounded);
        }
        if (t instanceof SpareThreads.SpareThread st) {
            return st.spare.engine().helpAsSpare(st.spare, bounded);
        }
        return false;
    }

    /**
     * True when the calling worker or spare, in a join that found nothing of its group to run, should
     * block with a spare standing in rather than poll: tasks of another group it may serve are
     * queued, which the task joined may be waiting for, and which only this worker may be there to
     * run ({@link Worker#otherGroupsWait}).
     */
    public static boolean otherGroupsWait() {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.otherGroupsWait();
        }
        return t instanceof SpareThreads.SpareThread st && st.spare.otherGroupsWait();
    }

    /**
     * True when the calling worker or spare may not help any deeper ({@link #MAX_HELP_DEPTH}) and its
     * pool is not stopping: a wait there is a managed block instead.
     */
    public static boolean helpsTooDeep() {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.helpsTooDeep();
        }
        return t instanceof SpareThreads.SpareThread st && st.spare.helpsTooDeep();
    }
}
