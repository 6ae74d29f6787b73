package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One stripe of an {@link Admission}: the counters of the submissions that go to one lane. The
 * submitters of the lane reserve here with one read-modify-write against a limit that only the
 * admission, under its lock, moves; whoever moves tasks out of the lane's inbox counts them here.
 *
 * <pre>
 *   admitted:   bit 62 = CLOSED; bits 0..61 = reservations made on this stripe and not withdrawn
 *   limit:      reservations may succeed while the count before them is below it
 *   taken:      tasks moved out of this lane's inbox by anyone but the lane's own worker, only growing
 *   ownerTaken: tasks moved out of it by the lane's own worker, only growing
 * </pre>
 *
 * <p>Invariant S1: {@code taken + ownerTaken <= count(admitted)}: a task is taken only after its
 * reservation was made, and a withdrawn reservation was never offered.
 *
 * <p>Invariant S2: {@code ownerTaken} has one writer, the lane's own worker, so it counts with a
 * release store where the others need a read-modify-write. The owner moves most of a lane's tasks,
 * often a few at a time (a group's stream split over several groups' inboxes), and its count then
 * stays on a line that no other worker writes: three groups fed round robin moved 10–11 tasks per
 * batch against the plain pool's 43–56 (docs/BENCHMARKS.md, GroupOverheadBenchmark). A reader
 * reads both counts with volatile loads before {@code admitted}; each count only grows and is
 * published after its tasks were moved, so their sum is never more than the tasks taken.
 */
final class AdmissionStripe {
    static final long CLOSED_BIT = 1L << 62;
    static final long COUNT = CLOSED_BIT - 1;

    private static final VarHandle ADMITTED;
    private static final VarHandle TAKEN;
    private static final VarHandle OWNER_TAKEN;
    private static final VarHandle LAST_OUTSIDE_SUBMITTER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ADMITTED = lookup.findVarHandle(AdmissionStripe.class, "admitted", long.class);
            TAKEN = lookup.findVarHandle(AdmissionStripe.class, "taken", long.class);
            OWNER_TAKEN = lookup.findVarHandle(AdmissionStripe.class, "ownerTaken", long.class);
            LAST_OUTSIDE_SUBMITTER = lookup.findVarHandle(AdmissionStripe.class, "lastOutsideSubmitter", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /*
     * Layout: HotSpot lays out longs first, in declaration order. The submitters' line holds
     * admitted, limit and the last outside submitter (a reservation writes the first and reads the
     * second, an outside thread's offer reads the third and seldom writes it); the padding keeps it
     * off the object header, off the next stripe in memory and off the lines of taken and
     * ownerTaken, which consumers write per batch, each on a line of its own (S2).
     */
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    private volatile long admitted;
    /** Written only under the admission's lock. */
    private volatile long limit;
    /** Id of the outside thread that offered here last; 0 before any. A hint for {@link SubmitterLanes}. */
    private long lastOutsideSubmitter;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;
    private volatile long taken;
    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;
    /** Written by the lane's own worker only (S2). */
    private volatile long ownerTaken;
    @SuppressWarnings("unused")
    private long p31, p32, p33, p34, p35, p36, p37;

    /**
     * Reserves one place if the count before it is below the limit and the stripe is open; a refused
     * reservation is withdrawn before this returns.
     *
     * @return {@link Admission#ACCEPTED}, {@link Admission#FULL} (beyond the limit) or
     *         {@link Admission#CLOSED} (closed by the time of the withdrawal)
     */
    int tryReserve() {
        long before = (long) ADMITTED.getAndAdd(this, 1L);
        // The limit stays below CLOSED_BIT, so a count with the bit set never passes.
        if (before < limit) {
            return Admission.ACCEPTED;
        }
        return ((long) ADMITTED.getAndAdd(this, -1L) & CLOSED_BIT) != 0 ? Admission.CLOSED : Admission.FULL;
    }

    /**
     * Reserves one place whatever the limit, unless the stripe is closed; a refused reservation is
     * withdrawn before this returns.
     *
     * @return {@link Admission#ACCEPTED} or {@link Admission#CLOSED}
     */
    int reservePastLimit() {
        long before = (long) ADMITTED.getAndAdd(this, 1L);
        if ((before & CLOSED_BIT) == 0) {
            return Admission.ACCEPTED;
        }
        ADMITTED.getAndAdd(this, -1L);
        return Admission.CLOSED;
    }

    /**
     * Records that the outside thread {@code threadId} offers here; true when another outside thread
     * offered here since this one last did (the lane is shared). Written only when the submitter
     * changes, so a lane with one submitter sees no write. A hint: racing submitters may each miss
     * the other's record now and then, so opaque accesses suffice.
     */
    boolean noteOutsideSubmitter(long threadId) {
        long last = (long) LAST_OUTSIDE_SUBMITTER.getOpaque(this);
        if (last == threadId) {
            return false;
        }
        LAST_OUTSIDE_SUBMITTER.setOpaque(this, threadId);
        return last != 0;
    }

    /** Counts {@code n} tasks moved out of the lane's inbox by any thread; call after the move (S1). */
    void taken(int n) {
        TAKEN.getAndAdd(this, (long) n);
    }

    /**
     * Counts {@code n} tasks moved out of the lane's inbox by the lane's own worker, the only thread
     * that may call this (S2); call after the move (S1). Release: whoever reads the new count also
     * sees the tasks where they were moved.
     */
    void takenByOwner(int n) {
        OWNER_TAKEN.setRelease(this, ownerTaken + n);
    }

    /** Tasks taken so far, by the owner and the others (both read before anything else a caller reads). */
    long taken() {
        return taken + ownerTaken;
    }

    /** Reservations not withdrawn, accepted or about to be withdrawn. */
    long count() {
        return admitted & COUNT;
    }

    /** Accepted tasks not yet taken, read consumers-first so that it is never negative (S1). */
    long pending() {
        long t = taken();
        return (admitted & COUNT) - t;
    }

    /** Under the admission's lock. */
    void setLimit(long limit) {
        this.limit = limit;
    }

    void close() {
        ADMITTED.getAndBitwiseOr(this, CLOSED_BIT);
    }
}
