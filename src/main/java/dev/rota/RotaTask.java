package dev.rota;

import dev.rota.core.Engine;
import dev.rota.core.Group;
import dev.rota.core.WorkerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A recursive, result-bearing task for divide and conquer, as {@link java.util.concurrent.RecursiveTask}
 * is for {@link java.util.concurrent.ForkJoinPool}.
 *
 * {@snippet :
 * final class Sum extends RotaTask<Long> {
 *     final long[] a; final int lo, hi;
 *     Sum(long[] a, int lo, int hi) { this.a = a; this.lo = lo; this.hi = hi; }
 *     protected Long compute() {
 *         if (hi - lo <= 10_000) { long s = 0; for (int i = lo; i < hi; i++) s += a[i]; return s; }
 *         int mid = (lo + hi) >>> 1;
 *         Sum left = new Sum(a, lo, mid);
 *         left.fork();                                  // pushed on this worker's deque
 *         return new Sum(a, mid, hi).compute() + left.join();
 *     }
 * }
 * long total = pool.invoke(new Sum(array, 0, array.length));
 * }
 *
 * <p>{@link #fork()} from a pool worker pushes the task on that worker's own deque, where idle
 * workers steal it; from any other thread it submits the task to {@link RotaPool#commonPool()}.
 * {@link #join()} from a worker never sleeps while there is work it could do: it first runs the task
 * itself if it is still on top of its deque, then runs other tasks of its group (its own, then stolen
 * ones) until the task is done, and only then waits briefly before looking again; if tasks of other
 * groups that its worker may run are queued meanwhile, it waits as a
 * {@linkplain RotaPool#managedBlock managed block} instead, while a spare thread runs the core's tasks
 * (the task joined may be waiting for one of them, and no other worker may be there to run it).
 * Those tasks run inside the waiting one and may wait in turn; past 32 of them nested in one another
 * on a thread, the join waits as a managed block too, so that no chain of waits overflows the stack.
 * An exception thrown by {@link #compute()} is rethrown by {@code join()} and {@code invoke()} as it
 * was (same object, so same type and cause); {@code get()} wraps it in an {@link ExecutionException}.
 * A task runs at most once; it is not meant to be forked twice, and a second run (of a task submitted
 * or forked twice, say), even at the same time as the first, returns without calling {@code compute()}.
 *
 * <p>A task belongs to the {@link TaskGroup} it was submitted to (as itself, or with a result through
 * {@code submit(task, result)}, whose future completes with the task and reports its outcome as
 * {@code get()} does, with {@code result} for its value), a task given to
 * {@link RotaPool#schedule(Runnable, long, TimeUnit)} to the pool's default group, and a forked task
 * to the group of the task that forked it; its CPU time is charged to that group. A task of one group
 * that joins a task of another lends its group's tickets to the other until the join returns, and its
 * worker's core runs other work meanwhile (ticket transfer), also when the join began before the task
 * was submitted there; a join of a scheduled task lends nothing, as a wait for any delayed task.
 * Where no spare thread can stand in for the joiner (the pool's bound on spares), the joiner runs
 * the joined task itself if nobody has started it and its group may run on the joiner's CPU, as a
 * task of that group, charged to the joiner's; a timed {@code get} does not, and waits.
 *
 * @param <T> the result type
 */
public abstract class RotaTask<T> implements Future<T>, Runnable {
    /*
     * status: PENDING until done; then NORMAL, EXCEPTIONAL or CANCELLED (the first two with GIVEN
     * set for an outcome handed in from outside, see given below), written once with a CAS (cancel
     * and complete() race the run). result and failure are written before that CAS and read after a
     * volatile read of status that saw it (release/acquire through the volatile field).
     * waiters: set by a thread about to wait on this task's monitor, before it re-reads status;
     * completion writes status, then reads waiters: both volatile, so either the waiter sees the
     * status or the completer sees the waiter and notifies. An action given to whenDone is a waiter
     * that does not block: added under the monitor after the same announcement, and taken and run
     * by the completer that notifies (which takes the monitor after the one that added it, since it
     * saw the announcement, and the adder saw no completion).
     * started: claimed with a CAS by the one run() that calls compute(). A task may be run by two
     * threads at once (submitted twice, forked and then invoked): without the claim both would
     * compute, and the loser of the status CAS would still write result and failure after the
     * winner had published them, so join() could report an outcome other than the one status says.
     * With it, result and failure are written by one thread only, before the status CAS.
     * given: the outcome handed in by complete() or completeExceptionally(), which may be called
     * while compute() runs, so it has a field of its own: run() never writes it and completers never
     * write result or failure. Completers take this task's monitor, so that one at a time writes
     * given and then CASes status from PENDING to NORMAL or EXCEPTIONAL with the GIVEN bit set; a
     * completer that finds status no longer PENDING under the monitor writes nothing. The bit tells
     * readers which field holds the outcome. The hot path, run(), stays one CAS.
     * group and delayed (the binding): written by the thread that forks, submits or schedules the
     * task, delayed first, then group with a release store; a join reads group with an acquire load,
     * then delayed, so it sees the pair one binding wrote. A join may begin before the binding (the
     * task reached the joiner before it was submitted), so it reads the binding again at each turn of
     * its wait, and a wait begun as one within the joiner's group becomes a wait across groups once
     * the task is bound to another.
     */
    private static final int PENDING = 0;
    private static final int NORMAL = 1;
    private static final int EXCEPTIONAL = 2;
    private static final int CANCELLED = 3;
    /** Set with NORMAL or EXCEPTIONAL when {@link #given} holds the outcome: see the class comment. */
    private static final int GIVEN = 4;
    /** The outcome without {@link #GIVEN}: NORMAL, EXCEPTIONAL or CANCELLED. */
    private static final int OUTCOME = 3;
    /** Not a status: what {@code awaitDone} returns for an interrupted {@code get()}. */
    private static final int INTERRUPTED = -1;
    /** Not a status: what {@code awaitDone} returns for a timed {@code get} whose deadline passed. */
    private static final int TIMED_OUT = -2;

    /** Longest a worker sleeps in join before it looks for work again. */
    private static final long HELP_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final VarHandle STATUS;
    private static final VarHandle STARTED;
    private static final VarHandle GROUP;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATUS = lookup.findVarHandle(RotaTask.class, "status", int.class);
            STARTED = lookup.findVarHandle(RotaTask.class, "started", boolean.class);
            GROUP = lookup.findVarHandle(RotaTask.class, "group", Group.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** For subclasses: a new task, not yet forked, submitted or run. */
    protected RotaTask() {}

    private volatile int status;
    private volatile boolean waiters;
    /** Set by the run that calls compute(), the only one (see the comment above). */
    private volatile boolean started;
    /** Completions that notified waiters; under this task's monitor. For the jcstress tests. */
    int wakeups;
    /** Actions to run once this task is done ({@link #whenDone}); under this task's monitor, null when none. */
    private ArrayList<Runnable> doneActions;
    private T result;
    private Throwable failure;
    /** The value or the failure handed in by {@link #complete} or {@link #completeExceptionally}. */
    private Object given;
    /**
     * The group this task belongs to: set when a group accepts it (as itself, or inside the future
     * of {@code submit(task, result)}) or it is forked, before it is published to a queue (whose
     * release store makes it visible to the thread that runs it); for a task given to
     * {@code schedule}, once the pool's timer has accepted it (see {@link #bindDelayed}). A refused
     * submission leaves it as it was. Written with a release store, after {@link #delayed}; a join
     * reads it with an acquire load, again at each turn of its wait (see the comment above).
     */
    private Group group;
    /**
     * True when {@link #group} runs this task only once a delay has passed: a join from another group
     * then waits as a managed block but lends nothing, as a wait for a delayed task's future does.
     * Written just before {@link #group}.
     */
    private boolean delayed;
    /**
     * The pool thread that last forked this task onto its own queue; written by that thread before
     * the push and read by {@link #tryUnfork()}, which compares it with the calling thread, so only
     * that thread's own write decides a match. Cleared when a group accepts the task as a submission.
     */
    private Thread forker;

    /** The computation performed by this task. */
    protected abstract T compute();

    // ---- fork / join ------------------------------------------------------------------------

    /**
     * Arranges to run this task asynchronously: on the calling worker's deque, or in the common
     * pool when called from another thread. Returns this task. A fork is part of a task already
     * accepted, so it is never refused, as {@code ForkJoinPool} never refuses one: a spare thread
     * (standing in for a blocked worker) has no deque and offers the fork to its group, and when
     * the group refuses it (shut down, or its queue full) the fork runs at once, in place; past 32
     * such runs nested in one another (a chain of forks, each forking the next), it runs once
     * those have returned, so that the chain does not overflow the stack.
     */
    public final RotaTask<T> fork() {
        Group current = WorkerContext.currentGroup();
        if (current != null) {
            bindGroup(current);
            forker = Thread.currentThread();             // before the push publishes it: see tryUnfork
            if (!WorkerContext.pushLocal(this) && current.offer(this) != Group.ACCEPTED) {
                WorkerContext.runRefusedFork(this);      // refused: runs in place (see above)
            }
        } else {
            RotaPool.commonPool().execute(this);
        }
        return this;
    }

    /**
     * Takes this task back if it is still the newest task the calling thread has forked and nobody
     * has taken it since, as {@code ForkJoinTask.tryUnfork} does: it is then in no queue, and runs
     * only if run again (by {@link #invoke()}, say, or a {@link #compute()} of the caller's own).
     * False, changing nothing, otherwise: the task was taken by another thread, other forks were
     * pushed after it, or the calling thread runs no pool's tasks.
     */
    public final boolean tryUnfork() {
        // Only the forking thread's own fork: a worker's deque also holds tasks it moved out of its
        // inbox, submissions that nobody else may take out of the queues without running them.
        return forker == Thread.currentThread() && WorkerContext.tryUnpush(this);
    }

    /**
     * An estimate of how many more tasks wait on the calling worker's own queue than its pool has
     * idle workers to steal them, as {@code ForkJoinTask.getSurplusQueuedTaskCount} gives: the tasks
     * on the worker's queue of the running task's group (its forks not yet run or stolen, and any
     * submissions it has moved there from its inbox) less the pool's parked workers, or 0 when there
     * are more of those. A rough figure: the parked workers are counted whichever groups they may
     * serve. A divide-and-conquer task can split while this is small and compute directly once it is
     * a few tasks. 0 on any thread that is not a pool's worker (a spare thread has no queue of its
     * own).
     */
    public static int getSurplusQueuedTaskCount() {
        return WorkerContext.surplusQueuedTasks();
    }

    /**
     * An estimate of the tasks waiting on the calling worker's own queue of the running task's group:
     * its forks not yet run or stolen, and any submissions it has moved there from its inbox. As
     * {@code ForkJoinTask.getQueuedTaskCount}; 0 on any thread that is not a pool's worker (a spare
     * thread has no queue of its own, and a thread outside the pools has none to look at).
     */
    public static int getQueuedTaskCount() {
        return WorkerContext.queuedLocalTasks();
    }

    /**
     * A task that runs {@code runnable} and returns null, as {@code ForkJoinTask.adapt(Runnable)}:
     * what it throws is the task's failure.
     *
     * @throws NullPointerException if {@code runnable} is null
     */
    public static RotaTask<?> adapt(Runnable runnable) {
        return adapt(runnable, null);
    }

    /**
     * A task that runs {@code runnable} and returns {@code result}, as
     * {@code ForkJoinTask.adapt(Runnable, T)}.
     *
     * @throws NullPointerException if {@code runnable} is null
     */
    public static <T> RotaTask<T> adapt(Runnable runnable, T result) {
        Objects.requireNonNull(runnable, "runnable");
        return new RotaTask<>() {
            @Override
            protected T compute() {
                runnable.run();
                return result;
            }
        };
    }

    /**
     * A task that returns what {@code callable} returns, as {@code ForkJoinTask.adapt(Callable)};
     * what it throws is the task's failure as it is, a checked exception too: {@code get()} reports
     * it as the cause of an {@link ExecutionException}, and {@code join()} rethrows it unwrapped,
     * where {@code ForkJoinTask}'s join wraps a checked one in a {@code RuntimeException}.
     *
     * @throws NullPointerException if {@code callable} is null
     */
    public static <T> RotaTask<T> adapt(Callable<? extends T> callable) {
        Objects.requireNonNull(callable, "callable");
        return new RotaTask<>() {
            @Override
            protected T compute() {
                try {
                    return callable.call();
                } catch (Exception e) {
                    throw RotaTask.<RuntimeException>rethrow(e); // as it is: run() records it
                }
            }
        };
    }

    /** Called when a group accepts this task, or one of its tasks forks it. */
    final void bindGroup(Group target) {
        delayed = false;
        GROUP.setRelease(this, target);                  // after delayed: pairs with the acquire in awaitDone
    }

    /**
     * Called once the pool's timer has accepted this task, which {@code target} runs when it is due.
     * After the acceptance rather than before: the timer and the pool's queues hand the task to no
     * code before it runs, so a join that could miss the binding learned of the task from its run
     * and finds it running; and a refused task stays as it was.
     */
    final void bindDelayed(Group target) {
        delayed = true;
        GROUP.setRelease(this, target);                  // after delayed: pairs with the acquire in awaitDone
    }

    /**
     * Binds {@code task} to {@code target} when it is a RotaTask, or the future that
     * {@code submit(task, result)} made of one: the task runs inside that future, in that group, and
     * a join of it waits as for a task submitted as itself. Called by {@link Group#offer} once
     * {@code target} has accepted the task, before it is published.
     */
    static void bindSubmitted(Runnable task, Group target) {
        if (task instanceof RotaTask<?> forked) {
            forked.forker = null;                        // a submission now, taken back by nobody
            forked.bindGroup(target);
        } else if (task instanceof GroupFuture<?> future && future.rotaTask() != null) {
            future.rotaTask().bindGroup(target);
        }
    }

    /** Waits for this task (helping meanwhile on a worker) and returns its result. */
    public final T join() {
        int s = status;
        if (s == PENDING) {
            s = awaitDone(false, false, 0L);
        }
        return reportForJoin(s);
    }

    /** Runs this task in the calling thread if it has not run yet, waits if needed, returns its result. */
    public final T invoke() {
        run();
        return join();
    }

    /**
     * Waits for this task as {@link #join()} does, helping meanwhile on a worker, but neither returns
     * its result nor throws its exception or cancellation: read them afterwards through
     * {@link #isCompletedNormally()}, {@link #getException()} or {@link #isCancelled()}, as with
     * {@code ForkJoinTask.quietlyJoin()}.
     */
    public final void quietlyJoin() {
        if (status == PENDING) {
            awaitDone(false, false, 0L);
        }
    }

    /**
     * Waits at most {@code timeout} for this task as {@link #get(long, TimeUnit)} does, helping in the
     * same way on a pool thread, but reports no outcome: true when the task is done (normally,
     * exceptionally or cancelled) by then, false when the time ran out first. As
     * {@code ForkJoinTask.quietlyJoin(long, TimeUnit)}; a timeout of zero or less only looks.
     *
     * @throws InterruptedException if the calling thread is interrupted before the task is done, or
     *         (on a pool thread) the pool stops meanwhile; the interrupt status is then cleared
     */
    public final boolean quietlyJoin(long timeout, TimeUnit unit) throws InterruptedException {
        int s = awaitTimed(timeout, unit, true);
        if (s == INTERRUPTED) {
            throw new InterruptedException("interrupted while waiting for " + this);
        }
        return s != TIMED_OUT;
    }

    /**
     * As {@link #quietlyJoin(long, TimeUnit)}, but an interrupt does not end the wait: it is kept, and
     * set again on the calling thread before this returns. True when the task is done by the
     * timeout. As {@code ForkJoinTask.quietlyJoinUninterruptibly(long, TimeUnit)}.
     */
    public final boolean quietlyJoinUninterruptibly(long timeout, TimeUnit unit) {
        return awaitTimed(timeout, unit, false) != TIMED_OUT;
    }

    /**
     * The status once this task is done, or {@link #TIMED_OUT} after {@code timeout}, or (when
     * {@code interruptible}) {@link #INTERRUPTED} with the flag cleared. No time left only looks: a
     * deadline of now + nanos would overflow for a huge negative timeout. An interrupt is looked at
     * before the time, as {@code FutureTask.get} does.
     */
    private int awaitTimed(long timeout, TimeUnit unit, boolean interruptible) {
        Objects.requireNonNull(unit, "unit");
        long nanos = unit.toNanos(timeout);
        int s = status;
        if (s != PENDING) {
            return s;
        }
        if (nanos > 0) {
            return awaitDone(interruptible, true, System.nanoTime() + nanos);
        }
        return interruptible && Thread.interrupted() ? INTERRUPTED : TIMED_OUT;
    }

    /** Runs this task in the calling thread if it has not run yet, then {@link #quietlyJoin()}s it. */
    public final void quietlyInvoke() {
        run();
        quietlyJoin();
    }

    /**
     * True when the calling thread runs tasks for a {@link RotaPool} (a worker, or a spare thread
     * standing in for one), where {@link #fork()} pushes on the pool's own queues and {@link #join()}
     * helps; false on any other thread, where a fork goes to {@link RotaPool#commonPool()}. As
     * {@code ForkJoinTask.inForkJoinPool()}.
     */
    public static boolean inPool() {
        return WorkerContext.runsTasks();
    }

    /**
     * The pool whose tasks the calling thread runs (as a worker, or a spare standing in for one), or
     * null on any other thread. As {@code ForkJoinTask.getPool()}.
     */
    public static RotaPool getPool() {
        Engine engine = WorkerContext.currentEngine();
        return engine == null ? null : (RotaPool) engine.owner();
    }

    /** Forks all but the first, runs the first here, then joins all; rethrows the first failure met. */
    public static void invokeAll(RotaTask<?>... tasks) {
        Objects.requireNonNull(tasks, "tasks");
        for (int i = 0; i < tasks.length; i++) {
            Objects.requireNonNull(tasks[i], "tasks[" + i + "]");
        }
        for (int i = tasks.length - 1; i >= 1; i--) {
            tasks[i].fork();
        }
        Throwable first = null;
        for (int i = 0; i < tasks.length; i++) {
            try {
                if (i == 0) {
                    tasks[0].invoke();
                } else {
                    tasks[i].join();
                }
            } catch (Throwable failure) {                // unchecked, or checked thrown sneakily by compute()
                if (first == null) {
                    first = failure;
                }
            }
        }
        if (first != null) {
            throw RotaTask.<RuntimeException>rethrow(first);
        }
    }

    /**
     * As {@link #invokeAll(RotaTask[])}, for a collection: forks all but the first, runs the first
     * here, joins all in the collection's order and rethrows the first failure met. Returns
     * {@code tasks}, as {@code ForkJoinTask.invokeAll(Collection)} does.
     *
     * @throws NullPointerException if {@code tasks} or one of them is null (the message gives its index)
     */
    public static <C extends Collection<? extends RotaTask<?>>> C invokeAll(C tasks) {
        Objects.requireNonNull(tasks, "tasks");
        invokeAll(tasks.toArray(new RotaTask<?>[0]));
        return tasks;
    }

    /**
     * Throws {@code failure} as it is, a checked exception too: compute() declares none, so a checked
     * one reached it only through a sneaky throw, and join() rethrows it the same way, as
     * ForkJoinTask does. The declared return type lets a caller write {@code throw rethrow(t)}.
     */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E rethrow(Throwable failure) throws E {
        throw (E) failure;
    }

    /**
     * Runs {@link #compute()} once, unless already done or cancelled, or started by another run
     * (this one then returns at once, leaving the task to that run). Called by the pool.
     */
    @Override
    public final void run() {
        if (status != PENDING || !STARTED.compareAndSet(this, false, true)) {
            return;
        }
        T value;
        try {
            value = compute();
        } catch (Throwable t) {
            finishRun(EXCEPTIONAL, null, t);
            return;
        }
        finishRun(NORMAL, value, null);
    }

    /**
     * Only run() calls this, once; a cancel or a {@link #complete} that won meanwhile keeps its
     * outcome, and this one is dropped.
     */
    private void finishRun(int outcome, T value, Throwable thrown) {
        result = value;
        failure = thrown;
        if (STATUS.compareAndSet(this, PENDING, outcome)) {
            wakeWaiters();
        }
    }

    // ---- completion from outside compute() ----------------------------------------------------

    /**
     * Completes this task normally with {@code value}, unless it is done already, as
     * {@code ForkJoinTask.complete} does: its joiners return {@code value}, and {@code compute()}
     * does not run if it has not started (a copy of the task still queued is skipped when a worker
     * reaches it). A {@code compute()} under way goes on, and its outcome is dropped. Returns true
     * when this call completed the task; false, changing nothing, when it was done already
     * (completed, completed by another call, or cancelled). Completers take this task's monitor
     * for a moment, one at a time; code that holds that monitor for long delays them.
     */
    public final boolean complete(T value) {
        return completeFromOutside(NORMAL, value);
    }

    /**
     * Completes this task with {@code failure}, unless it is done already: {@code join()} and
     * {@code invoke()} then throw {@code failure} itself, as they throw what {@code compute()}
     * throws (a checked exception too, where {@code ForkJoinTask} wraps it in a
     * {@code RuntimeException}), and {@code get()} throws an {@link ExecutionException} with it as
     * the cause. As {@link #complete} otherwise.
     *
     * @throws NullPointerException if {@code failure} is null
     */
    public final boolean completeExceptionally(Throwable failure) {
        Objects.requireNonNull(failure, "failure");
        return completeFromOutside(EXCEPTIONAL, failure);
    }

    /** {@link #complete}{@code (null)}: completes this task normally, without a result, unless it is done. */
    public final void quietlyComplete() {
        completeFromOutside(NORMAL, null);
    }

    /** See the class comment on {@code given}: one completer at a time, under this task's monitor. */
    private boolean completeFromOutside(int outcome, Object value) {
        synchronized (this) {
            if (status != PENDING) {
                return false;                            // done: given is never written after that
            }
            given = value;
            if (!STATUS.compareAndSet(this, PENDING, outcome | GIVEN)) {
                return false;                            // run() or cancel won; given stays unread
            }
        }
        wakeWaiters();                                   // outside the monitor: it runs done actions
        return true;
    }

    /** The result a status of NORMAL (with or without GIVEN) reports. */
    @SuppressWarnings("unchecked")
    private T resultFor(int s) {
        return (s & GIVEN) != 0 ? (T) given : result;
    }

    /** The failure a status of EXCEPTIONAL (with or without GIVEN) reports. */
    private Throwable failureFor(int s) {
        return (s & GIVEN) != 0 ? (Throwable) given : failure;
    }

    /**
     * Called holding this task's monitor before waiting on it: announces a waiter, then re-reads
     * the status. True when the caller must wait (a completion after this point will notify).
     */
    boolean prepareToWait() {
        waiters = true;                                  // volatile write, then volatile read: see class comment
        return status == PENDING;
    }

    private void wakeWaiters() {
        if (waiters) {
            ArrayList<Runnable> actions;
            synchronized (this) {
                wakeups++;
                notifyAll();
                actions = doneActions;
                doneActions = null;
            }
            if (actions != null) {
                actions.forEach(Runnable::run);          // outside the monitor: they complete other futures
            }
        }
    }

    /**
     * Runs {@code action} once this task is done: at once, in the calling thread, if it is done
     * already, else in the thread that completes it (or cancels it), right after the completion. For
     * the future of {@code submit(task, result)}, which completes with this task and must not block
     * its thread meanwhile. {@code action} must be short and must not throw.
     */
    final void whenDone(Runnable action) {
        synchronized (this) {
            if (prepareToWait()) {                       // a completion after this runs the action
                if (doneActions == null) {
                    doneActions = new ArrayList<>(1);
                }
                doneActions.add(action);
                return;
            }
        }
        action.run();
    }

    /**
     * Waiting on a task of another group: lend this group's tickets to it and let the core run
     * other work. On a worker or a spare otherwise: run what can be run until done, and once the
     * thread runs {@link WorkerContext#MAX_HELP_DEPTH} helped tasks nested in one another, block
     * instead while a spare runs them (or, with no spare to be had, help on, up to a bound of its
     * own, and past that run this task itself if nobody has started it). Elsewhere: wait.
     * Which of these applies is decided again at each turn, from the task's binding then: a join
     * begun before the task was submitted to another group waits for that group once it has been.
     * With {@code timed}, gives up at {@code deadline} (a {@link System#nanoTime} reading) and
     * returns {@link #TIMED_OUT}.
     *
     * <p>Interrupts: with {@code interruptible} (a {@code get}) an interrupt ends the wait, and
     * this returns {@link #INTERRUPTED} with the flag cleared, as an InterruptedException leaves it;
     * on a pool thread so does the pool's stop. {@code join()} does not answer interrupts: it takes
     * the flag down while it waits (so that a wait does not throw at once, again and again) and sets
     * it again before it returns. Tasks run while helping do not see the waiter's interrupt, and an
     * interrupt that arrives while one runs is that task's (a cancel(true) of it), unless it is the
     * pool's or the waiter's group's shutdownNow, which the waiter then sees.
     */
    private int awaitDone(boolean interruptible, boolean timed, long deadline) {
        boolean interrupted = false;                     // join only: an interrupt to set again at the end
        boolean helps = WorkerContext.runsTasks();
        int s;
        try {
            // Still on this thread's deque: run it here. Only this thread's fork can be there, bound
            // to the thread's own group when it was forked, before this wait began.
            if (helps && !TicketTransfer.waitsAcrossGroups((Group) GROUP.getAcquire(this))) {
                WorkerContext.runIfUnpushed(this);
            }
            while ((s = status) == PENDING) {
                if (Thread.interrupted()) {              // before the deadline, as FutureTask's order
                    if (interruptible) {
                        return INTERRUPTED;
                    }
                    interrupted = true;
                }
                long left = timed ? deadline - System.nanoTime() : 0L;
                if (timed && left <= 0) {
                    return TIMED_OUT;
                }
                if (interruptible && WorkerContext.poolStopping()) {
                    return INTERRUPTED;
                }
                Group owner = (Group) GROUP.getAcquire(this); // then delayed: the pair one binding wrote
                if (TicketTransfer.waitsAcrossGroups(owner)) {
                    // A delayed task: block, but lend nothing. A timed wait never runs the task in place:
                    // the run could keep it past its deadline, and it ends by itself.
                    try {
                        TicketTransfer.await(delayed ? null : owner, blocker(timed, deadline), timed ? null : this,
                                this::unstarted, deadlineNanos -> blocker(true, deadlineNanos));
                    } catch (InterruptedException e) {
                        if (interruptible) {
                            return INTERRUPTED;
                        }
                        interrupted = true;
                    }
                    continue;
                }
                if (helps && WorkerContext.helpOnce()) {
                    continue;
                }
                // Too deep to help, a slice whose quantum is used while other groups' tasks wait, or
                // nothing of this group to run while they wait for this worker (the task joined may
                // wait for one of them): block, and a spare runs the core's tasks meanwhile. With no
                // spare to stand in, help on past those bounds rather than wait for nobody, and once
                // too deep for that, run this task itself if nobody has started it, wherever it is queued.
                boolean tooDeep = helps && WorkerContext.helpsTooDeep();
                if (tooDeep || (helps && WorkerContext.otherGroupsWait())) {
                    boolean blocked;
                    try {
                        blocked = Engine.blockWithSpare(blocker(timed, deadline));
                    } catch (InterruptedException e) {
                        if (interruptible) {
                            return INTERRUPTED;
                        }
                        interrupted = true;
                        continue;
                    }
                    if (blocked || WorkerContext.helpPastBound()
                            || (!timed && owner != null && !delayed   // a scheduled task runs when due, never before
                                && WorkerContext.runJoinedTaskPastBound(owner, this, this::unstarted))) {
                        continue;
                    }
                }
                long sleep = helps ? (timed ? Math.min(left, HELP_RECHECK_NANOS) : HELP_RECHECK_NANOS) : left;
                // The sleep is no CPU time of the group: a worker's slice clock stops while it lasts (W4).
                boolean clockRan = WorkerContext.pauseClock();
                boolean sleepInterrupted;
                try {
                    sleepInterrupted = waitForSignal(sleep);
                } finally {
                    WorkerContext.resumeClock(clockRan);
                }
                if (sleepInterrupted) {
                    if (interruptible) {
                        return INTERRUPTED;
                    }
                    interrupted = true;
                }
            }
            return s;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A managed blocker that waits for this task, with {@code timed} until {@code deadline} at most;
     * its block() throws when the wait is interrupted.
     */
    private ForkJoinPool.ManagedBlocker blocker(boolean timed, long deadline) {
        return new ForkJoinPool.ManagedBlocker() {
            @Override
            public boolean block() throws InterruptedException {
                long left = timed ? deadline - System.nanoTime() : 0L;
                if (timed && left <= 0) {
                    return true;
                }
                if (waitForSignal(left)) {
                    throw new InterruptedException();
                }
                return status != PENDING || timed;
            }

            @Override
            public boolean isReleasable() {
                return status != PENDING || (timed && deadline - System.nanoTime() <= 0);
            }
        };
    }

    /**
     * Waits on this task's monitor for up to {@code nanos} (0: until notified), unless it is done.
     * True when the wait was interrupted; the flag is then cleared, as an InterruptedException leaves it.
     */
    private boolean waitForSignal(long nanos) {
        synchronized (this) {
            if (prepareToWait()) {
                try {
                    if (nanos == 0) {
                        wait();
                    } else {
                        TimeUnit.NANOSECONDS.timedWait(this, nanos);
                    }
                } catch (InterruptedException e) {
                    return true;
                }
            }
        }
        return false;
    }

    private T reportForJoin(int s) {
        int outcome = s & OUTCOME;
        if (outcome == NORMAL) {
            return resultFor(s);
        }
        if (outcome == CANCELLED) {
            throw new CancellationException("task was cancelled");
        }
        throw RotaTask.<RuntimeException>rethrow(failureFor(s));
    }

    // ---- Future -------------------------------------------------------------------------------

    /**
     * Cancels this task unless it has completed, as {@code ForkJoinTask.cancel} does: one not yet run
     * never runs, and one whose {@code compute()} is running is cancelled too, its joiners answered at
     * once with a {@link CancellationException} while that run goes on and its outcome is dropped.
     * Returns whether the task is now cancelled. {@code mayInterruptIfRunning} has no effect, as in
     * ForkJoinTask.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (STATUS.compareAndSet(this, PENDING, CANCELLED)) {
            wakeWaiters();
        }
        return status == CANCELLED;
    }

    /**
     * True while no run has started this task and it is not done: a waiter with no spare to stand
     * in may run it ({@link TicketTransfer}); its run() claims it, or returns at once if another
     * run or a drain claimed it first.
     */
    private boolean unstarted() {
        return status == PENDING && !started;
    }

    /**
     * For a shutdownNow that drained this task from a queue: cancels it if it never started, so that
     * no joiner waits for a run that will not come, and says whether it did. The run is claimed first,
     * as run() claims it, so that no run computes the task afterwards and a task returned as never
     * started never starts. False for a task done already (cancelled or completed by the user, or
     * run through another call, as an invoke() of a task also submitted) or started by a run
     * elsewhere, which completes it.
     */
    final boolean cancelUnstarted() {
        if (status != PENDING || !STARTED.compareAndSet(this, false, true)) {
            return false;
        }
        if (STATUS.compareAndSet(this, PENDING, CANCELLED)) {
            wakeWaiters();
            return true;
        }
        return false;                                    // the user's cancel came first
    }

    @Override
    public final boolean isDone() {
        return status != PENDING;
    }

    @Override
    public final boolean isCancelled() {
        return status == CANCELLED;
    }

    public final boolean isCompletedNormally() {
        return (status & OUTCOME) == NORMAL;
    }

    public final boolean isCompletedAbnormally() {
        int outcome = status & OUTCOME;
        return outcome == EXCEPTIONAL || outcome == CANCELLED;
    }

    /**
     * The exception thrown by compute() or given to {@link #completeExceptionally}, a
     * {@link CancellationException} if cancelled, or null.
     */
    public final Throwable getException() {
        int s = status;
        int outcome = s & OUTCOME;
        return outcome == EXCEPTIONAL ? failureFor(s) : outcome == CANCELLED ? new CancellationException() : null;
    }

    /**
     * Waits for this task and returns its result. On a pool's worker or spare it helps while it
     * waits, as {@link #join()} does, but an interrupt (or the pool's stop) ends the wait with an
     * {@link InterruptedException}.
     */
    @Override
    public final T get() throws InterruptedException, ExecutionException {
        int s = status;
        if (s == PENDING) {
            s = awaitDone(true, false, 0L);
            if (s == INTERRUPTED) {
                throw new InterruptedException("interrupted while waiting for " + this);
            }
        }
        return reportForGet(s);
    }

    /**
     * As {@link #get()}, helping on a pool thread in the same way, but waits at most
     * {@code timeout}; a timeout of zero or less only looks.
     */
    @Override
    public final T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        int s = awaitTimed(timeout, unit, true);
        if (s == INTERRUPTED) {
            throw new InterruptedException("interrupted while waiting for " + this);
        }
        if (s == TIMED_OUT) {
            throw new TimeoutException("not done after " + timeout + " " + unit + ": " + this);
        }
        return reportForGet(s);
    }

    private T reportForGet(int s) throws ExecutionException {
        int outcome = s & OUTCOME;
        if (outcome == NORMAL) {
            return resultFor(s);
        }
        if (outcome == CANCELLED) {
            throw new CancellationException("task was cancelled");
        }
        throw new ExecutionException(failureFor(s));
    }

    @Override
    public String toString() {
        int s = status;
        String state = switch (s & OUTCOME) {
            case PENDING -> "pending";
            case NORMAL -> "completed normally";
            case EXCEPTIONAL -> "completed exceptionally: " + failureFor(s);
            default -> "cancelled";
        };
        return super.toString() + "[" + state + "]";
    }
}
