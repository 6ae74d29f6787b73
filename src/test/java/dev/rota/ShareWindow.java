package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.rota.core.Dispatcher;
import dev.rota.share.LotteryScheduler;
import dev.rota.share.StrideScheduler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
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
 *   <li>stride: while the groups' values stay as they are and each keeps competing, a group's
 *       error over a window is exactly the difference of its standing at the window's end and at
 *       its start, where its standing is the time it has been charged beyond its share of the time
 *       charged to the groups named: (pass − p-weighted mean of the named groups' passes) ×
 *       quantum / stride. At the end, the standing is at most k·W·L, since two groups' charged
 *       times divided by their values differ by at most W·L / (the smaller value) once any debt
 *       from before the window is repaid (a group is picked only when its pass is least, and at
 *       most W of its slices can be under way uncharged), and by no more than the debts at the
 *       start, D = the largest standing then, while it is not. The standing at the start is read
 *       from the ledger as the window begins: the slices before the window set it, not the
 *       window's L (a warm-up slice of several quanta, or a pause of every worker during one
 *       group's slices, leaves that group ahead by their length until the others have caught up).
 *       A group's error is thus at most its start standing + D + k·W·L. Where values change in
 *       the window (a loan that comes and goes) the difference is no longer exact, so the start
 *       term is never taken below the theory's k·W·L for an instant: the bound is
 *       max(k·W·L, start standing + D) + k·W·L.</li>
 *   <li>lottery: each of the N slices is won by a group with probability p, whatever its length
 *       x<sub>i</sub> (every group here runs the same tasks), so the group's time less p·T,
 *       Σ (won<sub>i</sub> − p)·x<sub>i</sub>, has mean 0 and variance p·(1 − p)·Σ x<sub>i</sub>²
 *       over the slices measured (with equal slices, the binomial N·p·(1 − p) in quanta). The test
 *       allows 5 standard deviations: by the normal approximation, which the tightness rule below
 *       keeps valid (N·p ≥ 100·(1 − p) for equal slices), a correct policy fails one group's check
 *       with probability below 6·10<sup>−7</sup>. The draws have a memory of what came before
 *       the window, read from the ledger as it begins: a group that overran its last quantum
 *       f-fold competes at 1/f of its value until its next win, which comes f times later than
 *       its usual geometric wait: it loses (f − 1)·(1 − p) quanta in expectation, allowed up to 14.3
 *       times that ({@link #GEOMETRIC_TAIL}, the same level); and each win a group is owed or
 *       was advanced (its mask kept it from a draw it won, LotteryScheduler) moves one slice,
 *       L.</li>
 *   <li>a window that begins at a change ({@link #measureFromNow}) does not read what the change
 *       must get right, as that would absorb the very error the window looks for: stride's
 *       standings (a new value keeps each group's position in its own quanta, a released mask
 *       forgives credit) and lottery's deferred wins (a released mask forgives them). It takes
 *       k·W·L for stride's start instead, as the theory gives it for every instant, and thus
 *       assumes the slices just before the change were no longer than the window's own. A
 *       window whose entitlements are not its groups' stride shares does the same: a mask that
 *       holds a group below its tickets' share leaves it a credit that stands for nothing the
 *       window is owed.</li>
 *   <li>both: plus the slices in flight at either end of the window, 2·(W + 1)·L (a spare thread
 *       may stand in for a worker that waits). A slice under way at the end is charged after the
 *       window, so L cannot show it: the window checks instead that the workers' time it did not
 *       charge, W times its length less the time T<sub>all</sub> charged to every group of the
 *       pool (named or not) and less the time the workers' paced looks gave to other threads (the
 *       pool counts it, and charges it to no group), is at most (W + 1)·L<sub>all</sub> plus 1 %
 *       for queues and 5 µs per slice for its pick and hand-off, where L<sub>all</sub> is the
 *       longest slice of any group. A
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
 * good part of it, making L long, or the window began with a large debt) is measured again, or,
 * for a window that must begin at a change ({@link #measureFromNow}), lengthened, up to
 * {@link #ATTEMPTS} times; the rule depends on the slices' count and lengths and on the start
 * only, not on which group got the slices, so retrying selects no outcome. If none is tight, the
 * window tells who stretched its slices. Slices are charged by the wall clock; the CPU time the
 * pool's threads got, read from the JVM, falls short of the time charged by what the machine took
 * during the slices (a host's steal time, another process, the JVM's compiler). If the window would
 * have been tight with no slice over four quanta ({@link #STRETCH_CAP_QUANTA}), in its L and in
 * lottery's variance alike (one slice the host stretched to 90 ms weighs as much in
 * Σ x<sub>i</sub>² as 30,000 slices of half a millisecond), and the machine took at least half of
 * what the slices ran beyond two quanta, the test is aborted, as one that needs two CPUs is where there are fewer: nothing can be measured
 * there. So is one during which the host stole {@link #HOST_STEAL_TOO_MUCH} of the machine's CPU
 * time or more (Linux's steal time): a guest may count stolen time as its threads' own, which hides
 * it from the comparison above. So is one during which other processes used {@link #OTHERS_TOO_MUCH}
 * of this process's CPUs' time or more ({@link OtherProcesses}): they stretch the gaps between slices as
 * well as the slices, and leave debts that the next window starts from. Otherwise it fails: the
 * pool's slices are too long, or the window was loose for another reason (time left uncharged, a debt
 * at its start).
 */
final class ShareWindow {
    /**
     * Windows measured before giving up on a machine too busy to measure anything. A virtual machine
     * whose host takes its CPUs away for tens of ms at a time (steal time of 5–15 % was seen) leaves
     * many windows with a slice stretched that long, and so not tight; ten windows give such a machine
     * a fair chance of a quiet one, and cost nothing where the first is tight.
     */
    static final int ATTEMPTS = 10;
    /**
     * The part of the machine's CPU time the host may steal during a window that is not tight before
     * the test is aborted rather than failed: runs with 7–14 % steal over the whole suite measured
     * fine; this is well above that.
     */
    static final double HOST_STEAL_TOO_MUCH = 0.2;
    /**
     * The part of this process's CPUs' time other processes may use during a window that is not
     * tight before the test is aborted rather than failed: on an otherwise idle machine they used
     * 0–4 % of it (the figure's resolution is a tick of 10 ms per CPU), and a test suite run beside
     * this one took more than half of the time that the pool's slices were charged.
     */
    static final double OTHERS_TOO_MUCH = 0.2;
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
    /**
     * The longest slice, in quanta, that the pool itself makes (a quantum, a task begun at its end,
     * and the odd pause): a window loose only through slices longer than this, while the machine
     * took at least half of what its slices ran beyond two quanta, is aborted (see the class
     * comment).
     */
    static final long STRETCH_CAP_QUANTA = 4;
    /** Standard deviations the lottery bound allows. */
    static final double SIGMAS = 5;
    /**
     * Means of a geometric wait the lottery bound allows a deflated group: e<sup>−14.3</sup> is
     * 6·10<sup>−7</sup>, the level of {@link #SIGMAS}.
     */
    static final double GEOMETRIC_TAIL = 14.3;

    final SharePolicy policy;
    final List<String> names;
    final double[] entitled;
    final long[] cpu;
    long slices;
    long total;
    /** The sum of the squares of the slices' lengths, in ms² (a double: ns² would overflow a long). */
    double squares;
    /** As {@link #squares}, with each slice taken as at most {@link #STRETCH_CAP_QUANTA} quanta long. */
    double squaresCapped;
    long longest;
    /** Time charged to every group of the pool, named or not: the part of the workers' time accounted for. */
    long chargedToAll;
    /** Slices charged to any group. */
    long slicesOfAll;
    /** The longest slice charged to any group. */
    long longestOfAll;
    /** What the slices charged to any group lasted beyond two quanta, summed. */
    long stretchOfAll;
    /** When the window began recording, and for how long it has, both read under the dispatcher's lock. */
    long since;
    long wallNanos;
    /** CPU time the pool's threads (workers, spares, timer) had used as the window began, and got since. */
    long poolCpuSince;
    long poolCpuNanos;
    /** {@link HostSteal} at the start of the window, then what the host took from all CPUs during it. */
    long stealSince;
    long stolenNanos;
    /**
     * {@code Engine.yieldedNanos()} at the start of the window, then what the workers' paced looks
     * gave to other threads during it: no slice's time, as the pool charges none of it.
     */
    long yieldedSince;
    long yieldedNanos;
    /**
     * {@link OtherProcesses} at the start of the window, then what other processes used of this
     * process's CPUs during it; -1 where either end could not be read.
     */
    long othersSince;
    long othersNanos;
    final int workers;
    final long quantumNanos;
    /**
     * Stride only: each group's standing at the window's start, in ns (see the class comment); null
     * where the start term is the theory's.
     */
    double[] startStanding;
    /** Lottery only: what each group's deflation at the start may cost it in the window, in ns. */
    final double[] deflation;
    /** Lottery only: each group's deferred wins at the start, owed or advanced (0 where not read). */
    final int[] deferredWins;

    ShareWindow(SharePolicy policy, List<String> names, double[] entitled, int workers, long quantumNanos) {
        this.policy = policy;
        this.names = names;
        this.entitled = entitled;
        this.cpu = new long[names.size()];
        this.workers = workers;
        this.quantumNanos = quantumNanos;
        this.deflation = new double[names.size()];
        this.deferredWins = new int[names.size()];
    }

    /**
     * Measures the slices charged to the groups named in {@code entitled} (each with its share of
     * their total) of {@code pool}, run by {@code policy}, over {@code millis}: again, up to
     * {@link #ATTEMPTS} windows, while the window is not tight. The policy's state at each window's
     * start is read from the ledger (see the class comment).
     */
    static ShareWindow measure(RotaPool pool, SharePolicy policy, Map<String, Double> entitled, long millis)
            throws InterruptedException {
        return measure(pool, policy, entitled, millis, false, true);
    }

    /**
     * As {@link #measure}, for a window that must begin now, at a change whose effect it checks: one
     * that is not tight is not replaced by a later one (which would no longer see the change) but
     * goes on recording, by {@code millis} at a time, up to {@link #ATTEMPTS} times {@code millis}.
     * What the change must get right (stride's standings, lottery's deferred wins) is not read at
     * the start but taken from the theory.
     */
    static ShareWindow measureFromNow(RotaPool pool, SharePolicy policy, Map<String, Double> entitled, long millis)
            throws InterruptedException {
        return measure(pool, policy, entitled, millis, true, false);
    }

    /**
     * As {@link #measureFromNow}, for a window that must begin now but at no change: it reads its
     * start as {@link #measure} does, to check the repayment of what it finds there.
     */
    static ShareWindow measureFromNowReadingStart(RotaPool pool, SharePolicy policy, Map<String, Double> entitled,
                                                  long millis) throws InterruptedException {
        return measure(pool, policy, entitled, millis, true, true);
    }

    private static ShareWindow measure(RotaPool pool, SharePolicy policy, Map<String, Double> entitled, long millis,
                                       boolean fromNow, boolean readStart) throws InterruptedException {
        List<String> names = List.copyOf(entitled.keySet());
        double[] shares = new double[names.size()];
        double sum = 0;
        for (int i = 0; i < shares.length; i++) {
            shares[i] = entitled.get(names.get(i));
            sum += shares[i];
        }
        assertEquals(1.0, sum, 1e-9, "entitlements must add up to 1: " + entitled);
        Dispatcher dispatcher = pool.dispatcher();
        int[] clients = new int[names.size()];
        for (int i = 0; i < clients.length; i++) {
            String name = names.get(i);
            clients[i] = pool.groups().stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow()
                    .core.client().id();
        }
        long quantum = pool.quantum().toNanos();
        ShareWindow window = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (window == null || !fromNow) {
                ShareWindow recording = new ShareWindow(policy, names, shares, pool.workers(), quantum);
                dispatcher.readLedger(ledger -> {        // no slice is charged between these
                    dispatcher.observeSlices((group, used) -> recording.record(group.name(), used));
                    recording.since = System.nanoTime();
                    recording.yieldedSince = pool.engine().yieldedNanos();
                    if (ledger.scheduler() instanceof StrideScheduler stride) {
                        recording.startStanding = readStart ? standings(stride, clients, shares, quantum) : null;
                    } else {
                        recording.readLotteryStart((LotteryScheduler) ledger.scheduler(), clients, quantum, readStart);
                    }
                    return null;
                });
                recording.poolCpuSince = poolCpuTime(pool);
                recording.othersSince = OtherProcesses.cpuNanosSoFar();
                recording.stealSince = HostSteal.nanosSoFar();
                window = recording;
            }
            Thread.sleep(millis);
            ShareWindow measured = window;
            boolean tight = dispatcher.read(() -> {      // under the lock, which orders the observer's writes
                if (!fromNow) {
                    dispatcher.observeSlices(null);      // a window that may be replaced ends here
                }
                measured.wallNanos = System.nanoTime() - measured.since;
                measured.yieldedNanos = pool.engine().yieldedNanos() - measured.yieldedSince;
                measured.stolenNanos = HostSteal.nanosSoFar() - measured.stealSince;
                return measured.tight();
            });
            measured.poolCpuNanos = poolCpuTime(pool) - measured.poolCpuSince;
            measured.othersNanos = othersSince(measured.othersSince);
            if (tight) {
                break;
            }
        }
        ShareWindow last = window;
        dispatcher.read(() -> {                          // the observer's last writes before our reads
            if (fromNow) {
                dispatcher.observeSlices(null);          // a window that was lengthened ends here
                last.wallNanos = System.nanoTime() - last.since;
                last.yieldedNanos = pool.engine().yieldedNanos() - last.yieldedSince;
            }
            return null;
        });
        if (fromNow) {
            last.poolCpuNanos = poolCpuTime(pool) - last.poolCpuSince;
            last.othersNanos = othersSince(last.othersSince);
            last.stolenNanos = HostSteal.nanosSoFar() - last.stealSince;
        }
        return last;
    }

    /** What other processes used of this process's CPUs since {@code since} was read; -1 if unknown. */
    private static long othersSince(long since) {
        long now = OtherProcesses.cpuNanosSoFar();
        return since < 0 || now < 0 ? -1 : now - since;
    }

    /** The CPU time the threads of {@code pool} have used so far (those alive now). */
    private static long poolCpuTime(RotaPool pool) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String prefix = pool.name() + "-";
        long sum = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    /**
     * At least the time the machine took from the pool's threads during the slices charged in the
     * window (the host's steal, other processes, the JVM's compiler): slices are charged by the wall
     * clock, the threads' CPU time counts only what they ran, and their CPU time outside slices (a
     * pick, an idle spin) only lowers the figure.
     */
    long takenDuringSlices() {
        return chargedToAll - poolCpuNanos;
    }

    /**
     * Under the dispatcher's lock: each named group's standing, the time it has been charged beyond
     * its share {@code shares[i]} of the time charged to the groups named, or null where the shares
     * are not those of the groups' strides (a group's mask, not its tickets, sets its share).
     */
    private static double[] standings(StrideScheduler stride, int[] clients, double[] shares, long quantum) {
        int k = clients.length;
        long[] lag = new long[k];
        long[] strides = new long[k];
        double worths = 0;
        for (int i = 0; i < k; i++) {
            if (!stride.isCompeting(clients[i])) {
                return null;                             // no standing among the competing
            }
            lag[i] = stride.remain(clients[i]);          // pass − globalPass
            strides[i] = stride.stride(clients[i]);
            worths += 1.0 / strides[i];
        }
        double mean = 0;                                 // in pass units, relative to globalPass
        for (int i = 0; i < k; i++) {
            double strideShare = (1.0 / strides[i]) / worths;
            if (Math.abs(strideShare - shares[i]) > 0.01 * shares[i]) {
                return null;
            }
            mean += shares[i] * lag[i];
        }
        double[] standing = new double[k];
        for (int i = 0; i < k; i++) {
            standing[i] = (lag[i] - mean) * quantum / strides[i];
        }
        return standing;
    }

    /**
     * Under the dispatcher's lock: each named group's deflation (it overran its last quantum f-fold,
     * and competes at 1/f of its value until its next win) and, with {@code readDeferred}, its
     * deferred wins.
     */
    private void readLotteryStart(LotteryScheduler lottery, int[] clients, long quantum, boolean readDeferred) {
        for (int i = 0; i < clients.length; i++) {
            double overrun = 1 / lottery.compensation(clients[i]);
            if (overrun > 1) {
                deflation[i] = GEOMETRIC_TAIL * (overrun - 1) * (1 - entitled[i]) * quantum;
            }
            deferredWins[i] = readDeferred ? Math.abs(lottery.deferredWins(clients[i])) : 0;
        }
    }

    /** Counts one slice charged to group {@code name}; under the dispatcher's lock in a measured window. */
    void record(String name, long used) {
        chargedToAll += used;
        slicesOfAll++;
        longestOfAll = Math.max(longestOfAll, used);
        stretchOfAll += Math.max(0, used - 2 * quantumNanos);
        int i = names.indexOf(name);
        if (i < 0) {
            return;
        }
        cpu[i] += used;
        total += used;
        slices++;
        squares += (used / 1e6) * (used / 1e6);
        double capped = Math.min(used, STRETCH_CAP_QUANTA * quantumNanos) / 1e6;
        squaresCapped += capped * capped;
        longest = Math.max(longest, used);
    }

    /**
     * The error stride's theory allows a group once the standings at the window's start are repaid,
     * which its error less its start standing, its standing at the end, must keep to: k·W·L and the
     * slices in flight at either end.
     */
    double settledBound() {
        return (double) names.size() * workers * longest + 2.0 * (workers + 1) * longest;
    }

    /** The group's charged time in the window less its entitlement. */
    double error(String name) {
        int i = names.indexOf(name);
        return cpu[i] - entitled[i] * total;
    }

    /** The largest error in charged time that the policy's theory allows group {@code i}. */
    double bound(int i) {
        double inFlight = 2.0 * (workers + 1) * longest;
        if (policy == SharePolicy.STRIDE) {
            double settled = (double) names.size() * workers * longest;
            if (startStanding == null) {
                return 2 * settled + inFlight;
            }
            double debts = 0;
            for (double standing : startStanding) {
                debts = Math.max(debts, Math.abs(standing));
            }
            return Math.max(settled, Math.abs(startStanding[i]) + debts) + settled + inFlight;
        }
        double p = entitled[i];
        double variance = p * (1 - p) * squares;         // in ms²
        return SIGMAS * Math.sqrt(variance) * 1e6 + inFlight + deflation[i] + (double) deferredWins[i] * longest;
    }

    /**
     * The workers' time in the window that no slice charged in it accounts for, less what their paced
     * looks gave to other threads: mostly a slice still under way at its end, whose length the bounds
     * take to be at most L.
     */
    long uncharged() {
        return workers * wallNanos - chargedToAll - yieldedNanos;
    }

    /** How far the charged time may exceed the workers' time in the window: the slices begun before it. */
    private double overchargeSlack() {
        return (workers + 1) * longestOfAll + UNCHARGED_SLACK * workers * wallNanos;
    }

    /**
     * How far the charged time may fall short of the workers' time: a slice under way at the end,
     * picks, and what the host took from the machine ({@link HostSteal}), which is in no slice when
     * it falls between two.
     */
    private double underchargeSlack() {
        return overchargeSlack() + (double) UNCHARGED_PER_SLICE_NANOS * slicesOfAll + stolenNanos;
    }

    /**
     * True when every group's bound is at most {@link #TIGHTNESS} of its entitlement, and the slices
     * under way at the end were no longer than the bounds assume (see the class comment).
     */
    boolean tight() {
        if (total <= 0 || uncharged() > underchargeSlack()) {
            return false;
        }
        for (int i = 0; i < entitled.length; i++) {
            if (bound(i) > TIGHTNESS * entitled[i] * total) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when the window would be tight had no slice charged to the groups named been longer than
     * {@link #STRETCH_CAP_QUANTA} quanta: its bounds with L, and every slice in lottery's variance, at
     * most that. The checks of the time charged keep the measured L<sub>all</sub>: a slice the
     * machine stretched at the window's end is the time left uncharged.
     */
    private boolean tightWithSlicesCapped() {
        long measuredLongest = longest;
        double measuredSquares = squares;
        longest = Math.min(longest, STRETCH_CAP_QUANTA * quantumNanos);
        squares = squaresCapped;
        try {
            return tight();
        } finally {
            longest = measuredLongest;
            squares = measuredSquares;
        }
    }

    /** Asserts every group's charged time is its share of the total within the bound. */
    void assertShares(String what) {
        List<String> report = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < names.size(); i++) {
            double p = entitled[i];
            double want = total * p;
            double allowed = bound(i);
            boolean within = Math.abs(cpu[i] - want) <= allowed;
            ok &= within;
            String start = startStanding != null ? String.format(" (standing %+.1f ms at the start)", startStanding[i] / 1e6)
                    : deflation[i] > 0 || deferredWins[i] > 0 ? String.format(" (%.1f ms for its deflation and %d deferred"
                    + " wins at the start)", (deflation[i] + (double) deferredWins[i] * longest) / 1e6, deferredWins[i]) : "";
            report.add(String.format("%s: %.1f ms, entitled %.1f ms ± %.1f ms%s%s", names.get(i), cpu[i] / 1e6,
                    want / 1e6, allowed / 1e6, start, within ? "" : "  <-- outside"));
        }
        String message = String.format("%s (%s): %.1f ms charged in %d slices, longest %.2f ms, %.1f ms of the"
                        + " workers' %.1f ms uncharged and %.1f ms given away by their paced looks%n  %s", what, policy,
                total / 1e6, slices, longest / 1e6, uncharged() / 1e6, workers * wallNanos / 1e6, yieldedNanos / 1e6,
                String.join("\n  ", report));
        assertTrue(-uncharged() <= overchargeSlack(), "the pool charged its groups more time than its " + workers
                + " workers had in the window, beyond the slices begun before it: charged time is not the CPU time"
                + " the groups used, so no share of it says how the CPUs were divided: " + message);
        if (!tight()) {
            String verdict = "none of " + ATTEMPTS + " windows was tight (a bound above " + TIGHTNESS + " of an"
                    + " entitlement): " + message + String.format("%n  the slices ran %.1f ms beyond two quanta;"
                    + " the machine took at least %.1f ms from the pool's threads during them", stretchOfAll / 1e6,
                    Math.max(0, takenDuringSlices()) / 1e6);
            // A loose bound still holds: it only cannot catch a small error. Shares outside it fail
            // however busy the machine was, rather than be set aside with the windows that say nothing.
            assertTrue(ok, "outside even a loose bound: " + verdict);
            // A slice stretched by the machine is charged time the pool's threads did not run; one
            // stretched by the pool itself (a slice that fails to end at its quantum) is not.
            boolean stretchesMadeItLoose = longestOfAll > STRETCH_CAP_QUANTA * quantumNanos && tightWithSlicesCapped();
            assumeFalse(stretchesMadeItLoose && 2 * takenDuringSlices() >= stretchOfAll,
                    "the machine was too busy for a bound to mean anything: " + verdict);
            // A host that took a large part of every CPU stretches slices and the gaps between them
            // alike (time charged to nobody), and where the guest counts that steal as the threads'
            // own CPU time, takenDuringSlices() cannot see it.
            double machineNanos = (double) Runtime.getRuntime().availableProcessors() * wallNanos;
            double stolen = stolenNanos / machineNanos;
            assumeFalse(stolen >= HOST_STEAL_TOO_MUCH, String.format("the host took %.0f %% of the machine's"
                    + " CPU time during the window (steal time): nothing can be measured: %s", 100 * stolen, verdict));
            // Other processes competing for the CPUs stretch slices and gaps alike, and leave debts
            // that later windows start from; nothing the pool does makes them use more.
            double others = othersNanos / ((double) OtherProcesses.allowedCpuCount() * wallNanos);
            assumeFalse(othersNanos >= 0 && others >= OTHERS_TOO_MUCH, String.format("other processes used %.0f %%"
                    + " of this process's CPUs during the window: nothing can be measured: %s", 100 * others, verdict));
            fail(verdict + ": the pool's own slices, or time left uncharged, or a debt at the start, made the"
                    + " bounds loose");
        }
        assertTrue(ok, message);
    }

    double share(String name) {
        return (double) cpu[names.indexOf(name)] / total;
    }
}
