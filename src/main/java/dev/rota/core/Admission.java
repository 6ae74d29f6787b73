package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Admission into one group's bounded queue: decides, atomically with closing, whether a
 * submission is accepted, and counts the accepted tasks not yet taken out of the group's inboxes.
 * One read-modify-write per submission (besides the inbox's own), on a cache line that only
 * submitters write.
 *
 * <pre>
 *   admitted: bit 62 = CLOSED; bits 0..61 = reservations made and not withdrawn
 *   taken:    tasks moved out of the inboxes, only growing (written by consumers, per batch)
 *   limit:    a cached bound for reservations, never above taken + capacity of some earlier moment
 * </pre>
 *
 * <p>A submitter reserves (raises {@code admitted}), then offers its task to an inbox; whoever
 * moves tasks out of an inbox raises {@code taken} after the move. A reservation refused because
 * the admission is closed or full is withdrawn within the same call and never offered. Reservations are not
 * checked against {@code taken} on every submission: only when they reach the cached limit is
 * {@code taken} read again, as a bounded JCTools queue caches its consumer index, so that the
 * consumers' writes cost a submitter nothing while the queue is far from full.
 *
 * <p>Invariants:
 * <ul>
 *   <li>A1: {@code taken <= count(admitted)} at every moment: a task is taken only after its
 *       reservation was made, and a reservation that is withdrawn was never offered.</li>
 *   <li>A2: {@link #admit} succeeds only while open; once {@link #close()} has returned, none
 *       does. Both are read-modify-writes of {@code admitted}, so they are totally ordered.</li>
 *   <li>A3: {@link #admit} succeeds only if, at some moment during the call, the reservations
 *       made before it were fewer than {@code taken + capacity}.</li>
 *   <li>A4: when {@link #pending()} returns 0, then at the moment it read {@code admitted} every
 *       accepted task had been taken out of the inboxes and no accepted submission was still on its
 *       way into one. It reads {@code taken} first: {@code taken} read earlier is at most the count
 *       read later (A1, and {@code taken} only grows), so the difference is never negative, and
 *       zero only when the count read is all taken.</li>
 * </ul>
 */
final class Admission {
    static final int ACCEPTED = Group.ACCEPTED;
    static final int FULL = Group.FULL;
    static final int CLOSED = Group.CLOSED;

    static final long CLOSED_BIT = 1L << 62;
    private static final long COUNT = CLOSED_BIT - 1;

    private static final VarHandle ADMITTED;
    private static final VarHandle LIMIT;
    private static final VarHandle TAKEN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ADMITTED = lookup.findVarHandle(Admission.class, "admitted", long.class);
            LIMIT = lookup.findVarHandle(Admission.class, "limit", long.class);
            TAKEN = lookup.findVarHandle(Admission.class, "taken", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /*
     * Layout: HotSpot lays out longs first, in declaration order, then ints. The submitters' line
     * holds admitted and limit (each reservation writes the first and reads the second); the
     * padding keeps it off the line of taken, which consumers write per batch, and off the header
     * and capacity, which every refresh reads.
     */
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    private volatile long admitted;
    private volatile long limit;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16;
    private volatile long taken;
    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;
    private volatile int capacity;

    Admission(int capacity) {
        this.capacity = checkCapacity(capacity);
        this.limit = capacity;
    }

    /**
     * Reserves room for one task, or refuses. On {@link #ACCEPTED} the caller must offer its task to
     * an inbox. A refused reservation is withdrawn before this returns; the answer is then
     * {@link #CLOSED} when the admission was closed by the time of the withdrawal, even if it was
     * refused as full: a caller that sees CLOSED knows that whoever closed the admission may have
     * counted the reservation as work (see {@code Group.offer}).
     *
     * @return {@link #ACCEPTED}, {@link #FULL} or {@link #CLOSED}
     */
    int admit() {
        long before = (long) ADMITTED.getAndAdd(this, 1L);
        if ((before & CLOSED_BIT) == 0
                && (before < limit || before < refreshLimit())) {  // A3: before is the count, the bit being clear
            return ACCEPTED;
        }
        long closed = (long) ADMITTED.getAndAdd(this, -1L) & CLOSED_BIT;
        return closed != 0 ? CLOSED : FULL;
    }

    /**
     * Recomputes the limit from {@code taken} and returns it. Only moves the cached limit from the
     * value read first, so that a refresh that read the capacity before {@link #setCapacity} changed
     * it cannot overwrite the limit that call set.
     */
    private long refreshLimit() {
        long seen = limit;
        long fresh = taken + capacity;
        if (fresh > seen) {
            LIMIT.compareAndSet(this, seen, fresh);
        }
        return fresh;
    }

    /** Counts {@code n} tasks moved out of an inbox; call after the move (A1, A4). */
    void taken(int n) {
        TAKEN.getAndAdd(this, (long) n);
    }

    /**
     * Accepted tasks not yet taken out of the inboxes, those still on their way in included (A4);
     * refused reservations not yet withdrawn count too, for the few instructions they stand.
     */
    long pending() {
        long t = taken;                                  // first: see A4
        return (admitted & COUNT) - t;
    }

    /** Refuses all later admissions (A2). Idempotent. */
    void close() {
        ADMITTED.getAndBitwiseOr(this, CLOSED_BIT);
    }

    boolean isClosed() {
        return (admitted & CLOSED_BIT) != 0;
    }

    int capacity() {
        return capacity;
    }

    /**
     * Changes the bound; reservations that start after this returns are checked against it. Tasks
     * already admitted above a lowered bound stay admitted.
     */
    void setCapacity(int capacity) {
        this.capacity = checkCapacity(capacity);
        long seen;
        do {
            seen = limit;
        } while (!LIMIT.compareAndSet(this, seen, taken + capacity));
    }

    private static int checkCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("queue capacity must be >= 1: " + capacity);
        }
        return capacity;
    }
}
