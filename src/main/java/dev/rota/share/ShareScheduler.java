package dev.rota.share;

import java.util.function.IntPredicate;
import java.util.random.RandomGenerator;

/**
 * A proportional-share policy over clients named by small non-negative ids: it picks which client
 * runs next and learns how much CPU time each used. Implementations are single-threaded and
 * deterministic; the live pool drives them with measured time, the simulator with virtual time.
 *
 * <p>A client competes while its value (in base units, see {@link CurrencyGraph}) is positive.
 * Setting it to 0 makes the client leave; a later positive value lets it rejoin with whatever
 * credit or debt the policy keeps for it, until {@link #remove(int)} forgets it.
 */
public interface ShareScheduler {

    /** What {@link #pick()} returns when no client competes. */
    int NONE = -1;

    /**
     * Joins, re-weights or (with 0) makes {@code client} leave.
     *
     * @throws IllegalArgumentException if {@code client} is negative or {@code value} is negative,
     *                                  infinite or NaN
     */
    void setValue(int client, double value);

    /** Forgets {@code client} entirely, so that its id may name a new client; a no-op if unknown. */
    void remove(int client);

    /** The client that should run next, or {@link #NONE}. */
    int pick();

    /**
     * The client that should run next among the competing clients that {@code eligible} accepts, or
     * {@link #NONE} (a worker outside a client's CPU mask asks this way). Shares stay those of the
     * whole pool: a client that may run on few workers gets its share there, up to all of them,
     * and the others get the rest (max-min). A client never eligible anywhere does not change how
     * the others share. Equivalent to {@link #pick()} when every client is eligible.
     */
    int pick(IntPredicate eligible);

    /**
     * As {@link #pick(IntPredicate)}, drawing from {@code random} where the policy draws at all (a
     * caller's own generator, such as a worker's); deterministic policies ignore it.
     */
    default int pick(IntPredicate eligible, RandomGenerator random) {
        return pick(eligible);
    }

    /**
     * Charges {@code client} with {@code usedNanos} of CPU time against a quantum of
     * {@code quantumNanos}. Charging a client that left is allowed (its last batch may end after it
     * ran out of work).
     *
     * @throws IllegalArgumentException if the client is unknown, {@code usedNanos} is negative or
     *                                  {@code quantumNanos} is not positive
     */
    void charge(int client, long usedNanos, long quantumNanos);

    /**
     * Charges the last part of a slice whose earlier parts were charged while it ran: {@code usedNanos}
     * as {@link #charge} does, the slice having used {@code sliceNanos} of its quantum in all, this
     * part included. A policy that compensates a client for the part of a quantum it left unused
     * (lottery) takes that fraction from the whole slice: a slice that used its quantum and then
     * ran a little longer left nothing unused, however short its last part. Equivalent to
     * {@link #charge} where {@code sliceNanos == usedNanos}, and for policies that keep no such
     * compensation.
     *
     * @throws IllegalArgumentException as {@link #charge}, or if {@code sliceNanos} is less than
     *                                  {@code usedNanos}
     */
    default void chargeSliceEnd(int client, long usedNanos, long sliceNanos, long quantumNanos) {
        if (sliceNanos < usedNanos) {
            throw new IllegalArgumentException("a slice's time must include the part charged at its end: "
                    + sliceNanos + " < " + usedNanos);
        }
        charge(client, usedNanos, quantumNanos);
    }

    /**
     * Tells the policy where each client may run. Without it, a policy takes every client to be
     * free to run everywhere, as {@link #pick(IntPredicate)} then finds out one pick at a time; a
     * policy that keeps a virtual time per set of workers (stride, where CPU masks leave sets of
     * workers served at different paces) needs it. A no-op for policies that keep no such time.
     */
    default void setPlacement(Placement placement) {
    }

    /**
     * Drops whatever credit {@code client} has built up by being served less than its share, so
     * that it stands no better than a client that has just joined. The pool calls this when it
     * changes what a client may use (its CPU mask): time the client could not use while it was
     * confined is not owed to it afterwards. Debt is kept; a policy told of placements
     * ({@link #setPlacement}) reads the client's anew here, and may also drop a lead over the
     * clients of its new workers that only the pace of other workers made. A no-op for an unknown client and for
     * policies that keep no credit.
     */
    default void forgiveCredit(int client) {
    }

    /** Makes {@code client} compete with {@code value}. */
    default void join(int client, double value) {
        if (!(value > 0)) {
            throw new IllegalArgumentException("a joining client needs a positive value: " + value);
        }
        setValue(client, value);
    }

    /** Makes {@code client} stop competing, keeping its place for a later {@link #join}. */
    default void leave(int client) {
        setValue(client, 0);
    }
}
