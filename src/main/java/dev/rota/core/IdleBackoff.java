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
 *
 * <p>Every {@link #SPIN_YIELD_PERIOD}th search of the spin phase yields instead of pausing. A
 * worker is pinned, but the threads that submit to it are not: where they share its CPU (more
 * runnable threads than CPUs), a worker that only spins holds that CPU for its whole scheduler
 * slice while the submitter it waits for cannot run. When the CPU has nothing else to run a yield
 * returns in under a microsecond, about the length of one long pause, so a dedicated core loses
 * nothing measurable; on a shared one, external-submission throughput rose 1.6–2× on a 2-CPU
 * machine (docs/BENCHMARKS.md).
 *
 * <p>Not thread-safe: one instance per worker.
 */
public final class IdleBackoff {
    static final int SPINNING = 0;
    static final int YIELDING = 1;
    static final int PARKING = 2;

    /** Empty searches spent spinning; with the growing pauses ≈ the cost of one park/unpark (class comment). */
    public static final int DEFAULT_SPINS = 128;
    /** Empty searches spent yielding, which lets a submitter sharing the core run. */
    public static final int DEFAULT_YIELDS = 8;
    /** In the spin phase, every this many empty searches one yields (class comment); a power of two. */
    static final int SPIN_YIELD_PERIOD = 4;

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
                    if (yieldsWhileSpinning(count)) {
                        Thread.yield();
                        return false;
                    }
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

    /** Whether the given (1-based) search of the spin phase yields rather than pauses. */
    static boolean yieldsWhileSpinning(int search) {
        return (search & (SPIN_YIELD_PERIOD - 1)) == 0;
    }

    public void reset() {
        state = SPINNING;
        count = 0;
    }

    int state() {
        return state;
    }
}
