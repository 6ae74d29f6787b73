package dev.rota.schedule;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * A delayed or periodic task of a {@link DelayScheduler}: the future that {@code schedule*} returns,
 * and the {@link Runnable} that the pool runs when it is due.
 *
 * <p>{@link FutureTask} supplies the completion states, {@code get}, and interruption on
 * {@code cancel(true)}; this class adds the deadline, the period and the way back into the heap.
 */
final class ScheduledTask<V> extends BlockingFutureTask<V>
        implements RunnableScheduledFuture<V>, DeadlineHeap.Node {
    /*
     * Invariants:
     *   T1  a task is in the scheduler's heap, or handed to the pool, or running, or done; never two
     *       of these at once. So runs of a periodic task never overlap: the next deadline is set and
     *       the task re-enters the heap only after runAndReset() has returned. run() is public, so
     *       a periodic run begins only by claiming its hand-off (S5 of DelayScheduler): a run() of a
     *       periodic task in any other state, a user's or a second one of the same hand-off, does
     *       nothing. A one-shot run() may come early (FutureTask's own run, as in
     *       ScheduledThreadPoolExecutor); the task then leaves the heap (T5).
     *   T2  heapIndex is read and written only under the scheduler's lock.
     *   T3  deadline changes only while the task is outside the heap (between runs); it is
     *       volatile because getDelay()/compareTo() read it from any thread.
     *   T4  a cancelled task is never re-inserted: reschedule() checks isCancelled() under the lock,
     *       and cancel() removes under the same lock after its CAS, so one of the two sees the other.
     *   T5  a one-shot task that has run is out of the heap: the timer took it (takenByTimer), or its
     *       run came first and takes it out, as cancel() does, so that a task run early holds nothing
     *       for the rest of its delay and keeps no shut-down scheduler from idle. A one-shot task
     *       leaves the heap once and never re-enters it: takenByTimer read true is final, and read
     *       false it costs a remove() under the lock, which finds nothing if the timer took it since.
     *   T6  a shutdownNow returns a task as never started exactly when its code never runs: the code
     *       FutureTask calls is behind a claim (Claimed), which the call takes with a CAS as it
     *       begins, and a drain takes only after its cancel has won, so that no run can pass
     *       FutureTask's own check afterwards. The drain's claim then decides: won, the code never
     *       runs (a call that got past FutureTask's check before the cancel finds the claim gone and
     *       returns, its result dropped as the task is cancelled); lost, it ran or runs, and is not
     *       returned. A flag written by run() and read by the drain would not do: written before
     *       FutureTask's check, a user's early run() that loses to the cancel leaves it set for
     *       code that never ran; read before the cancel, a run can begin the code between the read
     *       and the cancel, which wins against the running code.
     */

    private final DelayScheduler scheduler;
    /** 0: one-shot; > 0: fixed rate, in ns; < 0: fixed delay of -period ns. */
    private final long period;
    private final long sequence;
    private volatile long deadline;
    private int heapIndex = DeadlineHeap.NOT_IN_HEAP;
    /** The code FutureTask calls, behind its start claim (T6). */
    private final Claimed<V> code;
    /**
     * True once the timer has taken this one-shot task out of the heap to hand it over (T5). Written
     * under the scheduler's lock; volatile because run() reads it without the lock, on any thread (a
     * user's early run() included). A run() on a worker the sink handed the task to always reads
     * true, so that run takes no lock.
     */
    private volatile boolean takenByTimer;
    /** The Runnable this task runs, told to the sink when this task is cancelled; null for a Callable. */
    private final Runnable command;

    ScheduledTask(DelayScheduler scheduler, Runnable command, long deadline, long period, long sequence) {
        this(scheduler, command, new Claimed<>(Executors.callable(command, null)), deadline, period, sequence);
    }

    ScheduledTask(DelayScheduler scheduler, Callable<V> callable, long deadline, long sequence) {
        this(scheduler, null, new Claimed<>(callable), deadline, 0, sequence);
    }

    private ScheduledTask(DelayScheduler scheduler, Runnable command, Claimed<V> code, long deadline, long period,
                          long sequence) {
        super(code);
        this.code = code;
        this.command = command;
        this.scheduler = scheduler;
        this.deadline = deadline;
        this.period = period;
        this.sequence = sequence;
    }

    /**
     * The task's code behind its start claim (T6): {@code start} moves once, from NOT_STARTED, by a
     * CAS, to STARTED as a call begins the code or to DRAINED as a shutdownNow claims the task as
     * never started. Later calls of a periodic task find it STARTED: one volatile read, no write.
     */
    private static final class Claimed<V> implements Callable<V> {
        private static final int NOT_STARTED = 0;
        private static final int STARTED = 1;
        private static final int DRAINED = 2;
        private static final VarHandle START;

        static {
            try {
                START = MethodHandles.lookup().findVarHandle(Claimed.class, "start", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Callable<V> callable;
        private volatile int start;

        Claimed(Callable<V> callable) {
            this.callable = callable;
        }

        /** FutureTask's call, once it found the task NEW: the code, unless a drain has claimed it. */
        @Override
        public V call() throws Exception {
            int s = start;
            if (s == NOT_STARTED) {
                s = (int) START.compareAndExchange(this, NOT_STARTED, STARTED);
            }
            if (s == DRAINED) {
                return null;                             // cancelled before this call: the result is dropped
            }
            return callable.call();
        }

        /** A drain whose cancel won: true when no call has begun the code, nor will. */
        boolean claimForDrain() {
            return start == NOT_STARTED && START.compareAndSet(this, NOT_STARTED, DRAINED);
        }

        @Override
        public String toString() {
            return callable.toString();                  // FutureTask's toString shows the task, not this wrapper
        }
    }

    /**
     * Runs once when due. A one-shot completes its future; run before it is due (by a user: the
     * future is a Runnable), it runs at once and leaves the scheduler (T5). A periodic task that
     * returns normally goes back to the scheduler with its next deadline; one that throws completes
     * its future exceptionally and stops, and so does one that the scheduler cannot take back (its
     * heap cannot grow: out of memory), with that failure. A periodic task runs only when the timer
     * has handed it over, once per hand-off; any other call of run() on it (while it waits for its
     * deadline, say) does nothing.
     * A periodic task is cancelled by shutdown, wherever it waits, and then never runs, as in
     * ScheduledThreadPoolExecutor; after shutdownNow alone, a task the pool handed to a worker runs
     * (once: a periodic one is not rescheduled), see {@link DelayScheduler#claimRun}.
     */
    @Override
    public void run() {
        if (period == 0) {
            try {
                super.run();
            } finally {
                if (!takenByTimer) {
                    scheduler.remove(this);   // T5: run before the timer took it
                }
            }
        } else if (scheduler.claimRun(this)) {
            if (runAndReset()) {
                advanceDeadline();
                try {
                    scheduler.reschedule(this);
                } catch (Throwable failure) {   // the heap could not grow for it (out of memory)
                    setException(failure);      // no next run to wait for: ends as a run that threw (T1)
                }
            }
        }
        // else: not handed over for a run now (T1): in the heap, running, this hand-off ran, or
        // cancelled by shutdown
    }

    /**
     * FutureTask's run of a one-shot task has returned: a Runnable's future completes as the sink
     * says ({@link DueTaskSink#commandRan}), now or later; a Callable's at once.
     */
    @Override
    protected void set(V value) {
        if (command == null) {
            super.set(value);
            return;
        }
        scheduler.commandRan(command, new DueTaskSink.Outcome() {
            @Override
            public void completed() {
                ScheduledTask.super.set(value);
            }

            @Override
            public void failed(Throwable failure) {
                ScheduledTask.super.setException(failure);
            }

            @Override
            public void cancelled() {
                // FutureTask's own cancel: the command has run, so there is nothing to take out of
                // the heap nor to tell the sink, and no run of this task left to interrupt.
                ScheduledTask.super.cancel(false);
            }
        });
    }

    /** Waits as the pool's sink says: a managed block on a pool thread. */
    @Override
    protected void block(ForkJoinPool.ManagedBlocker blocker, boolean timed) throws InterruptedException {
        scheduler.block(blocker);
    }

    /** Fixed rate: from the previous deadline, so runs keep their cadence. Fixed delay: from now. */
    private void advanceDeadline() {
        deadline = period > 0 ? deadline + period : System.nanoTime() - period;
    }

    /**
     * The sink threw on this task's hand-off: it ends as a run that threw does, with that failure,
     * and leaves the scheduler as a cancelled task does (a periodic one its hand-off set, S5 of
     * DelayScheduler). A RotaTask command, which never ran, is cancelled, so that its joiners are
     * answered. Nothing changes where the task is done already (cancelled, or run by its future's
     * run()). It leaves the scheduler before its future completes, so that a waiter woken by the
     * failure finds the scheduler without it. A user's run() of a one-shot task racing the hand-off
     * may have begun the command meanwhile: the future then reports the failure, as it would a
     * cancellation that won that race.
     */
    void handOffFailed(Throwable failure) {
        if (isDone()) {
            return;
        }
        scheduler.remove(this);
        setException(failure);
        if (command != null) {
            scheduler.commandCancelled(command);
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            scheduler.remove(this);   // at once: cancelled timers hold no memory (T4)
            if (command != null) {
                scheduler.commandCancelled(command);   // it will not run through this task
            }
        }
        return cancelled;
    }

    /**
     * For a shutdownNow that took this task back, out of the heap or drained from the pool's queues:
     * settles it and says whether it never started, and so is returned. A one-shot task whose
     * command has a start claim of its own (a RotaTask, {@link DueTaskSink#claimUnstartedCommand})
     * is settled by that claim: taken, the command never runs, and the task is cancelled and
     * returned, whatever a run of this future does meanwhile (it finds the command claimed and
     * computes nothing); held by another call (its user's invoke(), or cancelled by its user), the
     * task completes as its own run would have, with the command's outcome ({@link #set}, through
     * the sink), and is not returned. Any other task is cancelled, and returned only if no run has
     * begun its code, nor will (T6): not a periodic task that has run, nor a one-shot run early by
     * its user, nor one done already (its user cancelled it).
     */
    boolean cancelForShutdownNow() {
        if (command != null && period == 0 && !isDone()) {
            switch (scheduler.claimUnstartedCommand(command)) {
                case CLAIMED -> {
                    cancel(false);                       // fails only where a racing run completed it, cancelled, with the command
                    return true;
                }
                case TAKEN_ELSEWHERE -> {
                    set(null);                           // completes with the command's outcome, now or once it has one
                    return false;
                }
                case BY_ITS_FUTURE -> { }
            }
        }
        return cancel(false) && code.claimForDrain();    // the cancel first: see T6
    }

    @Override
    public boolean isPeriodic() {
        return period != 0;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(deadline - System.nanoTime(), NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof ScheduledTask<?> task) {
            return DeadlineHeap.before(this, task) ? -1 : DeadlineHeap.before(task, this) ? 1 : 0;
        }
        // Compared, not subtracted: a foreign delay may be anything a long holds (Long.MAX_VALUE
        // from a JDK pool, say), and the difference of two such delays overflows.
        return Long.compare(getDelay(NANOSECONDS), other.getDelay(NANOSECONDS));
    }

    @Override
    public long deadline() {
        return deadline;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public int heapIndex() {
        return heapIndex;
    }

    @Override
    public void heapIndex(int index) {
        heapIndex = index;
    }

    boolean belongsTo(DelayScheduler owner) {
        return scheduler == owner;
    }

    /** The timer has taken this one-shot task out of the heap, under the scheduler's lock (T5). */
    void markTakenByTimer() {
        takenByTimer = true;
    }
}
