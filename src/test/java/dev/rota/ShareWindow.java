package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.Dispatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CPU time charged to some groups between two snapshots, and the check that each group's part
 * of it is its entitlement within the error the policy's theory allows.
 *
 * <p>A window records every slice the pool charges to the groups named, through the dispatcher's
 * slice observer, so its sums are exact and its longest slice is that of the window itself.
 *
 * <p>Bounds, for a window with total charged time T in N slices, the longest slice charged L, W
 * workers and k groups competing:
 * <ul>
 *   <li>stride: at every instant two groups' charged times divided by their values differ by at
 *       most W·L / (the smaller value), since a group is picked only when its pass is least and at
 *       most W of its slices can be under way uncharged; a group's error is then at most k·W·L, and
 *       that of a window, the difference of two instants, twice as much;</li>
 *   <li>lottery: each of the N slices is won by a group with probability p, whatever its length
 *       x<sub>i</sub> (every group here runs the same tasks), so the group's time less p·T,
 *       Σ (won<sub>i</sub> − p)·x<sub>i</sub>, has mean 0 and variance p·(1 − p)·Σ x<sub>i</sub>²
 *       over the slices measured (with equal slices, the binomial N·p·(1 − p) in quanta). The test
 *       allows 5 standard deviations: by the normal approximation, which the tightness rule below
 *       keeps valid (N·p ≥ 100·(1 − p) for equal slices), a correct policy fails one group's check
 *       with probability below 6·10<sup>−7</sup>;</li>
 *   <li>both: plus the slices in flight at either end of the window, 2·(W + 1)·L (a spare thread
 *       may stand in for a worker that waits). A slice under way at the end is charged after the
 *       window, so L cannot show it: the window checks instead that the workers' time it did not
 *       charge, W times its length less the time T<sub>all</sub> charged to every group of the
 *       pool (named or not), is at most (W + 1)·L<sub>all</sub> plus 1 % for queues and 5 µs per
 *       slice for its pick and hand-off, where L<sub>all</sub> is the longest slice of any group. A
 *       worker the machine took away for long, or one that idled while its group had work, leaves
 *       more uncharged. The other way,
 *       T<sub>all</sub> may exceed the workers' time only by the parts before the window of the
 *       slices under way at its start, at most (W + 1)·L<sub>all</sub>: more means the pool charged
 *       more time than its CPUs had, and the shares of T are not shares of the CPUs.</li>
 * </ul>
 *
 * <p>Tightness: a bound means something only where a wrong share would break it. A window is used
 * only if every group's bound is at most half its entitlement ({@link #TIGHTNESS}), so that a group
 * given less than half its share, or more than one and a half times it, fails, whatever the load
 * did to the slices. A window that is not tight (the machine took the CPU away from a worker for a
 * good part of it, making L long) is measured again, or, for a window that must begin at a change
 * ({@link #measureFromNow}), lengthened, up to {@link #ATTEMPTS} times; the rule depends on the
 * slices' count and lengths only, not on which group got them, so retrying selects no outcome.
 */
final class ShareWindow {
    /** Windows measured before giving up on a machine too busy to measure anything. */
    static final int ATTEMPTS = 5;
    /** A window is tight when every group's bound is at most this part of its entitlement. */
    static final double TIGHTNESS = 0.5;
    /** The part of the workers' time that may go to queues and idle moments rather than to slices. */
    static final double UNCHARGED_SLACK = 0.01;
    /**
     * Uncharged time allowed per slice charged: the pick before it, under the dispatcher's lock, and
     * for a spare, whose every task is a slice of its own, the hand-off around it: the waiting
     * worker blocks and a spare is woken for each wait, a futex wake and a context switch or two of
     * a few microseconds each. Windows of quantum-long slices allow themselves under 1 % by it; the
     * ticket-transfer window, of 20 µs tasks run by spares, left 5–9 % of the workers' time
     * uncharged and is allowed some 20 %.
     */
    static final long UNCHARGED_PER_SLICE_NANOS = 5_000;
    /** Standard deviations the lottery bound allows. */
    static final double SIGMAS = 5;

    final SharePolicy policy;
    final List<String> names;
    final double[] entitled;
    final long[] cpu;
    long slices;
    long total;
    /** The sum of the squares of the slices' lengths, in ms² (a double: ns² would overflow a long). */
    double squares;
    long longest;
    /** Time charged to every group of the pool, named or not: the part of the workers' time accounted for. */
    long chargedToAll;
    /** Slices charged to any group. */
    long slicesOfAll;
    /** The longest slice charged to any group. */
    long longestOfAll;
    /** Wall-clock time the window recorded for. */
    long wallNanos;
    final int workers;

    private ShareWindow(SharePolicy policy, List<String> names, double[] entitled, int workers) {
        this.policy = policy;
        this.names = names;
        this.entitled = entitled;
        this.cpu = new long[names.size()];
        this.workers = workers;
    }

    /**
     * Measures the slices charged to the groups named in {@code entitled} (each with its share of
     * their total) of {@code pool}, run by {@code policy}, over {@code millis}: again, up to
     * {@link #ATTEMPTS} windows, while the window is not tight.
     */
    static ShareWindow measure(RotaPool pool, SharePolicy policy, Map<String, Double> entitled, long millis)
            throws InterruptedException {
        return measure(pool, policy, entitled, millis, false);
    }

    /**
     * As {@link #measure}, for a window that must begin now, at a change whose effect it checks: one
     * that is not tight is not replaced by a later one (which would no longer see the change) but
     * goes on recording, by {@code millis} at a time, up to {@link #ATTEMPTS} times {@code millis}.
     */
    static ShareWindow measureFromNow(RotaPool pool, SharePolicy policy, Map<String, Double> entitled, long millis)
            throws InterruptedException {
        return measure(pool, policy, entitled, millis, true);
    }

    private static ShareWindow measure(RotaPool pool, SharePolicy policy, Map<String, Double> entitled, long millis,
                                       boolean extend) throws InterruptedException {
        List<String> names = List.copyOf(entitled.keySet());
        double[] shares = new double[names.size()];
        double sum = 0;
        for (int i = 0; i < shares.length; i++) {
            shares[i] = entitled.get(names.get(i));
            sum += shares[i];
        }
        assertEquals(1.0, sum, 1e-9, "entitlements must add up to 1: " + entitled);
        Dispatcher dispatcher = pool.dispatcher();
        ShareWindow window = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (window == null || !extend) {
                window = new ShareWindow(policy, names, shares, pool.workers());
                ShareWindow recording = window;
                dispatcher.observeSlices((group, used) -> recording.record(group.name(), used));
            }
            long start = System.nanoTime();
            Thread.sleep(millis);
            if (!extend) {
                dispatcher.observeSlices(null);
            }
            window.wallNanos += System.nanoTime() - start;
            ShareWindow measured = window;
            if (dispatcher.read(measured::tight)) {      // under the lock, which orders the observer's writes
                break;
            }
        }
        dispatcher.observeSlices(null);
        dispatcher.read(() -> null);                     // the observer's last writes before our reads
        return window;
    }

    /** Under the dispatcher's lock. */
    private void record(String name, long used) {
        chargedToAll += used;
        slicesOfAll++;
        longestOfAll = Math.max(longestOfAll, used);
        int i = names.indexOf(name);
        if (i < 0) {
            return;
        }
        cpu[i] += used;
        total += used;
        slices++;
        squares += (used / 1e6) * (used / 1e6);
        longest = Math.max(longest, used);
    }

    /** The largest error in charged time that the policy's theory allows a group with share {@code p}. */
    double bound(double p) {
        double inFlight = 2.0 * (workers + 1) * longest;
        if (policy == SharePolicy.STRIDE) {
            return 2.0 * names.size() * workers * longest + inFlight;
        }
        double variance = p * (1 - p) * squares;         // in ms²
        return SIGMAS * Math.sqrt(variance) * 1e6 + inFlight;
    }

    /**
     * The workers' time in the window that no slice charged in it accounts for: mostly a slice still
     * under way at its end, whose length the bounds take to be at most L.
     */
    long uncharged() {
        return workers * wallNanos - chargedToAll;
    }

    /** How far the charged time may exceed the workers' time in the window: the slices begun before it. */
    private double overchargeSlack() {
        return (workers + 1) * longestOfAll + UNCHARGED_SLACK * workers * wallNanos;
    }

    /** How far the charged time may fall short of the workers' time: a slice under way at the end, and picks. */
    private double underchargeSlack() {
        return overchargeSlack() + (double) UNCHARGED_PER_SLICE_NANOS * slicesOfAll;
    }

    /**
     * True when every group's bound is at most {@link #TIGHTNESS} of its entitlement, and the slices
     * under way at the end were no longer than the bounds assume (see the class comment).
     */
    boolean tight() {
        if (total <= 0 || uncharged() > underchargeSlack()) {
            return false;
        }
        for (double p : entitled) {
            if (bound(p) > TIGHTNESS * p * total) {
                return false;
            }
        }
        return true;
    }

    /** Asserts every group's charged time is its share of the total within the bound. */
    void assertShares(String what) {
        List<String> report = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < names.size(); i++) {
            double p = entitled[i];
            double want = total * p;
            double allowed = bound(p);
            boolean within = Math.abs(cpu[i] - want) <= allowed;
            ok &= within;
            report.add(String.format("%s: %.1f ms, entitled %.1f ms ± %.1f ms%s", names.get(i), cpu[i] / 1e6,
                    want / 1e6, allowed / 1e6, within ? "" : "  <-- outside"));
        }
        String message = String.format("%s (%s): %.1f ms charged in %d slices, longest %.2f ms, %.1f ms of the"
                        + " workers' %.1f ms uncharged%n  %s", what, policy, total / 1e6, slices, longest / 1e6,
                uncharged() / 1e6, workers * wallNanos / 1e6, String.join("\n  ", report));
        assertTrue(-uncharged() <= overchargeSlack(), "the pool charged its groups more time than its " + workers
                + " workers had in the window, beyond the slices begun before it: charged time is not the CPU time"
                + " the groups used, so no share of it says how the CPUs were divided: " + message);
        assertTrue(tight(), "the machine was too busy in " + ATTEMPTS + " windows for a bound to mean anything"
                + " (a bound above " + TIGHTNESS + " of an entitlement): " + message);
        assertTrue(ok, message);
    }

    double share(String name) {
        return (double) cpu[names.indexOf(name)] / total;
    }
}
