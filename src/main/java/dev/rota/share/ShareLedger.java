package dev.rota.share;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.random.RandomGenerator;

/**
 * The share state of one pool's task groups: the currency graph, the policy, and for each group
 * (a client of the graph) whether it is runnable, how many of its slices run, and how many of those
 * wait on another group. From these it keeps two things current:
 *
 * <ul>
 *   <li>the group's activity in the graph: active while it is runnable or an unpaused slice of it
 *       runs. A group with no queued and no running work is inactive, so its tickets stop counting
 *       and its currency's value goes to its active siblings, as the lottery paper's inactive
 *       tickets do;</li>
 *   <li>its value in the policy: its value in base units while runnable, else 0. Only a runnable
 *       group (one with queued work) can be picked; a group whose tasks all run keeps its
 *       currency's share for them without being picked again.</li>
 * </ul>
 *
 * <p>A slice is a stretch of time in which one worker runs tasks of one group: {@link #sliceStarted}
 * when the worker picks the group, {@link #sliceEnded} with the time it used (or, if it found
 * nothing to run, {@link #sliceAbandoned}). A spare thread's turn at a group, one task, is a slice
 * too, so that the task keeps its group active while it runs. A slice that waits
 * for another group (a task blocked on a future of that group) is {@link #pause paused} and usually
 * {@link #lend lends} its group's tickets to the other group meanwhile.
 *
 * <p>A runnable group whose tickets are worth nothing (its currency lost all funding) competes with
 * {@link #FLOOR_VALUE}: its tasks still run, but only when no funded group has work, so that no
 * accepted task waits for ever.
 *
 * <p>Single-threaded and free of clocks, like everything in this package: the pool calls it under
 * one lock with measured time, a simulator from one thread with virtual time.
 */
public final class ShareLedger {
    /** The value a runnable group competes with when its tickets are worth nothing. */
    public static final double FLOOR_VALUE = 1e-9;

    private final CurrencyGraph graph;
    private final ShareScheduler scheduler;
    private boolean[] runnable = new boolean[16];
    private int[] slices = new int[16];
    private int[] paused = new int[16];
    /** True once the scheduler has seen the client compete, until it is removed: it may then be charged. */
    private boolean[] scheduled = new boolean[16];
    private int runnableCount;
    /** {@link #applyChange}, made once: a lambda capturing this ledger, made per {@link #sync}, would be an allocation per activation. */
    private final Consumer<ClientNode> changeSink = this::applyChange;

