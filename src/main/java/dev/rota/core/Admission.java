package dev.rota.core;

import java.util.function.IntConsumer;

/**
 * Admission into one group's bounded queue: decides, atomically with closing, whether a
 * submission is accepted, and counts the accepted tasks not yet taken out of the group's inboxes.
 *
 * <p>The counters are striped, one {@link AdmissionStripe} per lane, so that submitters feeding
 * different lanes never write the same cache line: a submission costs one read-modify-write on its
 * own stripe (besides the inbox's own). The bound stays exact across stripes by lending: each stripe
 * holds a quota of places, lent out of the group's capacity, and reserves against a limit of
 * {@code taken + quota}. Only when a stripe reaches its limit does its submitter take the lock, give
 * back the places its taken tasks freed, and borrow more: half of what is free, or, when nothing is,
 * every place the other stripes hold unused. So a submission is refused as full only when the
 * accepted tasks not yet taken fill the capacity, whichever stripes they went through, up to the
 * reservations of racing submitters (below).
 *
 * <p>Refusing takes two passes over the stripes. The first lowers every stripe's limit: from its end
 * no reservation passes on any stripe until the lock holder raises a limit, so each stripe's accepted
 * tasks stay as they are while takes go on, and what each holds can only fall. The second reads what
 * each stripe holds, no more than at the end of the first pass; so when the places lent out still
 * cover the capacity, the queue was full at that moment. One pass would add up counts read at
 * different moments: a task taken from a stripe after it was read would count beside one accepted
 * meanwhile on a stripe read later, and a submission could be refused although the queue was never
 * full while it was made. What the second pass cannot tell apart from an accepted task is a refused
 * reservation not yet withdrawn (see {@link #reclaim}): at most one per racing submitter, which then
 * waits for the lock itself. So a lone submitter is refused exactly when the queue is full, as with
 * {@code ThreadPoolExecutor} and an {@code ArrayBlockingQueue}; one racing others may be refused while
 * the queue is short of full by at most one place per racing submitter.
 *
 * <p>Reclaiming a stripe's unused places while its submitters reserve without the lock: the lock
 * holder first lowers the stripe's limit to the tasks taken so far, then reads its count. A reservation
 * that passed the old limit made its increment before it read the limit, so before the lowering
 * and before the count was read (all are volatile accesses, totally ordered); one that reads the
 * new limit fails. So no more than the count read can ever be accepted on that stripe until its
 * limit is raised again, and its quota can shrink to that count minus the tasks taken.
 *
 * <p>Invariants (under the lock unless said):
 * <ul>
 *   <li>A1: on each stripe, {@code taken <= count(admitted)} (S1).</li>
 *   <li>A2: {@link #admit} and {@link #admitPastBound} succeed only while open; once
 *       {@link #close()} has returned, neither does.
 *       Closing sets the closed bit on every stripe; a reservation and the close of its stripe are
 *       read-modify-writes of one word, so they are totally ordered.</li>
 *   <li>A3: on each stripe, the accepted tasks not yet taken are at most its quota, and its limit is
 *       at most {@code taken + quota} (taken only grows, so a limit computed earlier stays within it);
 *       {@code free + sum(quota) == capacity}. So accepted tasks not yet taken never exceed the
 *       capacity in force when they were admitted, unless some were admitted past the bound.</li>
 *   <li>A4: when {@link #pending()} returns 0, then for each stripe, at the moment it read the stripe,
 *       every task accepted there had been taken and no accepted submission was still on its way
 *       into an inbox. After {@link #close()} no task is accepted any more, so a 0 read after it
 *       means that every accepted task has been taken.</li>
 * </ul>
 */
final class Admission {
    static final int ACCEPTED = Group.ACCEPTED;
    static final int FULL = Group.FULL;
    static final int CLOSED = Group.CLOSED;

    private final AdmissionStripe[] stripes;
    /** Places lent to each stripe; under the lock. */
    private final long[] quota;
    /**
     * Places of the capacity lent to no stripe; negative after a lowering or an admission past the
     * bound, until tasks are taken.
     */
    private long free;
    private volatile int capacity;
    private volatile boolean closed;
    /** Told, under the lock, of each stripe just reclaimed; a test's way into a search for places. */
    private final IntConsumer reclaimed;

    Admission(int capacity, int stripes) {
        this(capacity, stripes, stripe -> { });
    }

    /** @param reclaimed told, under the lock, of each stripe whose unused places were just taken back */
    Admission(int capacity, int stripes, IntConsumer reclaimed) {
        if (stripes < 1) {
            throw new IllegalArgumentException("stripes must be >= 1: " + stripes);
        }
        this.capacity = checkCapacity(capacity);
        this.free = capacity;
        this.stripes = new AdmissionStripe[stripes];
        for (int s = 0; s < stripes; s++) {
            this.stripes[s] = new AdmissionStripe();     // limit 0: the first reservation borrows
        }
        this.quota = new long[stripes];
        this.reclaimed = reclaimed;
    }

