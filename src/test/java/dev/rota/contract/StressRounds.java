package dev.rota.contract;

import dev.rota.SharePolicy;
import java.util.SplittableRandom;

/**
 * The rounds of a stress test. In a normal build, its fixed number, so that the suite stays short.
 * With the system property {@value #SOAK_MINUTES} set to M (a soak, shown in README.md), a soaking
 * test runs rounds until M minutes have passed, and never fewer than its fixed number.
 *
 * {@snippet :
 * for (StressRounds rounds = StressRounds.of(ROUNDS); rounds.another(); ) {
 *     runRound("round " + rounds.current());
 * }
 * }
 */
public final class StressRounds {
    /** The system property that turns the stress tests into a soak of that many minutes each. */
    public static final String SOAK_MINUTES = "rota.soak.minutes";

    private final int fixedRounds;
    private final long soakNanos;
    private final long start = System.nanoTime();
    private int next;

    private StressRounds(int fixedRounds, long soakNanos) {
        this.fixedRounds = fixedRounds;
        this.soakNanos = soakNanos;
    }

    /** {@code fixedRounds} rounds, or a soak when {@value #SOAK_MINUTES} is set. */
    public static StressRounds of(int fixedRounds) {
        return of(fixedRounds, true);
    }

    /**
     * {@code fixedRounds} rounds; a soak when {@value #SOAK_MINUTES} is set and {@code soaks} (a test
     * that runs the same race on reference pools soaks only the pool under test).
     */
    public static StressRounds of(int fixedRounds, boolean soaks) {
        if (fixedRounds < 1) {
            throw new IllegalArgumentException("fixedRounds must be positive: " + fixedRounds);
        }
        return new StressRounds(fixedRounds, soaks ? soakNanos(System.getProperty(SOAK_MINUTES)) : 0L);
    }

    static long soakNanos(String minutes) {
        if (minutes == null || minutes.isBlank()) {
            return 0L;
        }
        long value;
        try {
            value = Long.parseLong(minutes.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(SOAK_MINUTES + " must be a whole number of minutes: '" + minutes + "'", e);
        }
        if (value < 0 || value > 7 * 24 * 60) {
            throw new IllegalArgumentException(SOAK_MINUTES + " must be 0 to 10080 (a week): " + value);
        }
        return value * 60_000_000_000L;
    }

    /** True when another round should run; {@link #current()} is then its number, from 0. */
    public boolean another() {
        if (next < fixedRounds || System.nanoTime() - start < soakNanos) {
            next++;
            return true;
        }
        return false;
    }

    /** The number of the round that {@link #another()} last admitted. */
    public int current() {
        return next - 1;
    }

    /** One round of a test that alternates the share policies: see {@link #alternatingPolicies}. */
    @FunctionalInterface
    public interface PolicyRound {
        void run(String round, SharePolicy policy, SplittableRandom random) throws Exception;
    }

    /**
     * Runs {@code fixedRounds} rounds (or a soak, as {@link #of(int)}): stride in even rounds,
     * lottery in odd ones, each with a generator split from one seeded by the clock, and a label that
     * names the seed and the round, so that a failure can be replayed.
     */
    public static void alternatingPolicies(int fixedRounds, PolicyRound body) throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (StressRounds rounds = of(fixedRounds); rounds.another(); ) {
            int round = rounds.current();
            body.run("seed " + seed + ", round " + round, round % 2 == 0 ? SharePolicy.STRIDE : SharePolicy.LOTTERY,
                    random.split());
        }
    }
}
