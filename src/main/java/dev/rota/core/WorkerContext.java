package dev.rota.core;

/**
 * What a task learns about the thread it runs on: whether it is a pool worker, and the worker's
 * own operations that fork/join needs (push on its deque, help while waiting).
 */
public final class WorkerContext {
    private WorkerContext() {}

    private static Worker current() {
        return Thread.currentThread() instanceof WorkerThread wt ? wt.worker : null;
    }

    /** The engine of the worker running the calling thread, or null for any other thread. */
    public static Engine currentEngine() {
        Worker w = current();
        return w == null ? null : w.engine;
    }

    /** True when the calling thread is a worker of {@code engine}. */
    public static boolean isWorkerOf(Engine engine) {
        Worker w = current();
        return w != null && w.engine == engine;
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

    /** Pops {@code task} if it is the newest on the calling worker's deque; false otherwise. */
    public static boolean tryUnpush(Runnable task) {
        Worker w = current();
        return w != null && w.tryUnpush(task);
    }

    /**
     * True when the calling thread runs tasks for a pool: a worker, or a spare standing in for one. A
     * join there helps ({@link #helpOnce()}) rather than only waiting.
     */
    public static boolean runsTasks() {
        Thread t = Thread.currentThread();
        return t instanceof WorkerThread || t instanceof SpareThreads.SpareThread;
    }

    /** True when the calling thread is a worker or spare of a pool that is stopping (shutdownNow). */
    public static boolean poolStopping() {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.engine.isStopping();
        }
        return t instanceof SpareThreads.SpareThread st && st.spare.engine().isStopping();
    }

    /**
     * Runs one other task on the calling worker or spare, if there is one (a spare takes only its
     * task's group's); false when there was none or the caller runs no tasks.
     */
    public static boolean helpOnce() {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread wt) {
            return wt.worker.helpOnce();
        }
        if (t instanceof SpareThreads.SpareThread st) {
            return st.spare.engine().helpAsSpare(st.spare);
        }
        return false;
    }
}