    /**
     * Reserves room for one task on stripe {@code s}, or refuses. On {@link #ACCEPTED} the caller must
     * offer its task to the stripe's lane. A refused reservation is withdrawn before this returns;
     * the answer is then {@link #CLOSED} when the admission was closed by the time of the withdrawal,
     * even if it was refused as full: a caller that sees CLOSED knows that whoever closed the
     * admission may have counted the reservation as work (see {@code Group.offer}).
     *
     * @return {@link #ACCEPTED}, {@link #FULL} or {@link #CLOSED}
     */
    int admit(int s) {
        int result = stripes[s].tryReserve();
        return result == FULL ? admitBorrowing(s) : result;
    }

    /**
     * Reserves room for one task on stripe {@code s} whatever the limit, refusing only when closed:
     * see {@link Group#offerPastBound}. The task takes a place of the capacity as any other does:
     * one more place is lent to its stripe, so {@code free} may fall below 0, as after a lowered
     * capacity, and then every stripe's unused places are taken back. So until enough tasks are
     * taken no plain reservation passes, on any stripe, and A3 holds as it is.
     *
     * @return {@link #ACCEPTED} or {@link #CLOSED}
     */
    synchronized int admitPastBound(int s) {
        if (stripes[s].reservePastLimit() != ACCEPTED) {
            return CLOSED;
        }
        quota[s]++;
        free--;
        if (free < 0) {
            for (int other = 0; other < stripes.length; other++) {
                free += reclaim(other);
            }
        }
        return ACCEPTED;
    }

    /**
     * The slow path: stripe {@code s} reached its limit. Gives back what its taken tasks freed,
     * borrows, and reserves again; refuses as full only when nothing is free after reclaiming every
     * stripe's unused places.
     */
    private synchronized int admitBorrowing(int s) {
        AdmissionStripe stripe = stripes[s];
        while (true) {
            free += reclaim(s);
            if (free <= 0 && !reclaimEverywhere(s)) {
                return FULL;
            }
            long lent = Math.max(1L, free / 2);
            free -= lent;
            quota[s] += lent;
            stripe.setLimit(stripe.taken() + quota[s]);  // A3: taken read now, so the limit is within it
            int result = stripe.tryReserve();
            if (result != FULL) {
                return result;
            }
            // Other submitters of the stripe used the places just lent: look again.
        }
    }

    /**
     * Takes back every stripe's unused places, stripe {@code done} excepted (just reclaimed); true
     * when some are free then. Where none are, reclaims every stripe once more before the caller
     * refuses: the first pass left every limit lowered, so the second reads what the stripes held at
     * one moment, the first pass's end, or less (see the class comment).
     */
    private boolean reclaimEverywhere(int done) {
        for (int other = 0; other < stripes.length; other++) {
            if (other != done) {
                free += reclaim(other);
            }
        }
        for (int s = 0; s < stripes.length && free <= 0; s++) {
            free += reclaim(s);
        }
        return free > 0;
    }

    /**
     * Shrinks stripe {@code s}'s quota to the places its accepted tasks still hold, and returns what
     * it gave back. Lowers the limit first, then reads the count (see the class comment).
     */
    private long reclaim(int s) {
        AdmissionStripe stripe = stripes[s];
        long taken = stripe.taken();
        stripe.setLimit(taken);                          // no reservation passes until the limit is raised
        long held = Math.max(0L, stripe.count() - taken); // reservations about to be withdrawn included
        long kept = Math.min(quota[s], held);
        long given = quota[s] - kept;
        quota[s] = kept;
        reclaimed.accept(s);
        return given;
    }

    /** Counts {@code n} tasks moved out of stripe {@code s}'s inbox; call after the move (A1, A4). */
    void taken(int s, int n) {
        stripes[s].taken(n);
    }

    /**
     * As {@link #taken}, for the worker that owns lane {@code s} and no other thread (see
     * {@link AdmissionStripe#takenByOwner}).
     */
    void takenByOwner(int s, int n) {
        stripes[s].takenByOwner(n);
    }

    /** See {@link AdmissionStripe#noteOutsideSubmitter}: true when stripe {@code s} is shared by outside threads. */
    boolean noteOutsideSubmitter(int s, long threadId) {
        return stripes[s].noteOutsideSubmitter(threadId);
    }

    /**
     * Accepted tasks not yet taken out of the inboxes, those still on their way in included (A4);
     * refused reservations not yet withdrawn count too, for the few instructions they stand.
     */
    long pending() {
        long sum = 0;
        for (AdmissionStripe stripe : stripes) {
            sum += stripe.pending();
        }
        return sum;
    }

    /** Refuses all later admissions (A2). Idempotent. */
    void close() {
        for (AdmissionStripe stripe : stripes) {
            stripe.close();
        }
        closed = true;                                   // last: isClosed() implies every stripe refuses
    }

    /** True once {@link #close()} was called; after it returns, no admission succeeds. */
    boolean isClosed() {
        return closed;
    }

    int capacity() {
        return capacity;
    }

    /**
     * Changes the bound; reservations that start after this returns are checked against it. Tasks
     * already admitted above a lowered bound stay admitted. Takes every stripe's unused places back,
     * so that each stripe's next reservation borrows under the new bound.
     */
    synchronized void setCapacity(int capacity) {
        checkCapacity(capacity);
        long lent = 0;
        for (int s = 0; s < stripes.length; s++) {
            reclaim(s);
            lent += quota[s];
        }
        this.capacity = capacity;
        free = capacity - lent;
    }

    private static int checkCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("queue capacity must be >= 1: " + capacity);
        }
        return capacity;
    }
}
