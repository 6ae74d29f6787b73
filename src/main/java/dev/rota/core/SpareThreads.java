package dev.rota.core;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Spare threads that keep a core busy while its worker blocks in
 * {@link Engine#managedBlock(ForkJoinPool.ManagedBlocker)}: a spare pins itself to the blocked
 * worker's CPU and runs tasks from every queue until the worker unblocks, then waits to be reused
 * and exits after a keep-alive period without work. A task running on a spare that blocks in a
 * managed block brings in another spare for the same worker, within the same limit. A managed block
 * nested in another on the same thread brings none: the outer block's spare stands in for both, and
 * where the outer block found none, its request (S7) stands for both, served once.
 *
 * <p>Invariants:
 * <ul>
 *   <li>S1: at most {@code max} spares exist, and {@link #count()} never says more, not even while a
 *       spare is being made; past that a blocking worker (or spare) blocks with a {@link Request}
 *       waiting, which the next spare to come free serves (S7).</li>
 *   <li>S2: a spare takes one task at a time and runs it before taking another (a join inside a
 *       spare's task runs the tasks it helps with inside the waiting one, {@link Engine#helpAsSpare}),
 *       so it never holds a task taken from a queue in a queue of its own (W1 and E3 need no change
 *       for spares).</li>
 *   <li>S6: a spare has no deque, so a fork there is offered to its group; one the group refuses is
 *       the spare's to run ({@link Spare#runRefusedFork}), within the task that forked it: in place,
 *       or, past a bounded nesting, after the in-place runs have unwound. Whichever of those runs it
 *       (or a join that takes it back, or a join's help) counts it once as a completed task of its
 *       group, as a worker counts each task it runs. Such a fork was never in a queue, so
 *       shutdownNow does not return it; once the pool or the group stops, a deferred one that no join
 *       takes back is cancelled, as a worker's fork made after the drain of the pool or of the group
 *       is (W2), and a join still takes its own back and runs it.</li>
 *   <li>S3: an assigned spare counts as a live participant of the engine from its assignment
 *       (made while the blocked worker, or the blocked spare that asks for it, is a live
 *       participant) until it has finished its last task, so the pool cannot terminate while a
 *       spare runs a task (E4).</li>
 *   <li>S4: a spare leaves the idle list either by being assigned or, after its keep-alive, by
 *       removing itself; removal succeeds for exactly one of the two.</li>
 *   <li>S5: an assignment is ended exactly once (see {@link Assignment}): by the spare, which then
 *       ends the participation after its last task, or by a release that comes before the spare
 *       took it, which ends it itself. Without this, a block shorter than the spare's wake-up
 *       would leave a participant that never exits, and the pool would never terminate.</li>
 *   <li>S7: a request waits in {@code waiting} until a spare serves it or its block ends, whichever
 *       comes first under {@code waiting}'s monitor; a served request's spare is released by the
 *       block's end as any other. A spare coming free puts itself on the idle list and then looks
 *       at {@code waiting}, and so does a spare that leaves after its keep-alive, once it has
 *       lowered the count; a request is put in {@code waiting} and then looks at the idle list and
 *       the count. All of these are synchronization actions, so at least one side sees the other
 *       ({@link #serveWaiting}): no request waits while a spare idles or a place is free (a place
 *       given back by a failed thread start excepted: it waits for a spare that comes free).
 *       Without this, blocks that found every spare busy would wait for ever once all the threads
 *       left were blocked, with spares come free since idling beside queued tasks.</li>
 * </ul>
 */
final class SpareThreads {
    /** Sleep of an assigned spare that has just found nothing to run, before it looks again. */
    private static final long IDLE_RECHECK_NANOS = 50_000;
    /**
     * Longest sleep of an assigned spare that keeps finding nothing: each empty look doubles the
     * sleep up to this. A spare is outside the workers' parking (W3), so nothing wakes it when a task
     * comes; a fixed 50 µs would cost a worker blocked in a long wait (I/O, say) some 10 % of a CPU
     * for its spare's looks. A task that only this spare may run then waits up to this long, while
     * any task that a parked worker may run wakes that worker as usual.
     */
    static final long MAX_IDLE_RECHECK_NANOS = 1_000_000;

    private final Engine engine;
    private final String namePrefix;
    private final int max;
    private final long keepAliveNanos;
    private final boolean daemon;
    private final Thread.UncaughtExceptionHandler handler;
    private final ConcurrentLinkedDeque<Spare> idle = new ConcurrentLinkedDeque<>();
    /** Every spare alive, busy or idle, for interrupts at shutdownNow. */
    private final java.util.Set<Spare> all = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger count = new AtomicInteger();
    /** Blocks that found no spare, oldest first (S7); guarded by its own monitor, as they are rare. */
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    private final AtomicInteger serial = new AtomicInteger();
    /** Seeds of the spares' generators; guarded by its own monitor (spares are created rarely). */
    private final SplittableRandom seeds;
    /** Starts a spare's thread; the package's tests make it fail, as a start does where no thread can be made. */
    private volatile Consumer<Thread> threadStarter = Thread::start;

    SpareThreads(Engine engine, String namePrefix, int max, long keepAliveNanos, boolean daemon,
                 Thread.UncaughtExceptionHandler handler, long seed) {
        this.engine = engine;
        this.namePrefix = namePrefix;
        this.max = max;
        this.keepAliveNanos = keepAliveNanos;
        this.daemon = daemon;
        this.handler = handler;
        this.seeds = new SplittableRandom(seed);
    }

    /** The thread of a spare; lets a task find out that it runs on one. */
    static final class SpareThread extends Thread {
        final Spare spare;

        SpareThread(Spare spare, String name) {
            super(null, spare, name, 0, false);
            this.spare = spare;
        }
    }

    /**
     * A spare now standing in for {@code blocked}, or null when {@code max} spares are busy (S1) or
     * the pool has stopped: a spare takes no task once it has (W2), so one started or woken then
     * would stand in for nothing, and leave its assignment at once ({@link Spare#standIn}).
     */
    Spare standIn(Worker blocked) {
        if (engine.isStopping()) {
            return null;
        }
        Spare spare = freeSpare();
        if (spare != null) {
            spare.assign(blocked);                       // started first: an assignment is ended only by a live spare
        }
        return spare;
    }

    /**
     * A spare that is free to assign, taken off the idle list or started now, or null when
     * {@code max} spares are busy (S1).
     */
    private Spare freeSpare() {
        Spare spare = idle.pollFirst();
        if (spare != null) {
            return spare;
        }
        int c;
        do {                                             // S1: never above max, not even for a moment
            c = count.get();
            if (c >= max) {
                return null;
            }
        } while (!count.compareAndSet(c, c + 1));
        try {
            spare = new Spare();
            threadStarter.accept(spare.thread);
        } catch (Throwable failure) {
            // No thread could be made (a limit on threads, say): its place is given back and
            // nothing was assigned, so no participant is left that would never exit (S3). The
            // failure goes to the blocking caller, as ForkJoinPool's managedBlock rethrows it.
            if (spare != null) {
                all.remove(spare);
            }
            count.decrementAndGet();
            throw failure;
        }
        return spare;
    }

    /**
     * A block of a thread standing for {@code blocked} (the worker itself, or a spare standing in
     * for it) that found no spare (S1): it waits to be served by the next spare that comes free
     * (S7). Whoever blocks ends it with {@link #endRequest} when the block ends.
     */
    static final class Request {
        final Worker blocked;
        /** The spare that serves it, or null; guarded by {@code waiting}'s monitor. */
        Spare servedBy;

        Request(Worker blocked) {
            this.blocked = blocked;
        }
    }

    /**
     * Registers a block of {@code blocked} that found no spare, to be served when one comes free
     * (S7); null, and nothing registered, where the pool has no spares at all.
     */
    Request request(Worker blocked) {
        if (max == 0) {
            return null;
        }
        Request request = new Request(blocked);
        synchronized (waiting) {
            waiting.addLast(request);
        }
        serveWaiting();                                  // S7: after the request is in waiting
        return request;
    }

    /** True when a spare serves {@code request}, a block's that has not ended (S7); false for null. */
    boolean served(Request request) {
        if (request == null) {
            return false;
        }
        synchronized (waiting) {
            return request.servedBy != null;
        }
    }

    /** The block of {@code request} has ended: withdraws it, or releases the spare that served it. */
    void endRequest(Request request) {
        Spare served;
        synchronized (waiting) {
            served = request.servedBy;
            if (served == null) {
                waiting.remove(request);
            }
        }
        if (served != null) {
            served.release();
        }
    }

    /**
     * Serves waiting requests with free spares, oldest first, while there are both (S7). A spare is
     * claimed as {@link #standIn} claims one, off the idle list or started below the bound; one
     * whose request ended meanwhile goes to the idle list. Nothing is served once the pool stops,
     * as {@link #standIn} serves nothing then: the blocks end as the pool's interrupts reach them.
     */
    private void serveWaiting() {
        while (!engine.isStopping()) {
            synchronized (waiting) {
                if (waiting.isEmpty()) {
                    return;
                }
            }
            Spare spare;
            try {
                spare = freeSpare();
            } catch (Throwable failure) {
                // No thread could be made (the error a start throws where threads run out): the
                // requests wait for a spare that comes free. The place given back is not offered
                // again here, which could only fail again at once.
                return;
            }
            if (spare == null) {
                return;                                  // the next spare to come free looks again
            }
            boolean assigned = false;
            synchronized (waiting) {
                Request request = waiting.pollFirst();
                if (request != null) {
                    request.servedBy = spare;
                    spare.assign(request.blocked);       // S3: its blocked thread is a participant until it ends the request
                    assigned = true;
                }
            }
            if (!assigned) {
                returnUnused(spare);
            }
        }
    }

    /**
     * Puts back on the idle list a spare that {@link #serveWaiting} took for a request that ended
     * before it was served, and wakes it. The spare sleeps in {@link Spare#awaitAssignment} until its
     * keep-alive ends, and {@link #terminate()} wakes only the spares on the idle list while it walks
     * it: one taken off the list before that walk and put back after it would sleep out its
     * keep-alive (a minute by default) beside a terminated pool. Woken here, it looks again, and sees
     * the termination if the walk missed it, since the pool terminates before the walk.
     */
    void returnUnused(Spare spare) {
        idle.offerFirst(spare);
        LockSupport.unpark(spare.thread);
    }

    /** For the package's tests: takes an idle spare off the list, as {@link #serveWaiting} does; or null. */
    Spare takeIdle() {
        return idle.pollFirst();
    }

    /** For the package's tests: the sleeps of every spare alive while standing in with nothing to run. */
    long idleSleeps() {
        long sum = 0;
        for (Spare spare : all) {
            sum += spare.idleSleeps;
        }
        return sum;
    }

    /** For the package's tests: how spares' threads are started from now on. */
    void startThreadsWith(Consumer<Thread> starter) {
        threadStarter = starter;
    }

    /** For the package's tests: spares on the idle list now. */
    int idleSpares() {
        return idle.size();
    }

    /** Spare threads alive now, busy or idle. */
    int count() {
        return count.get();
    }

    /** Interrupts every spare's running task (the pool's shutdownNow). */
    void interruptAll() {
        for (Spare spare : all) {
            spare.thread.interrupt();
        }
    }

    /** Interrupts the spares running a task of {@code group} now (the group's shutdownNow). */
    void interruptRunning(Group group) {
        for (Spare spare : all) {
            spare.running.interruptIf(group, spare.thread);
        }
    }

    /** Wakes idle spares so that they see the pool has terminated and exit. */
    void terminate() {
        for (Spare spare : idle) {
            LockSupport.unpark(spare.thread);
        }
    }

    final class Spare implements Runnable {
        private final Assignment assignment = new Assignment();
        final SpareThread thread;
        final SplittableRandom random;
        /** The group of the task this spare runs now, for that group's shutdownNow. */
        final RunningGroup running = new RunningGroup();
        /** As {@link Worker#runningFuture}: the future whose own code this spare runs now, for a cancel(true) of it. */
        final RunningFuture runningFuture = new RunningFuture();
        /** The group of the task this spare runs now, for the task itself to see; this spare's thread only. */
        Group group;
        /**
         * The group of this spare's turn, a slice in the ledger ({@link Dispatcher#pickForSpare}) that a
         * managed block pauses: {@link #group}, except while a task of another group runs inside a
         * waiting one ({@link Engine#runAwaitedTaskAsSpare}), whose group has no slice here to pause.
         * This spare's thread only.
         */
        Group turnGroup;
        /** The task running now on this spare, innermost first (a join's helped task); this spare's thread only. */
        Runnable currentTask;
        /** Time the task running now spent blocked in managed blocks, not charged where only the wall clock is read ({@link ThreadCpuClock}); this spare's thread only. */
        long blockedNanos;
        /** Managed blocks of the task running now nested in one another ({@link Engine#managedBlock}); this spare's thread only. */
        int blockDepth;
        /** True while the task running now blocks with another spare standing in; this spare's thread only. */
        boolean blocksWithStandIn;
        /**
         * The request of the running task's managed block that found no spare (S7), while that block
         * lasts; it stands for the blocks nested in it too. This spare's thread only.
         */
        Request blockRequest;
        /** Sleeps while standing in with nothing to run; written by this spare's thread only, for tests. */
        private volatile long idleSleeps;
        /** Helped tasks running now nested in waiting ones ({@link WorkerContext#MAX_HELP_DEPTH}); this spare's thread only. */
        int helpDepth;
        /**
         * The worker this spare stood in for last, whose CPU it is pinned to until its next
         * assignment; null before the first. This spare's thread only.
         */
        Worker lastStoodFor;
        /** Refused forks running now nested in one another ({@link #runRefusedFork}); this spare's thread only. */
        private int inPlaceDepth;
        /** Refused forks that wait for the in-place runs to unwind ({@link #runRefusedFork}); this spare's thread only. */
        private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();

        Spare() {
            thread = new SpareThread(this, namePrefix + "-spare-" + serial.incrementAndGet());
            thread.setDaemon(daemon);
            if (handler != null) {
                thread.setUncaughtExceptionHandler(handler);
            }
            synchronized (seeds) {
                random = seeds.split();
            }
            all.add(this);
        }

        Engine engine() {
            return engine;
        }

        /** On this spare's thread: true when a join may help no deeper, so it blocks with another spare standing in. */
        boolean helpsTooDeep() {
            return helpDepth >= WorkerContext.MAX_HELP_DEPTH && !engine.isStopping();
        }

        /**
         * On this spare's thread, for a join that found nothing of its group to run: true when
         * another group that the worker it stands in for may serve holds tasks, so the join blocks
         * with another spare standing in ({@link Worker#otherGroupsWait}, for the same reason).
         * False once released: no other spare can stand in for nobody.
         */
        boolean otherGroupsWait() {
            Worker blocked = standingInFor();
            Group current = group;
            return blocked != null && current != null && engine.othersHaveWork(current, blocked.index);
        }

        /**
         * On this spare's thread: runs a fork that the running task's group refused (S6). In place,
         * but at most {@link WorkerContext#MAX_HELP_DEPTH} such runs nested in one another: a chain
         * of forks, each task forking the next, would otherwise go as deep on the stack as the chain
         * is long and end in a StackOverflowError. Deeper forks wait in {@link #deferred}, which the
         * outermost in-place run empties, one task after another, once its task has returned. Those
         * still waiting when the pool or the group stops are cancelled, as the forks a worker leaves
         * on its deque then are; a chain of forks would otherwise run on for ever.
         */
        void runRefusedFork(Runnable task) {
            if (inPlaceDepth >= WorkerContext.MAX_HELP_DEPTH) {
                deferred.addLast(task);
                return;
            }
            boolean outermost = inPlaceDepth == 0;
            runInPlace(task);
            if (outermost) {
                Runnable next;
                while ((next = deferred.pollFirst()) != null) {
                    if (!cancelledAfterStop(next)) {
                        runInPlace(next);
                    }
                }
            }
        }

        /**
         * S6: cancels a deferred fork, which no join took back, once the pool or the running task's
         * group has stopped, if it is a future; true when it did. A deferred fork was never in a
         * queue, so no drain returns it, and none need be awaited before it is cancelled.
         */
        private boolean cancelledAfterStop(Runnable fork) {
            Group g = group;
            return engine.cancelLeftover(fork, engine.isStopping() || (g != null && g.runState() >= Group.STOP), g);
        }

        /**
         * Runs a refused fork here and counts it as a completed task of its group (the running
         * task's, which forked it), as a worker counts every task it runs; a fork that a join takes
         * back from {@link #deferred}, or a help polls from there, is counted where it runs instead.
         */
        private void runInPlace(Runnable task) {
            inPlaceDepth++;
            try {
                task.run();
            } catch (Throwable failure) {
                engine.reportUncaught(thread, failure);
            } finally {
                inPlaceDepth--;
            }
            engine.countSpareTask(group);
        }

        /**
         * On this spare's thread: takes {@code task} back from the deferred forks, for a join to run it.
         * By identity, as a worker's deque does: a task class may define equals, and removing another
         * fork equal to {@code task} would lose that one, since the caller runs {@code task}.
         */
        boolean tryUnpushDeferred(Runnable task) {
            for (Iterator<Runnable> it = deferred.descendingIterator(); it.hasNext(); ) {
                if (it.next() == task) {
                    it.remove();
                    return true;
                }
            }
            return false;
        }

        /** On this spare's thread: takes {@code task} back if it is the newest deferred fork ({@code tryUnfork}). */
        boolean tryUnpushNewestDeferred(Runnable task) {
            if (deferred.peekLast() != task) {
                return false;
            }
            deferred.pollLast();
            return true;
        }

        /**
         * On this spare's thread: the newest deferred fork, taken to run while a join waits; or null.
         * Once the pool or the group has stopped, the deferred forks it finds are cancelled instead
         * (S6), as a worker's help cancels the forks it takes then (W2).
         */
        Runnable pollDeferred() {
            Runnable fork;
            do {
                fork = deferred.pollLast();
            } while (fork != null && cancelledAfterStop(fork));
            return fork;
        }

        /** The worker this spare stands in for now, or null once released; on this spare's thread. */
        Worker standingInFor() {
            return assignment.current();
        }

        /** S3: counted as a participant before it may take a task. */
        void assign(Worker blocked) {
            engine.participantEntered();
            assignment.assign(blocked);
            LockSupport.unpark(thread);
        }

        /**
         * Called by the worker once it no longer blocks; the spare finishes its current task first.
         * S5: when the block ended before the spare took the assignment, the release takes it back
         * instead, ends the participation that assign began, and returns the spare to the idle list.
         */
        void release() {
            if (assignment.release()) {
                engine.participantExited();
                idle.offerFirst(this);
                serveWaiting();                          // S7: after it is on the idle list
            }
            LockSupport.unpark(thread);
        }

        @Override
        public void run() {
            Worker blocked;
            while ((blocked = awaitAssignment()) != null) {
                standIn(blocked);
                assignment.done();
                engine.participantExited();              // S3: after the last task has finished
                idle.offerFirst(this);
                serveWaiting();                          // S7: after it is on the idle list
            }
        }

        /** The worker to stand in for, or null once this spare should exit (S4, S5). */
        private Worker awaitAssignment() {
            long deadline = System.nanoTime() + keepAliveNanos;
            while (true) {
                Thread.interrupted();                    // a stale interrupt must not turn parking into spinning
                Worker blocked = assignment.take();
                if (blocked != null) {
                    return blocked;                      // S5: taken before any release could take it back
                }
                long left = deadline - System.nanoTime();
                if ((left <= 0 || engine.isTerminated()) && idle.remove(this)) {
                    count.decrementAndGet();
                    all.remove(this);
                    // S7: a request made as this spare left the idle list, and that found every
                    // place taken before the count went down, is served by a spare started here.
                    serveWaiting();
                    return null;
                }
                LockSupport.parkNanos(this, Math.max(left, IDLE_RECHECK_NANOS));
            }
        }

        private void standIn(Worker blocked) {
            lastStoodFor = blocked;
            if (engine.pinning()) {
                engine.pinCurrentThread(blocked.cpu);    // best effort: a spare runs unpinned if refused
            }
            int misses = 0;
            long sleep = IDLE_RECHECK_NANOS;
            while (assignment.current() == blocked && !engine.isStopping()) {
                Thread.interrupted();                    // an interrupt meant for a finished task must not spin parkNanos
                if (!engine.runOneTaskAsSpare(blocked.index, this)) {
                    if (++misses < 64) {
                        Thread.onSpinWait();
                    } else {
                        idleSleeps++;                    // this thread only: no lost update
                        LockSupport.parkNanos(this, sleep); // release() unparks it at once
                        sleep = Math.min(sleep << 1, MAX_IDLE_RECHECK_NANOS);
                    }
                    continue;
                }
                misses = 0;
                sleep = IDLE_RECHECK_NANOS;
            }
        }
    }
}