    public ShareLedger(CurrencyGraph graph, ShareScheduler scheduler) {
        this.graph = Objects.requireNonNull(graph, "graph");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    public CurrencyGraph graph() {
        return graph;
    }

    public ShareScheduler scheduler() {
        return scheduler;
    }

    // ---- structure: the graph's operations, with their value changes handed to the policy ----

    public CurrencyNode newCurrency(String name, CurrencyNode parent, long amount) {
        return graph.newCurrency(name, parent, amount);
    }

    /** Removes a currency that funds nothing any more: see {@link CurrencyGraph#removeCurrency}. */
    public void removeCurrency(CurrencyNode currency) {
        graph.removeCurrency(currency);
        sync();
    }

    public Ticket fundFrom(CurrencyNode currency, CurrencyNode source, long amount) {
        Ticket funding = graph.fundFrom(currency, source, amount);
        sync();
        return funding;
    }

    public void unfund(Ticket funding) {
        graph.unfund(funding);
        sync();
    }

    public void setTickets(Ticket funding, long amount) {
        graph.setTickets(funding, amount);
        sync();
    }

    /** A new group: inactive, not runnable, no slices. */
    public ClientNode newClient(String name, CurrencyNode currency, long amount) {
        ClientNode client = graph.newClient(name, currency, amount);
        ensureCapacity(client.id());
        return client;
    }

    public void setTickets(ClientNode client, long amount) {
        graph.setTickets(client, amount);
        sync();
    }

    /** Forgets a group; its id may name a new one at once. */
    public void remove(ClientNode client) {
        int id = live(client);                           // refuses before anything changes
        if (runnable[id]) {
            runnable[id] = false;
            runnableCount--;
        }
        graph.remove(client);
        sync();
        slices[id] = 0;
        paused[id] = 0;
    }

    // ---- activity --------------------------------------------------------------------------

    /** Marks whether the group has queued work, so whether it may be picked. */
    public void setRunnable(ClientNode client, boolean nowRunnable) {
        int id = live(client);
        if (runnable[id] == nowRunnable) {
            return;
        }
        runnable[id] = nowRunnable;
        runnableCount += nowRunnable ? 1 : -1;
        updateActivity(client);
        pushValue(client);                               // the graph reports no change where the value is unchanged
    }

    public boolean isRunnable(ClientNode client) {
        return runnable[live(client)];
    }

    /** Groups that may be picked now. */
    public int runnableCount() {
        return runnableCount;
    }

    /**
     * The runnable group, among those {@code eligible} accepts (by client id), that should run next,
     * or {@link ShareScheduler#NONE}. Picking starts nothing: call {@link #sliceStarted} for the slice.
     */
    public int pick(IntPredicate eligible, RandomGenerator random) {
        return scheduler.pick(eligible, random);
    }

    public void sliceStarted(ClientNode client) {
        int id = live(client);
        slices[id]++;
        updateActivity(client);
    }

    /** Ends a slice that used {@code usedNanos} of CPU time, charging the group for it. */
    public void sliceEnded(ClientNode client, long usedNanos, long quantumNanos) {
        sliceEnded(client, usedNanos, usedNanos, quantumNanos);
    }

    /**
     * Ends a slice whose earlier parts were {@link #charge charged} while it ran, charging the group
     * the {@code usedNanos} since; the slice used {@code sliceNanos} in all, this part included
     * (see {@link ShareScheduler#chargeSliceEnd}).
     */
    public void sliceEnded(ClientNode client, long usedNanos, long sliceNanos, long quantumNanos) {
        int id = live(client);
        if (slices[id] <= paused[id]) {
            throw new IllegalStateException(client + " has no running slice to end");
        }
        if (scheduled[id]) {
            scheduler.chargeSliceEnd(id, usedNanos, sliceNanos, quantumNanos);
        }
        slices[id]--;
        updateActivity(client);
    }

    /** Ends a slice that ran nothing, a spare's turn that found no task: nothing is charged. */
    public void sliceAbandoned(ClientNode client) {
        int id = live(client);
        if (slices[id] <= paused[id]) {
            throw new IllegalStateException(client + " has no running slice to abandon");
        }
        slices[id]--;
        updateActivity(client);
    }

    /** Charges the group for CPU time used outside a slice of its own or within a slice still running. */
    public void charge(ClientNode client, long usedNanos, long quantumNanos) {
        int id = live(client);
        if (scheduled[id]) {
            scheduler.charge(id, usedNanos, quantumNanos);
        }
    }

    /** The group may now use other CPUs than before: see {@link ShareScheduler#forgiveCredit}. */
    public void forgiveCredit(ClientNode client) {
        int id = live(client);
        if (scheduled[id]) {
            scheduler.forgiveCredit(id);
        }
    }

    /** One running slice of the group starts waiting: it no longer keeps the group active. */
    public void pause(ClientNode client) {
        int id = live(client);
        if (paused[id] >= slices[id]) {
            throw new IllegalStateException(client + " has no running slice to pause");
        }
        paused[id]++;
        updateActivity(client);
    }

    /** A paused slice of the group runs again. */
    public void resume(ClientNode client) {
        int id = live(client);
        if (paused[id] == 0) {
            throw new IllegalStateException(client + " has no paused slice");
        }
        paused[id]--;
        updateActivity(client);
    }

    /** Lends {@code lender}'s tickets to {@code borrower} until {@link #repay}; see {@link CurrencyGraph#lend}. */
    public Ticket lend(ClientNode lender, ClientNode borrower) {
        Ticket loan = graph.lend(lender, borrower);
        sync();
        return loan;
    }

    public void repay(Ticket loan) {
        graph.repay(loan);
        sync();
    }

    /** Slices of the group running now, paused ones included. */
    public int slices(ClientNode client) {
        return slices[live(client)];
    }

    public int pausedSlices(ClientNode client) {
        return paused[live(client)];
    }

    /** The value the policy sees for the group: 0 unless runnable. */
    public double scheduledValue(ClientNode client) {
        int id = live(client);
        return runnable[id] ? Math.max(client.value(), FLOOR_VALUE) : 0;
    }

    // ---- internals ----------------------------------------------------------------------------

    /** Activates or deactivates the group in the graph as its state requires. */
    private void updateActivity(ClientNode client) {
        int id = client.id();
        if (runnable[id] || slices[id] > paused[id]) {
            graph.activate(client);
        } else {
            graph.deactivate(client);
        }
        sync();
    }

    /** Hands every value the graph changed to the policy, masked by runnability. */
    private void sync() {
        graph.drainChanged(changeSink);
    }

    private void applyChange(ClientNode client) {
        if (client.isRemoved()) {
            if (scheduled[client.id()]) {
                scheduler.remove(client.id());
                scheduled[client.id()] = false;
            }
        } else {
            pushValue(client);
        }
    }

    private void pushValue(ClientNode client) {
        double value = scheduledValue(client);
        if (value > 0) {
            scheduled[client.id()] = true;
        }
        if (scheduled[client.id()]) {
            scheduler.setValue(client.id(), value);
        }
    }

    private int live(ClientNode client) {
        Objects.requireNonNull(client, "client");
        if (client.graph != graph) {
            throw new IllegalArgumentException(client + " belongs to another graph");
        }
        if (client.isRemoved()) {
            throw new IllegalArgumentException(client + " was removed");
        }
        ensureCapacity(client.id());
        return client.id();
    }

    private void ensureCapacity(int id) {
        if (id < runnable.length) {
            return;
        }
        int length = Math.max(id + 1, runnable.length * 2);
        runnable = Arrays.copyOf(runnable, length);
        slices = Arrays.copyOf(slices, length);
        paused = Arrays.copyOf(paused, length);
        scheduled = Arrays.copyOf(scheduled, length);
    }
}
