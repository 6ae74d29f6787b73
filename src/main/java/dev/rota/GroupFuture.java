package dev.rota;

import dev.rota.core.Group;
import dev.rota.core.InterruptOnCancel;
import dev.rota.core.WorkerContext;
import dev.rota.schedule.BlockingFutureTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * The future of a task submitted to a {@link TaskGroup}. A task running in the pool that waits on
 * it lends its own group's tickets to this task's group until the wait ends, and waits as a managed
 * block (see {@link TicketTransfer}); any other thread waits as on a {@link FutureTask}.
 *
 * <p>The future of {@code submit(task, result)} with a {@link RotaTask} completes with that task and
 * reports its outcome, as the task itself does: {@code result} when compute() returned, what
 * compute() threw as the cause of an {@code ExecutionException}, cancelled when the task was
 * cancelled. RotaTask.run() keeps the outcome to itself, and returns at once when another run holds
 * the task (a task also invoked, or submitted twice): completed as a plain Runnable, this future
 * would report success whatever compute() did, and before the task when another run held it. Its
 * run therefore runs the task and leaves the completion to the task ({@link RotaTask#whenDone},
 * registered as the future is made), rather than waiting for a run elsewhere: that run may be the
 * caller of this one, further down the same thread's stack (a join that helps), and a wait there
 * would never end. So the future completes as the task does, also when a {@code cancel} or
 * {@code complete} of the task ends it while a compute() goes on (in this future's own run or
 * elsewhere), whose outcome the task then drops.
 */
final class GroupFuture<V> extends BlockingFutureTask<V> {
    /**
     * {@link #claim}: not (yet) known to be queued as itself in its group. Such a future is never
     * run by its waiter: it may be inside a wrapper that its queue holds (an
     * ExecutorCompletionService's), which a drain would hand back, or dropped by a rejection policy.
     */
    private static final int UNQUEUED = 0;
    /** {@link #claim}: accepted as itself into its own group's queue; neither a waiter nor a drain has claimed it. */
    private static final int OPEN = 1;
    /** {@link #claim}: a waiter runs this future outside its queue (it runs once: FutureTask's own state sees to that). */
    private static final int RUN_BY_WAITER = 2;
    /** {@link #claim}: a shutdownNow drained this future from its queue and hands it back. */
    private static final int DRAINED = 3;
    private static final VarHandle CLAIM;
    private static final VarHandle RUNNER;
    /** {@link #runner} while a cancel(true) interrupts a thread outside the pool that runs this future. */
    private static final Object INTERRUPTING = new Object();

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CLAIM = lookup.findVarHandle(GroupFuture.class, "claim", int.class);
            RUNNER = lookup.findVarHandle(GroupFuture.class, "runner", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Group group;
    /**
     * Who took this future, still in its queue, for themselves: a waiter that runs it there and then
     * ({@link #claimForWaiter}), or a drain that hands it back ({@link #settleDrained}); one CAS from
     * {@link #OPEN} (or {@link #UNQUEUED}, for a drain that comes before {@link #acceptedAsItself})
     * decides, so a future run by its waiter is never handed back as never started, and one handed
     * back is not run by a waiter. For a future of a RotaTask only {@link #OPEN} is read: the task's
     * own started claim decides the rest.
     */
    private volatile int claim;
    /**
     * The thread whose {@link #run()} holds this future now (one at a time), null when none,
     * {@link #INTERRUPTING} while a cancel(true) interrupts a thread outside the pool (the run's end
     * waits it out, as FutureTask's does).
     */
    private volatile Object runner;
    /** The RotaTask this future runs ({@code submit(task, result)}), bound to its group on submission; else null. */
    private final RotaTask<?> rotaTask;
    /** What this future of a RotaTask gives when the task completes normally ({@code submit(task, result)}). */
    private final V result;

    /** @throws NullPointerException naming {@code task} if {@code callable} is null (an {@code invokeAll} element) */
    GroupFuture(Callable<V> callable, Group group) {
        super(Objects.requireNonNull(callable, "task"));
        this.group = group;
        this.rotaTask = null;
        this.result = null;
    }

    GroupFuture(Runnable runnable, V result, Group group) {
        super(runnable, result);
        this.group = group;
        this.rotaTask = runnable instanceof RotaTask<?> task ? task : null;
        this.result = result;
        if (rotaTask != null) {
            // Completes with the task, however it is done: by this future's own run, by a run
            // elsewhere, or by a cancel or complete() of the task while its compute() goes on. The
            // action is published to the completing thread through the task's monitor.
            rotaTask.whenDone(() -> settleWith(result));
        }
    }

    /**
     * Runs as FutureTask's, as the task its thread runs now: when a wrapper runs this future (an
     * ExecutorCompletionService's, as {@code invokeAny} and {@code invokeAll} of a completion
     * service use), a join inside it helps on behalf of this future, so that a {@code cancel(true)}
     * of it that comes while the join runs another task is set again for it afterwards.
     *
     * <p>One run at a time holds {@link #runner} (a CAS from null), and only that one runs
     * FutureTask's run: its own runner, published after this one and cleared before, is then always
     * free for it. A second run while one holds it returns at once, as FutureTask's does, touching
     * nothing; the pool makes such runs, as when a waiter runs this future and a worker reaches its
     * queued copy.
     */
    @Override
    public void run() {
        Runnable outer = WorkerContext.swapRunningTask(this);
        try {
            Thread me = Thread.currentThread();
            if (!RUNNER.compareAndSet(this, null, me)) {
                return;                                  // another run holds this future
            }
            Object outerFuture;
            try {
                outerFuture = WorkerContext.enterFuture(this); // before FutureTask's state check: see interruptRunner
            } catch (Throwable failure) {
                RUNNER.setVolatile(this, null);
                throw failure;
            }
            boolean interruptedOnEntry = me.isInterrupted();
            try {
                super.run();
            } finally {
                endRun(me, outerFuture, interruptedOnEntry);
            }
        } finally {
            WorkerContext.swapRunningTask(outer);
        }
    }

    /**
     * Ends a run that held {@link #runner}: waits out a cancel(true) under way, so that its interrupt
     * lands before the run returns, and clears the runner. On a worker or a spare, puts back the
     * future the thread ran before ({@code outerFuture}); when that one was cancelled with an
     * interrupt while this run was nested in its code (a rejection policy that ran this one in
     * place, say), the interrupt, which its cancel could not send meanwhile, is taken and set for it
     * now ({@link InterruptOnCancel#takeOwedInterrupt}).
     *
     * <p>An interrupt that a cancel(true) of this future sent was meant for this future's code, which
     * may have returned with it still set; on a worker or a spare it is cleared here, so that it does
     * not reach the code this run returns to: the task that ran this future in place, or the duty
     * cycle. Not where the thread was interrupted as the run began (that interrupt is the outer
     * code's), nor once the pool or the outer code's group (the thread's current group, as at the
     * run's start: this run changes it for nobody) is stopping, whose shutdownNow interrupts are
     * meant for every task the thread runs.
     */
    private void endRun(Thread me, Object outerFuture, boolean interruptedOnEntry) {
        if (outerFuture == WorkerContext.NOT_A_POOL_THREAD) {
            while (!RUNNER.compareAndSet(this, me, null)) {
                Thread.onSpinWait();                     // a cancel(true) interrupts this thread: let it land first
            }
            return;
        }
        try {
            WorkerContext.exitFuture(outerFuture);       // waits out a cancel(true)'s interrupt likewise
        } finally {
            RUNNER.setVolatile(this, null);
        }
        if (owedInterruptTaken() && !interruptedOnEntry
                && !WorkerContext.poolOrGroupStopping(WorkerContext.currentGroup())) {
            Thread.interrupted();                        // this future's cancel's, not the outer code's
        }
        if (outerFuture instanceof InterruptOnCancel enclosing && enclosing.takeOwedInterrupt()) {
            me.interrupt();
        }
    }

    /** This future interrupts its runner itself, on a pool thread only while its own code runs there. */
    @Override
    protected boolean interruptsItsRunner() {
        return true;
    }

    /**
     * For cancel(true), once cancelled (FutureTask's cancel(false): its own interrupt would reach the
     * thread whatever it runs). On a worker or a spare, interrupts the thread only while it runs this
     * future's own code, not while it runs a task nested inside it (a join's helped task, a task run
     * for its waiter), which the interrupt is not meant for: the waiting code finds it set once the
     * nested task returns. Whoever interrupts takes the interrupt the cancel owes
     * ({@link InterruptOnCancel#takeOwedInterrupt}), this canceller or the thread back in this
     * future's code, so the code gets it once. On any other thread, interrupts it as FutureTask
     * would, before the run returns.
     *
     * <p>Why nothing is missed: the run that takes {@link #runner} (the only run that calls the
     * task's code) then publishes itself in its thread's slot ({@link WorkerContext#enterFuture}),
     * and only then does FutureTask's run check that it was not cancelled; this is called after the
     * cancel took effect, and reads the runner, then the slot. So a canceller that reads no runner,
     * or reads the runner but not yet this future in its slot, came before that check, and the
     * task's code never starts; one that finds this future in the slot interrupts the thread, and
     * one that finds something else there comes after the run's code or during a nested task.
     */
    @Override
    protected void interruptRunner() {
        if (!(runner instanceof Thread thread) || WorkerContext.interruptForCancel(this, thread)) {
            return;
        }
        if (RUNNER.compareAndSet(this, thread, INTERRUPTING)) {
            try {
                if (takeOwedInterrupt()) {               // off the pool nothing else takes it: always true
                    thread.interrupt();
                }
            } finally {
                RUNNER.setVolatile(this, thread);
            }
        }
    }

    /** The RotaTask this future runs, or null when it runs another kind of task. */
    RotaTask<?> rotaTask() {
        return rotaTask;
    }

    /**
     * FutureTask's run has run the task. A future of a RotaTask completes with the task instead
     * (the action its constructor left with the task), which this run may have found held by
     * another run, or which a cancel or complete() may have ended while its compute() went on.
     */
    @Override
    protected void set(V value) {
        if (rotaTask == null) {
            super.set(value);
        }
    }

    /** Completes this future with the outcome of its RotaTask, which is done; nothing if this future is done. */
    private void settleWith(V value) {
        if (rotaTask.isCompletedNormally()) {
            super.set(value);
        } else if (rotaTask.isCancelled()) {
            super.cancel(false);                         // no run of this future is under way to interrupt
        } else {
            super.setException(rotaTask.getException()); // the object compute() threw
        }
    }

    /**
     * Cancels this future and, when it runs a RotaTask that has not started, that task too: once
     * this future is cancelled the task will not run through it, and a join of the task would
     * otherwise wait for a run that never comes. A task already started elsewhere (an invoke(), or
     * this future's own run under way) is left to complete. A run of this future that got past its
     * own state check meets the cancel at the task's started claim (a CAS): either that run claims it
     * and completes the task, or {@code cancelUnstarted} does and the run returns at once.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled && rotaTask != null) {
            rotaTask.cancelUnstarted();
        }
        return cancelled;
    }

    /**
     * For a shutdownNow that drained {@code task} from a queue: cancels it where a waiter would
     * otherwise wait for ever (a RotaTask, or this future of one) and says whether it never started,
     * so that it is returned. A RotaTask done already (run elsewhere, completed or cancelled by the
     * user), or started by a run elsewhere, is not; nor is this future of one, which then completes
     * with the task, at once or when that run ends, as its own run would have made it: cancelling it
     * would report a task cancelled that completed. Nor is a future that a waiter claimed to run
     * ({@link #claimForWaiter}), which completes as that run ends. For a future of a RotaTask the
     * task's started claim alone decides: once this drain has it, the task is returned, and the
     * future is cancelled, by this drain or by what came between the task's claim and the future's
     * cancel (see below).
     */
    static boolean settleDrained(Runnable task) {
        if (task instanceof RotaTask<?> forked) {
            return forked.cancelUnstarted();
        }
        if (task instanceof GroupFuture<?> future && future.rotaTask != null) {
            if (future.rotaTask.cancelUnstarted()) {
                // This drain claimed the task's start: it never runs, and is handed back whoever
                // cancels the future. The task's cancel has run the future's action (see the
                // constructor) in this thread, which cancelled the future unless a user's cancel of
                // it came first; the cancel below finds it cancelled either way, and only states what
                // the drain leaves. Nothing else completes the future: it completes only through the
                // task, which stays cancelled.
                future.cancel(false);
                return true;
            }
            return false;                                // done or running elsewhere: completes with it (see the constructor)
        }
        if (task instanceof GroupFuture<?> future) {
            int c;
            do {
                c = future.claim;
                if (c == RUN_BY_WAITER) {
                    return false;                        // its waiter runs it, or ran it
                }
            } while (!CLAIM.compareAndSet(future, c, DRAINED));
        }
        return true;
    }

    /**
     * W2 for a future taken from a queue after its group's stop-drain (a fork made after it): cancels
     * it, as {@link #settleDrained} settles a drained one, unless a run elsewhere holds it already
     * (a RotaTask also invoked, or run by its waiter; a future its waiter runs), which completes it.
     * True when it cancelled nothing: the future was done, or a run elsewhere holds it, and so this
     * queued copy stands for a run (the engine counts it, as it counts such a drained copy).
     */
    static boolean cancelLeftover(Future<?> leftover) {
        if (leftover instanceof Runnable task && !settleDrained(task)) {
            return true;                                 // done, or completes as the run that holds it ends
        }
        leftover.cancel(false);                          // never started: not a run, so not counted
        return false;
    }

    /**
     * For a waiter about to run this future itself (no spare could stand in for it, see
     * {@link TicketTransfer}): true when it may, false unless its group accepted it as itself, or
     * once a drain has handed it back. With a RotaTask, true while not done: the task's started
     * claim decides inside the run.
     */
    boolean claimForWaiter() {
        return rotaTask != null ? claim == OPEN && !isDone() : CLAIM.compareAndSet(this, OPEN, RUN_BY_WAITER);
    }

    /**
     * Called by {@code group.execute} once {@code group} accepted {@code task} into its queue: when
     * task is a future of that group, it may now be run by its waiter. Before execute returns, so
     * before the submitting thread can hand the future to any waiter; a drain that came first has
     * claimed it already, and this changes nothing.
     */
    static void acceptedAsItself(Runnable task, Group group) {
        if (task instanceof GroupFuture<?> future && future.group == group) {
            CLAIM.compareAndSet(future, UNQUEUED, OPEN);
        }
    }

    /**
     * On a pool thread: a managed block that lends the waiter's group's tickets to this task's
     * group, or, with no spare to stand in, a run of this future by the waiter itself. Not for a
     * timed wait, which that run could keep past its deadline, and which ends by itself.
     */
    @Override
    protected void block(ForkJoinPool.ManagedBlocker blocker, boolean timed) throws InterruptedException {
        TicketTransfer.await(group, blocker, timed ? null : this, this::claimForWaiter, this::waiterUntil);
    }
}
