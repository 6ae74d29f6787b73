package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Which lane (which worker's inbox) of a group a thread outside the pool submits to.
 *
 * <p>A thread keeps to one lane, picked by a hash of its id, so that its offers write lines that stay
 * in its own cache. Two outside threads that land on the same lane share that inbox's producer index
 * and that stripe's admission word, and every offer of one takes those lines from the other: two
 * submitters on one lane of two completed less than half as many tasks as on two lanes
 * (docs/BENCHMARKS.md, ExternalSubmitBenchmark). So a thread that keeps finding another outside
 * thread's offer on its lane since its own last one ({@link #noteShared}) moves on: after
 * {@link #SHARES_BEFORE_MOVE} such finds its hash is turned to another position. Workers submit to
 * their own lanes and never move.
 *
 * <p>State per thread: one entry in a small table, found by another hash of the thread's id, on a
 * cache line of its own, so that one thread's moves do not take other threads' entries from their
 * caches. An entry holds the low 32 bits of the thread's id (its tag), its moves, and the shares found
 * since its last move. Entries are hints: two threads whose ids fall on one entry overwrite each
 * other's, and the one whose tag is gone submits at its unmoved position again, which is correct,
 * only perhaps shared. Plain racing is harmless for the same reason; the accesses are opaque only so
 * that a long is never torn.
 *
 * <p>The same table serves every group of a pool: a thread that moved on in one group has moved in
 * all, which does no harm, since every group's lanes are spread the same way.
 */
final class SubmitterLanes {
    /** Entries in the table; a power of two. */
    static final int ENTRIES = 64;
    /** Shares found on a thread's lane before it moves on. */
    static final int SHARES_BEFORE_MOVE = 32;

    /** Longs per cache line: each entry sits alone on its line. */
    private static final int STRIDE = 8;
    private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(long[].class);

    /** Entry i at index (i + 1) * STRIDE: the first line is padding, off the array's header. */
    private final long[] entries = new long[(ENTRIES + 2) * STRIDE];

    /**
     * The lane, in {@code [0, n)}, that the thread with id {@code threadId} submits to now. Before its
     * first move this is {@link #spread}'s choice.
     */
    int lane(long threadId, int n) {
        int moves = moves(threadId);
        if (moves == 0) {
            return spread(threadId, n);
        }
        return (int) (((mix(threadId + moves * 0x9E37_79B9_7F4A_7C15L) >>> 32) * n) >>> 32);
    }

    /**
     * Maps a thread id to {@code [0, n)} without a division (a 64-bit division costs tens of cycles,
     * a visible share of a submission): Fibonacci hashing spreads consecutive ids, and the high half
     * of the product with {@code n} scales the hash to the range.
     */
    static int spread(long threadId, int n) {
        int hash = (int) threadId * 0x9E3779B9;
        return (int) (((hash & 0xFFFF_FFFFL) * n) >>> 32);
    }

    /**
     * SplitMix64's finalizer: every bit of the result depends on every bit of {@code z}. Two threads
     * that meet on a lane see the same shares and so move in step; a position that depended on the
     * moves alone (say, the id's hash XOR a function of the moves) would keep them together for
     * ever, where this one parts them with the probability of two independent draws.
     */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /**
     * The thread with id {@code threadId} found another outside thread's offer on its lane since its
     * own last one; every {@value #SHARES_BEFORE_MOVE}th time it moves on to another position.
     */
    void noteShared(long threadId) {
        int at = index(threadId);
        long entry = (long) ENTRY.getOpaque(entries, at);
        int tag = (int) threadId;
        int moves = 0;
        int shares = 0;
        if ((int) (entry >>> 32) == tag) {
            moves = (int) (entry >>> 16) & 0xFFFF;
            shares = (int) entry & 0xFFFF;
        }
        if (++shares >= SHARES_BEFORE_MOVE) {
            moves = (moves + 1) & 0xFFFF;
            shares = 0;
        }
        ENTRY.setOpaque(entries, at, ((long) tag << 32) | ((long) moves << 16) | shares);
    }

    /** How often the thread with id {@code threadId} has moved on (0 when its entry is not its own). */
    int moves(long threadId) {
        long entry = (long) ENTRY.getOpaque(entries, index(threadId));
        return (int) (entry >>> 32) == (int) threadId ? (int) (entry >>> 16) & 0xFFFF : 0;
    }

    /**
     * The index of the entry of {@code threadId}. A hash other than the lanes', so that two threads on
     * one lane are no likelier than any two to share an entry.
     */
    private static int index(long threadId) {
        int slot = ((int) threadId * 0xC2B2AE35) >>> (32 - Integer.numberOfTrailingZeros(ENTRIES));
        return (slot + 1) * STRIDE;
    }
}
