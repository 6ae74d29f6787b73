package dev.rota;

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
 * slice observer, so its sums are exact and its longest slice is that of the window itself. A
 * window in which one slice is so long that no bound could mean anything (the machine took the CPU
 * away from a worker for a good part of the window) is measured again, up to {@link #ATTEMPTS}
 * times.
 *
 * <p>Bounds, for a window with total charged time T, N slices of mean length m, the longest slice
 * charged L, W workers and k groups competing:
 * <ul>
 *   <li>stride: at every instant two groups' charged times divided by their values differ by at
 *       most W·L / (the smaller value), since a group is picked only when its pass is least and at
 *       most W of its slices can be under way uncharged; a group's error is then at most k·W·L, and
 *       that of a window, the difference of two instants, twice as much;</li>
 *   <li>lottery: the slices a group wins are binomial (N, p); with slice lengths in [0, L] of mean
 *       m, its time has variance at most N·p·(1 − p)·m² + N·p·m·(L − m) (the second term bounds the
 *       spread of the lengths), and the test allows 5 standard deviations, plus the in-flight slices
 *       at both ends, 2·(W + 1)·L.</li>
 * </ul>
 */
final class ShareWindow {
    /** Windows measured before giving up on a machine too busy to measure anything. */
    static final int ATTEMPTS = 5;
    /** A window must hold this many times its longest slice for its bound to mean something. */
    static final int SLICES_PER_WINDOW = 20;

    final List<String> names;
    final long[] cpu;
    long slices;
    long total;
    long longest;
    final int workers;

    private ShareWindow(List<String> names, int workers) {
        this.names = names;
        this.cpu = new long[names.size()];
        this.workers = workers;
    }

    /** Measures the slices charged to the groups {@code names} of {@code pool} over {@code millis}. */
    static ShareWindow measure(RotaPool pool, List<String> names, long millis) throws InterruptedException {
        ShareWindow window = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            window = new ShareWindow(names, pool.workers());
            ShareWindow recording = window;
            Dispatcher dispatcher = pool.dispatcher();
            dispatcher.observeSlices((group, used) -> recording.record(group.name(), used));
            Thread.sleep(millis);
            dispatcher.observeSlices(null);
            dispatcher.read(() -> null);                 // the lock orders the observer's writes before our reads
            if (window.total > SLICES_PER_WINDOW * window.longest) {
                return window;
            }
        }
        return window;
    }

    /** Under the dispatcher's lock. */
    private void record(String name, long used) {
        int i = names.indexOf(name);
        if (i < 0) {
            return;
        }
        cpu[i] += used;
        total += used;
        slices++;
        longest = Math.max(longest, used);
    }

    /** The largest error in charged time that {@code policy}'s theory allows a group with share {@code p}. */
    double bound(SharePolicy policy, double p) {
        double inFlight = 2.0 * (workers + 1) * longest;
        if (policy == SharePolicy.STRIDE) {
            return 2.0 * names.size() * workers * longest + inFlight;
        }
        double mean = (double) total / Math.max(1, slices);
        double variance = slices * p * (1 - p) * mean * mean + slices * p * mean * Math.max(0, longest - mean);
        return 5 * Math.sqrt(variance) + inFlight;
    }

    /** Asserts every group's charged time is its share of the total within the bound. */
    void assertShares(SharePolicy policy, Map<String, Double> expected, String what) {
        List<String> report = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < names.size(); i++) {
            double p = expected.get(names.get(i));
            double want = total * p;
            double allowed = bound(policy, p);
            boolean within = Math.abs(cpu[i] - want) <= allowed;
            ok &= within;
            report.add(String.format("%s: %.1f ms, entitled %.1f ms ± %.1f ms%s", names.get(i), cpu[i] / 1e6,
                    want / 1e6, allowed / 1e6, within ? "" : "  <-- outside"));
        }
        String message = String.format("%s (%s): %.1f ms charged in %d slices, longest %.2f ms%n  %s", what, policy,
                total / 1e6, slices, longest / 1e6, String.join("\n  ", report));
        assertTrue(total > SLICES_PER_WINDOW * longest,
                "the machine was too busy in " + ATTEMPTS + " windows for a bound to mean anything: " + message);
        assertTrue(ok, message);
    }

    double share(String name) {
        return (double) cpu[names.indexOf(name)] / total;
    }
}
