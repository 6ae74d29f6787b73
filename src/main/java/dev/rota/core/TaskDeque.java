package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Work-stealing deque of one worker: the owner pushes and pops at the bottom (LIFO), any thread
 * steals at the top (FIFO). A growable circular array after Chase and Lev [1], with the memory
 * orderings of Lê et al. [2] expressed as VarHandle access modes.
 *
 * <pre>
 *   top (CAS by thieves and by the owner's last-element pop)      bottom (written by the owner only)
 *     v                                                              v
 *   [ t | t+1 | ... | b-1 ]   elements live in slots [top, bottom) of the array, index &amp; mask
 * </pre>
 *
 * <p>Invariants:
 * <ul>
 *   <li>D1: only the owning worker calls {@link #push} and {@link #pop}; any thread calls {@link #steal}.</li>
 *   <li>D2: an element is taken exactly once: a steal takes slot {@code t} only by winning
 *       {@code CAS(top, t, t + 1)}; the owner takes slot {@code b} without a CAS only while
 *       {@code top < b}, and races for the last element ({@code top == b}) with the same CAS.</li>
 *   <li>D3: {@code top} never decreases; {@code bottom - top} is the size, never above the capacity.</li>
 *   <li>D4: an array, once replaced by a larger one, is never written again by the owner, so a thief
 *       reading a stale array still reads the element it claims.</li>
 *   <li>D5: thieves never write slots (a thief clearing its slot could erase the same task pushed
 *       again there). The owner clears the slots of stolen tasks when it finds the deque empty:
 *       every index below {@code top} is then claimed, and each winning thief read its slot before
 *       its CAS, which the owner's volatile read of {@code top} has observed.</li>
 * </ul>
 *
 * <p>Memory ordering:
 * <ul>
 *   <li>push: plain slot store, then release store of {@code bottom}: pairs with the acquire load of
 *       {@code bottom} in steal, which therefore sees the element.</li>
 *   <li>pop: volatile store of {@code bottom}, then volatile load of {@code top} (a store-load order,
 *       the full fence of [2]): pairs with steal's volatile loads of {@code top} then {@code bottom},
 *       so owner and thief cannot both believe they hold the last element without meeting at the CAS.</li>
 *   <li>steal: the slot is read before the CAS of {@code top} (a volatile read-modify-write), so the
 *       read cannot float after the claim; the owner only reuses that slot after observing the
 *       advanced {@code top}.</li>
 * </ul>
 *
 * <p>References: [1] D. Chase, Y. Lev, "Dynamic Circular Work-Stealing Deque", SPAA 2005.
 * [2] N. M. Lê, A. Pop, A. Cohen, F. Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak
 * Memory Models", PPoPP 2013.
 */
public final class TaskDeque {
    /** Starting capacity; a power of two. Enough for a drained inbox batch and shallow fork trees. */
    static final int INITIAL_CAPACITY = 256;
    /** Largest capacity; past it {@link #push} throws rather than grow without bound. */
    static final int MAX_CAPACITY = 1 << 26;

    private static final VarHandle TOP;
    private static final VarHandle BOTTOM;
    private static final VarHandle ARRAY;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Runnable[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TOP = lookup.findVarHandle(TaskDeque.class, "top", long.class);
            BOTTOM = lookup.findVarHandle(TaskDeque.class, "bottom", long.class);
            ARRAY = lookup.findVarHandle(TaskDeque.class, "array", Runnable[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Padding keeps the thieves' CAS target (top) off the owner's line (bottom, array).
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    private volatile long top;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;
    private volatile long bottom;
    private volatile Runnable[] array = new Runnable[INITIAL_CAPACITY];
    /** Owner only: slots below this index have been cleared for the garbage collector (D5). */
    private long clearedBelow;
    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;

    /** Owner only. Pushes {@code task} at the bottom, growing the array when full. */
    public void push(Runnable task) {
        long b = (long) BOTTOM.getOpaque(this);          // D1: only the owner writes bottom
        long t = (long) TOP.getAcquire(this);            // pairs with steal's CAS: slot t-1 is free
        Runnable[] a = (Runnable[]) ARRAY.getOpaque(this);
        if (b - t >= a.length) {
            a = grow(a, t, b);
        }
        SLOT.setOpaque(a, (int) b & (a.length - 1), task);
        BOTTOM.setRelease(this, b + 1);                  // publishes the slot to steal's acquire load
    }

    /** Owner only. Takes the most recently pushed task, or returns null when empty. */
    public Runnable pop() {
        long b = (long) BOTTOM.getOpaque(this) - 1;
        Runnable[] a = (Runnable[]) ARRAY.getOpaque(this);
        BOTTOM.setVolatile(this, b);                     // store-load with the next line: see class comment
        long t = (long) TOP.getVolatile(this);
        if (t > b) {                                     // was empty
            BOTTOM.setOpaque(this, b + 1);
            clearClaimedSlots(a, t);
            return null;
        }
        int index = (int) b & (a.length - 1);
        Runnable task = (Runnable) SLOT.getOpaque(a, index);
        if (t == b) {                                    // last element: race thieves for it (D2)
            boolean won = TOP.compareAndSet(this, t, t + 1);
            BOTTOM.setOpaque(this, b + 1);
            if (!won) {
                return null;
            }
        }
        SLOT.setOpaque(a, index, null);                  // no thief reads index b while top <= b
        return task;
    }

    /**
     * Owner only. Pops {@code expected} if it is the most recently pushed task (a fork about to be
     * joined); false, leaving the deque as it was, otherwise or when a thief took it first.
     */
    public boolean tryUnpush(Runnable expected) {
        long b = (long) BOTTOM.getOpaque(this) - 1;
        Runnable[] a = (Runnable[]) ARRAY.getOpaque(this);
        if (b < (long) TOP.getVolatile(this) || SLOT.getOpaque(a, (int) b & (a.length - 1)) != expected) {
            return false;
        }
        return pop() != null;                            // only the owner pushes, so a non-null pop is expected
    }

    /** Any thread. Takes the oldest task, or returns null when empty or when another thread won it. */
    public Runnable steal() {
        long t = (long) TOP.getVolatile(this);
        long b = (long) BOTTOM.getVolatile(this);        // volatile after volatile: ordered as in [2]
        if (t >= b) {
            return null;
        }
        Runnable[] a = (Runnable[]) ARRAY.getAcquire(this);
        int index = (int) t & (a.length - 1);
        Runnable task = (Runnable) SLOT.getAcquire(a, index);
        if (task == null || !TOP.compareAndSet(this, t, t + 1)) {
            return null;                                 // lost the race; the caller may retry
        }
        return task;                                     // the owner clears the slot later: D5
    }

    /** Any thread; a snapshot that may be stale at once. */
    public int size() {
        long n = (long) BOTTOM.getVolatile(this) - (long) TOP.getVolatile(this);
        return (int) Math.max(0, n);
    }

    /** Any thread; a snapshot that may be stale at once. */
    public boolean isEmpty() {
        return (long) BOTTOM.getVolatile(this) <= (long) TOP.getVolatile(this);
    }

    /** Owner only, with the deque empty and {@code top == t}: clears slots of tasks taken by thieves (D5). */
    private void clearClaimedSlots(Runnable[] a, long t) {
        long from = Math.max(clearedBelow, t - a.length);
        for (long i = from; i < t; i++) {
            SLOT.setOpaque(a, (int) i & (a.length - 1), null);
        }
        clearedBelow = t;
    }

    /** Owner only: copies the live range into an array twice as large and publishes it (D4). */
    private Runnable[] grow(Runnable[] old, long t, long b) {
        int capacity = old.length << 1;
        if (capacity > MAX_CAPACITY) {
            throw new IllegalStateException("task deque is full: " + old.length + " tasks queued on one worker");
        }
        Runnable[] bigger = new Runnable[capacity];
        for (long i = t; i < b; i++) {
            bigger[(int) i & (capacity - 1)] = (Runnable) SLOT.getOpaque(old, (int) i & (old.length - 1));
        }
        ARRAY.setRelease(this, bigger);                  // pairs with steal's acquire load of array
        return bigger;
    }
}
