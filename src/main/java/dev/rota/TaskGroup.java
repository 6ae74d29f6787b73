package dev.rota;

import dev.rota.core.Dispatcher;
import dev.rota.core.Group;
import dev.rota.core.WorkerMask;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A service tier of a {@link RotaPool}: an {@link ExecutorService} whose tasks get CPU time in
 * proportion to the value of the group's tickets, on all the pool's workers together.
 *
 * {@snippet :
 * TaskGroup gold = pool.group("gold", 300);
 * TaskGroup bronze = pool.group("bronze", 100);   // while both have work: gold 3/4, bronze 1/4 of the CPU
 * gold.submit(() -> handle(request));
 * gold.setTickets(500);                            // takes effect at the next scheduling decision
 * }
 *
 * <p><b>Shares.</b> The pool divides CPU time between the groups that have work by their tickets'
 * value in base units (see {@link Currency}), with the pool's {@link SharePolicy}; each group is
 * charged the CPU time its tasks really used. Shares are of the whole pool: a group whose tasks were
 * all submitted on one worker still gets its share of every worker, which takes them from the others.
 * A group {@linkplain #restrictToCpus restricted} to some CPUs gets its share of the whole pool on
 * those CPUs, up to all of them.
 *
 * <p><b>Ticket transfer.</b> A task of this pool that waits on a future of another group (from
 * {@code submit}, or a {@link RotaTask} of it) lends its group's tickets to that group until the wait
 * ends, and the worker's core runs other work meanwhile. {@link #lendTo} does the same for waits the
 * pool cannot see.
 *
 * <p><b>Overload.</b> Each group queues at most {@link #queueCapacity()} tasks (65,536 by default;
 * the pool's default group is unbounded, as ForkJoinPool's queues are); beyond that its
 * {@link RejectionPolicy} decides ({@link RejectionPolicy#ABORT} by default). A flooding group thus
 * neither exhausts memory nor takes more than its share of CPU time from the others.
 *
 * <p><b>Life cycle.</b> {@link #shutdown()} and {@link #shutdownNow()} end this group only, with
 * the JDK's semantics: queued tasks still run after {@code shutdown()}; {@code shutdownNow()}
 * interrupts the group's running tasks and returns, each exactly once, those that never started.
 * A terminated group leaves the pool and its currency, and its name may be used again. Shutting the
 * pool down shuts every group; every group has terminated, and left its currency, once the pool has.
 *
 * <p>{@link #submitOnly()} hands code that should not steer the pool a view that can submit and
 * nothing else (the tasks it submits run as the pool's tasks, with what they reach from there).
 */
public final class TaskGroup extends AbstractExecutorService {
    /** Default bound on a named group's queued tasks. */
    public static final int DEFAULT_QUEUE_CAPACITY = 1 << 16;

    private final RotaPool pool;
    final Group core;
    private final Currency currency;
    private volatile RejectionPolicy rejectionPolicy = RejectionPolicy.ABORT;

    private final long id;

    TaskGroup(RotaPool pool, Group core, Currency currency, long id) {
        this.pool = pool;
        this.core = core;
        this.currency = currency;
        this.id = id;
    }

    public String name() {
        return core.name();
    }

    /**
     * This group's number: positive, and never given to another group of any pool in this JVM,
     * unlike the name, which a terminated group frees. It tells two groups of one name apart in
     * {@link GroupStats} and {@link PoolSnapshot}.
     */
    public long id() {
        return id;
    }

    /** The currency whose tickets fund this group. */
    public Currency currency() {
        return currency;
    }

    public RotaPool pool() {
        return pool;
    }

    private Dispatcher dispatcher() {
        return pool.dispatcher();
    }

    // ---- tickets ------------------------------------------------------------------------------

    /** This group's tickets, in its currency; 0 once the group has terminated and left its currency. */
    public long tickets() {
        return dispatcher().read(() -> core.isTerminated() ? 0 : clientTickets());
    }

    private long clientTickets() {
        return core.client().tickets();
    }

    /**
     * Inflates or deflates this group's tickets; the new value counts from the next scheduling
     * decision (within a quantum).
     *
     * @throws IllegalArgumentException if {@code tickets} is not positive or would overflow its currency's total
     * @throws IllegalStateException    if the group has terminated
     */
    public void setTickets(long tickets) {
        dispatcher().withLedger(ledger -> {
            refuseIfTerminated();                        // read under the ledger's lock, as the change it guards
            ledger.setTickets(core.client(), tickets);
            return null;
        });
    }

    /**
     * What this group's tickets are worth now in base tickets; 0 while it is inactive: no queued or
     * running work, or only tasks paused in a wait ({@code managedBlock}, a ticket loan).
     */
    public double value() {
        return dispatcher().read(() -> core.isTerminated() ? 0 : core.client().value());
    }

    /**
     * Lends this group's tickets to {@code borrower} until the returned loan is closed (ticket
     * transfer for a wait the pool cannot see, such as a call to a service whose work runs in
     * {@code borrower}). While this group has loans out, its value is split in equal parts between
     * its own work, if it has any, and each loan: a loan creates no value, and groups that take no
     * part keep their shares. What a group holds on loan it passes on when it lends in turn, so tickets
     * follow a chain of waits. A loan from or to a group that has terminated lends nothing, and so
     * does one that would close a cycle of loans (the borrower already lends to this group, directly
     * or through others). A loan ends by itself when either group terminates: this group's value is
     * then its own again, and closing the loan does nothing.
     *
     * @throws IllegalArgumentException if {@code borrower} is this group or belongs to another pool
     */
    public Loan lendTo(TaskGroup borrower) {
        Objects.requireNonNull(borrower, "borrower");
        if (borrower == this) {
            throw new IllegalArgumentException(describe() + " cannot lend to itself");
        }
        if (borrower.pool != pool) {
            throw new IllegalArgumentException(borrower.describe() + " belongs to another pool than " + describe());
        }
        return new Loan(dispatcher(), dispatcher().beginWait(core, borrower.core), this, borrower);
    }

    // ---- submission ---------------------------------------------------------------------------

    /**
     * Queues {@code task} in this group. A {@link RotaTask} becomes this group's task only once the
     * group has accepted it: one refused is left as it was, and may be submitted elsewhere.
     *
     * @throws RejectedExecutionException if the group or its pool is shut down, or the queue is full
     *                                    and the rejection policy throws
     * @throws NullPointerException       if {@code task} is null
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (pool.refusesSubmissions(this)) {
            core.countRejected();
            throw new RejectedExecutionException("pool " + pool.name() + " is shut down: task rejected: " + task);
        }
        // A RotaTask is bound to this group only once accepted: one refused stays as it was, free to
        // be submitted elsewhere, and a rejection policy that runs it runs it outside the group.
        int result = core.offer(task, RotaTask::bindSubmitted);
        if (result == Group.ACCEPTED) {
            GroupFuture.acceptedAsItself(task, core);
            return;
        }
        core.countRejected();
        if (result == Group.FULL) {
            rejectionPolicy.rejected(task, this);
            return;
        }
        throw new RejectedExecutionException(describe() + " is shut down: task rejected: " + task);
    }

    /** Submits {@code task} and returns it, as {@code ForkJoinPool.submit(ForkJoinTask)} does. */
    public <T> RotaTask<T> submit(RotaTask<T> task) {
        execute(task);
        return task;
    }

    /** As {@link RotaPool#submit(Runnable)}: a {@link RotaTask} is submitted as itself and returned. */
    @Override
    public Future<?> submit(Runnable task) {
        if (task instanceof RotaTask<?> forked) {
            return submit(forked);
        }
        return super.submit(task);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new GroupFuture<>(runnable, value, core);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new GroupFuture<>(callable, core);
    }

    // ---- overload -------------------------------------------------------------------------------

    /**
     * The most tasks this group holds in its queues before its rejection policy decides. The bound
     * counts the tasks waiting to be picked up by a worker; a worker takes them in batches of up to
     * 64 into a queue of its own, where they wait to run without counting, so {@code queuedTasks()}
     * may exceed the capacity by up to 64 per worker. Tasks forked by the group's running tasks are
     * never refused, as in {@code ForkJoinPool}.
     */
    public int queueCapacity() {
        return core.capacity();
    }

    /**
     * Bounds the tasks this group queues; tasks queued already above a lowered bound stay queued.
     *
     * @throws IllegalArgumentException if {@code capacity} is below 1
     * @throws IllegalStateException    if this group has terminated, as {@link #setTickets} does
     */
    public void setQueueCapacity(int capacity) {
        refuseIfTerminated();
        core.setCapacity(capacity);
    }

    public RejectionPolicy rejectionPolicy() {
        return rejectionPolicy;
    }

    public void setRejectionPolicy(RejectionPolicy policy) {
        this.rejectionPolicy = Objects.requireNonNull(policy, "policy");
    }

    // ---- placement ------------------------------------------------------------------------------

    /**
     * Runs this group's tasks only on the workers pinned to these CPUs. The group keeps its share of
     * the whole pool, served on those CPUs as far as they have room; if its share is more than they
     * can give, it gets all of them and the other groups share the rest. Tasks queued elsewhere
     * already are taken over by those workers.
     *
     * @throws IllegalArgumentException if no CPU is named, a CPU is named twice, or a CPU has no
     *                                  worker of this pool (the message names it)
     * @throws IllegalStateException    if the group has terminated
     */
    public void restrictToCpus(int... cpus) {
        Objects.requireNonNull(cpus, "cpus");
        if (cpus.length == 0) {
            throw new IllegalArgumentException("name at least one CPU for " + describe());
        }
        refuseIfTerminated();
        List<CpuTopology.WorkerPlacement> placements = pool.topology().workers();
        List<Integer> workers = new ArrayList<>();
        Set<Integer> named = new HashSet<>();
        for (int cpu : cpus) {
            if (!named.add(cpu)) {
                throw new IllegalArgumentException("CPU " + cpu + " is named twice for " + describe() + ": "
                        + Arrays.toString(cpus));
            }
            boolean found = false;
            for (CpuTopology.WorkerPlacement placement : placements) {
                if (placement.cpu() == cpu) {
                    workers.add(placement.worker());
                    found = true;
                }
            }
            if (!found) {
                throw new IllegalArgumentException("CPU " + cpu + " has no worker of pool " + pool.name()
                        + " (its workers are on CPUs " + pool.workerCpus() + ")");
            }
        }
        core.restrictTo(WorkerMask.of(pool.workers(), workers.stream().mapToInt(Integer::intValue).toArray()));
    }

    /**
     * Lets this group run on every worker again.
     *
     * @throws IllegalStateException if the group has terminated
     */
    public void allowAllCpus() {
        refuseIfTerminated();
        core.restrictTo(WorkerMask.all(pool.workers()));
    }

    /**
     * A terminated group has left its currency and runs nothing, so a change of its placement could
     * only be lost: it is refused, as {@link #setTickets} is. A group that terminates just after this
     * check keeps the mask, which then serves nothing.
     */
    private void refuseIfTerminated() {
        if (core.isTerminated()) {
            throw new IllegalStateException(describe() + " has terminated");
        }
    }

    /** The CPUs whose workers may run this group's tasks, ascending. */
    public int[] cpus() {
        List<CpuTopology.WorkerPlacement> placements = pool.topology().workers();
        return Arrays.stream(core.mask().workers()).map(w -> placements.get(w).cpu()).distinct().sorted().toArray();
    }

    // ---- life cycle ---------------------------------------------------------------------------

    /**
     * Accepts no new tasks in this group; those queued still run. Other groups are unaffected.
     *
     * @throws UnsupportedOperationException for the pool's {@link RotaPool#defaultGroup() default
     *         group}, which the pool's own submissions and due delayed tasks feed: it ends with its
     *         pool ({@link RotaPool#shutdown()})
     */
    @Override
    public void shutdown() {
        refuseIfDefault("shutdown");
        dispatcher().shutdown(core);
    }

    /**
     * Interrupts this group's running tasks and returns, each exactly once, its tasks that never
     * started; {@link RotaTask}s among them are cancelled so that no joiner waits for ever. A queued
     * RotaTask that is done already (the user cancelled it, or it ran through another call such as
     * {@link RotaTask#invoke()}) is not returned. A task of the group that keeps running (deaf to
     * the interrupt) may still fork and join, but a fork left waiting in a queue never starts unless
     * a join takes it back to run it: it is cancelled, as after the pool's {@link RotaPool#shutdownNow()}.
     * The group terminates once its last running task has returned and those forks are cancelled,
     * whichever thread cancels them; it does not wait for the pool.
     *
     * @throws UnsupportedOperationException for the pool's default group (see {@link #shutdown()})
     */
    @Override
    public List<Runnable> shutdownNow() {
        refuseIfDefault("shutdownNow");
        return pool.engine().shutdownNow(core, GroupFuture::settleDrained); // settled before the group may terminate
    }

    /**
     * As {@link ExecutorService#close()}: shuts this group down and waits for it to terminate.
     *
     * @throws UnsupportedOperationException for the pool's default group (see {@link #shutdown()})
     */
    @Override
    public void close() {
        refuseIfDefault("close");
        super.close();
    }

    /**
     * Shutting the default group down alone would leave a pool that refuses every submission, runs
     * no due delayed task, and still says it is not shut down.
     */
    private void refuseIfDefault(String operation) {
        if (this == pool.defaultGroup()) {
            throw new UnsupportedOperationException("the default group of pool " + pool.name() + " cannot " + operation
                    + " alone: it ends with its pool");
        }
    }

    @Override
    public boolean isShutdown() {
        return core.isShutdown() || pool.refusesSubmissions(this);
    }

    @Override
    public boolean isTerminated() {
        return core.isTerminated();
    }

    /**
     * As {@link ExecutorService#awaitTermination}; from a task of this pool (another group's, say,
     * that closes this one), the wait is a managed block, so that this group's tasks run even on a
     * pool of one worker. If this group is shut down when the wait begins, the wait lends the
     * caller's group's tickets to this group, as a wait for its tasks' results would; otherwise it
     * lends nothing, since the group ends only when someone shuts it down, and a loan would give the
     * caller's share to its work for as long as the wait lasts. Once the group has terminated it
     * returns true at once, even on an interrupted thread, as ThreadPoolExecutor's and ForkJoinPool's do.
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (core.isTerminated() || timeout <= 0) {
            return core.awaitTermination(0, TimeUnit.NANOSECONDS); // only looks; an interrupt is answered unless terminated
        }
        Group lendTo = isShutdown() ? core : null;
        return ManagedCall.awaitInterruptibly(lendTo, () -> core.awaitTermination(timeout, unit));
    }

    // ---- views and figures ----------------------------------------------------------------------

    /**
     * A view of this group that can submit tasks and nothing else: no tickets, no currencies, no
     * shutdown. Its {@code shutdown}, {@code shutdownNow} and {@code close} throw
     * {@link UnsupportedOperationException}; {@code isShutdown}, {@code isTerminated} and
     * {@code awaitTermination} report on the group. It limits its holder, not the tasks submitted
     * through it: those run as the pool's tasks, and reach the pool through
     * {@link RotaTask#getPool()}, as a ForkJoinPool's tasks reach theirs.
     */
    public ExecutorService submitOnly() {
        return new SubmitOnly(this);
    }

    /** This group's figures; its tickets, value and charged time are read at one instant. */
    public GroupStats stats() {
        return dispatcher().read(() -> new GroupStats(id, name(), tickets(), value(), core.cpuTimeNanos(),
                core.completedTasks(), core.queuedTasks(), core.rejectedTasks(), core.slices(),
                core.longestSliceNanos()));
    }

    /** The group's name and pool, for messages. */
    String describe() {
        return "group " + name() + " of pool " + pool.name();
    }

    /**
     * The group's name and pool, its run state ({@code Running}, {@code Shutting down},
     * {@code Stopping} or {@code Terminated}) and its figures, as {@code ThreadPoolExecutor}'s
     * {@code toString} gives them. Read without the dispatcher's lock, so the figures of a busy group
     * are estimates taken at slightly different moments; {@link #stats()} reads them together.
     */
    @Override
    public String toString() {
        // The default group is shut down with the engine, after the pool's own shutdown() has
        // returned (the due delayed tasks first); meanwhile it is shutting down, as its pool says.
        String state = this == pool.defaultGroup() && pool.isShutdown() && !core.isShutdown()
                ? "Shutting down" : core.stateName();
        return describe() + "[" + state + ", queued = " + core.queuedTasks() + ", completed = "
                + core.completedTasks() + ", rejected = " + core.rejectedTasks() + ", slices = " + core.slices() + "]";
    }

    /**
     * As {@link AbstractExecutorService#invokeAll}, except that a null among {@code tasks} throws
     * {@link NullPointerException} before any task is submitted, as the timed form does; from a task
     * of this pool, each wait is a managed block that lends the caller's group's tickets to
     * this group (the futures' own {@code get}).
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return InvokeAll.untimed(tasks, this::newTaskFor, this);
    }

    /**
     * As {@link AbstractExecutorService#invokeAny}; from a task of this pool, each wait for a result
     * is a managed block that lends the caller's group's tickets to this group, so the tasks run even
     * on a pool of one worker. The submissions are not: a task that the rejection policy runs in
     * the caller ({@link RejectionPolicy#CALLER_RUNS}) is the caller's work, charged to its group.
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return ManagedCall.invokeAny(this, core, tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return ManagedCall.invokeAny(this, core, tasks, timeout, unit);
    }

    /** Submission only, by delegation: nothing else of the group is reachable from it. */
    private static final class SubmitOnly extends AbstractExecutorService {
        private final TaskGroup group;

        SubmitOnly(TaskGroup group) {
            this.group = group;
        }

        @Override
        public void execute(Runnable task) {
            group.execute(task);
        }

        @Override
        public <T> Future<T> submit(Callable<T> task) {
            return group.submit(task);
        }

        @Override
        public Future<?> submit(Runnable task) {
            return group.submit(task);
        }

        @Override
        public <T> Future<T> submit(Runnable task, T result) {
            return group.submit(task, result);
        }

        @Override
        public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
            return group.invokeAll(tasks);
        }

        @Override
        public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
                throws InterruptedException {
            return group.invokeAll(tasks, timeout, unit);
        }

        @Override
        public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
            return group.invokeAny(tasks);
        }

        @Override
        public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
                throws InterruptedException, ExecutionException, TimeoutException {
            return group.invokeAny(tasks, timeout, unit);
        }

        @Override
        public void shutdown() {
            throw refused("shutdown");
        }

        @Override
        public List<Runnable> shutdownNow() {
            throw refused("shutdownNow");
        }

        @Override
        public void close() {
            throw refused("close");
        }

        @Override
        public boolean isShutdown() {
            return group.isShutdown();
        }

        @Override
        public boolean isTerminated() {
            return group.isTerminated();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            return group.awaitTermination(timeout, unit);
        }

        private UnsupportedOperationException refused(String operation) {
            return new UnsupportedOperationException("a submit-only view of group " + group.name() + " cannot " + operation);
        }

        @Override
        public String toString() {
            return "submit-only view of group " + group.name();
        }
    }
}
