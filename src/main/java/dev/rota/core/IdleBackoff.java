package dev.rota.core;

/**
 * What an idle worker does after a search that found nothing: spin, then yield, then park. The
 * duty-cycle seam is {@link #idle()}, called once per empty search; {@link #reset()} after work.
 *
 * <p>Waking a parked thread costs 16–24 µs on the target machines (DESIGN.md §3), the time of
 * thousands of tiny tasks, so a worker first spins for about that long and yields a little before
 * it parks. One empty search over all queues takes roughly 0.1 µs with a few workers, and the
 * pauses between searches grow from 1 to 32 {@code onSpinWait}s (each some 10–40 ns), so
 * {@link #DEFAULT_SPINS} searches span about 20–60 µs: the cost of one park and unpark.
 * Not thread-safe: one instance per worker.
 */
public final class IdleBackoff {
    static final int SPINNING = 0;
    static final int YIELDING = 1;
    static final int PARKING = 2;

    /** Empty searches spent spinning; with the growing pauses ≈ the cost of one park/unpark (class comment). */
    public static final int DEFAULT_SPINS = 128;
    /** Empty searches spent yielding, which lets a submitter sharing the core run. */
    public static final int DEFAULT_YIELDS = 8;

    private final int maxSpins;
    private final int maxYields;
    private int state = SPINNING;
    private int count;

    public IdleBackoff() {
        this(DEFAULT_SPINS, DEFAULT_YIELDS);
    }

    public IdleBackoff(int maxSpins, int maxYields) {
        if (maxSpins < 0) {
            throw new IllegalArgumentException("maxSpins must be >= 0: " + maxSpins);
        }
        if (maxYields < 0) {
            throw new IllegalArgumentException("maxYields must be >= 0: " + maxYields);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
    }

    /**
     * Backs off after one empty search. Returns true when the caller should now park (and then call
     * {@link #reset()} once it has work or has been woken).
     */
    public boolean idle() {
        switch (state) {
            case SPINNING -> {
                if (count++ < maxSpins) {
                    // Pause longer as the idle spell lasts (1, 2, 4 .. 32 pauses between searches):
                    // each search reads every queue's indices, lines that producers are writing.
                    for (int i = 1 << Math.min(count >>> 4, 5); i > 0; i--) {
                        Thread.onSpinWait();
                    }
                    return false;
                }
                state = YIELDING;
                count = 0;
                return idle();
            }
            case YIELDING -> {
                if (count++ < maxYields) {
                    Thread.yield();
                    return false;
                }
                state = PARKING;
                return true;
            }
            default -> {
                return true;
            }
        }
    }

    public void reset() {
        state = SPINNING;
        count = 0;
    }

    int state() {
        return state;
    }
}
