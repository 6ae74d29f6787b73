package dev.rota.bench.groups;

import dev.rota.GroupStats;
import dev.rota.PoolSnapshot;
import dev.rota.SharePolicy;
import dev.rota.TaskGroup;
import dev.rota.bench.Pools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Claim: with stride scheduling, three permanently backlogged task groups of a {@code RotaPool}
 * entitled 3 : 2 : 1 each receive their entitled share of CPU time to within 2 percentage points in
 * every one-second window.
 *
 * <p>Not a JMH benchmark: the figure is an error of shares, not a time, and it is read window by
 * window. A harness in the benchmarks jar, run with {@code jmh/fairness.sh} (arguments below).
 *
 * <p>Design. For each pool in {@code --pools}, one after the other in this JVM:
 * <ul>
 *   <li>The three tiers of {@link Tiers}, gold, silver and bronze with 300, 200 and 100 base
 *       tickets: entitlements 50 %, 33.3 % and 16.7 %. On Rota each is a {@link TaskGroup}
 *       ({@code stride} and {@code lottery} name Rota with {@link SharePolicy#STRIDE} or
 *       {@link SharePolicy#LOTTERY}, quantum 1 ms); on {@code forkjoin} and {@code threadpool} the
 *       three streams go to the one pool, which has no tiers: their shares are the baseline.</li>
 *   <li>Each tier is permanently backlogged: a thread of its own ({@link Feeder#backlog}) keeps
 *       {@code --backlog} tasks of {@code --task-us} µs of CPU-bound work ({@link Work}) outstanding,
 *       topping up every millisecond (2,000 tasks of 50 µs by default: 50 ms of work for two
 *       workers, so no tier runs dry between two top-ups).</li>
 *   <li>After {@code --warmup} windows that are discarded, {@code --windows} windows of
 *       {@code --window-ms} ms. At each window boundary the harness reads, for every tier:
 *       <ul>
 *         <li>on Rota, the group's {@code cpuTimeNanos} from one {@code pool.snapshot()} (all groups
 *             at one instant): the CPU time the pool charged the group, measured around its slices
 *             with {@code System.nanoTime()}: the very figure stride picks by, so its error shows
 *             that the scheduler's books balance, not what the groups received. A slice still
 *             running at a boundary is charged when it ends, so a window may miss up to one
 *             quantum per worker (0.1 % of a 1-s window on two workers);</li>
 *         <li>on every pool, the thread CPU time its tasks consumed, which each task measures itself
 *             ({@code ThreadMXBean.getCurrentThreadCpuTime()} before and after its work), summed per
 *             stream. <b>The claim is judged on this figure</b>: it is what the tasks received,
 *             measured apart from the scheduler, and how a stream's share is measured in a pool
 *             that keeps no such figure.</li>
 *       </ul></li>
 *   <li>Per window and tier: achieved share = the tier's time in the window ÷ all three tiers' time
 *       in the window; error = |achieved share − entitlement|, in percentage points. Reported per
 *       pool: the median and the maximum over all windows and tiers, and each tier's mean share.</li>
 * </ul>
 *
 * <p>What to expect: stride's error between two groups stays within about one quantum, against the
 * 2,000 quanta of CPU time in a window on two workers (a fraction of a point); lottery's slices are
 * drawn at random, so a tier's share over n = 2,000 slices has a standard deviation of
 * sqrt(p(1 − p)/n): 1.1 points for gold (p = 1/2), 0.8 for bronze. The JDK's pools run the three
 * streams first come, first served, so each stream gets about a third whatever its tickets.
 *
 * <p>Arguments (all optional): {@code --pools stride,lottery,forkjoin,threadpool} {@code --workers 2}
 * {@code --windows 30} {@code --warmup 3} {@code --window-ms 1000} {@code --task-us 50}
 * {@code --backlog 2000} {@code --csv FILE} (every window's shares, one line per window and tier).
 * The console output, with the load average before and after each pool, is what docs/bench keeps.
 */
public final class FairnessHarness {
    private static final double[] ENTITLEMENT = entitlements();

    private final String kind;
    private final int workers;
    private final int windows;
    private final int warmup;
    private final long windowNanos;
    private final long taskNanos;
    private final int backlog;

    private FairnessHarness(String kind, Options o) {
        this.kind = kind;
        this.workers = o.workers;
        this.windows = o.windows;
        this.warmup = o.warmup;
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(o.windowMs);
        this.taskNanos = TimeUnit.MICROSECONDS.toNanos(o.taskMicros);
        this.backlog = o.backlog;
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        System.out.printf(Locale.ROOT, "fairness harness: pools %s, workers %d, %d windows of %d ms after %d warm-up windows,"
                        + " tasks of %d µs, backlog %d per tier; work %.3f ns/token; %d CPUs; JDK %s%n",
                String.join(",", options.pools), options.workers, options.windows, options.windowMs, options.warmup,
                options.taskMicros, options.backlog, Work.NANOS_PER_TOKEN, Runtime.getRuntime().availableProcessors(),
                Runtime.version());
        List<Result> results = new ArrayList<>();
        List<String> csv = new ArrayList<>();
        csv.add("pool,window,tier,entitlement,charged_share,task_cpu_share");
        for (String kind : options.pools) {
            results.add(new FairnessHarness(kind, options).run(csv));
        }
        System.out.println();
        System.out.println("| pool | measure | windows | mean share gold / silver / bronze (%) | median error (pp) | max error (pp) |");
        System.out.println("|---|---|---|---|---|---|");
        for (Result r : results) {
            if (r.charged != null) {
                System.out.println(r.row("charged (snapshot)", r.charged));
            }
            System.out.println(r.row("task CPU time", r.taskCpu));
        }
        if (options.csv != null) {
            Files.write(Path.of(options.csv), csv);
        }
    }

    private Result run(List<String> csv) throws InterruptedException {
        boolean rota = kind.equals("stride") || kind.equals("lottery");
        SharePolicy policy = kind.equals("lottery") ? SharePolicy.LOTTERY : SharePolicy.STRIDE;
        System.out.printf(Locale.ROOT, "%n== pool %s (%s), load average before: %s%n", kind,
                rota ? "RotaPool, " + policy + ", quantum 1 ms" : "no tiers", loadAverage());
        Tiers tiers = Tiers.create(rota ? Pools.ROTA : kind, workers, policy, Duration.ofMillis(1),
                TaskGroup.DEFAULT_QUEUE_CAPACITY);
        Feeder[] feeders = new Feeder[Tiers.NAMES.length];
        for (int t = 0; t < feeders.length; t++) {
            feeders[t] = Feeder.backlog(Tiers.NAMES[t] + "-feeder", tiers.executors[t], taskNanos, backlog, true).start();
        }
        double[][] charged = rota ? new double[windows][] : null;
        double[][] taskCpu = new double[windows][];
        long[] lastCharged = null;
        long[] lastCpu = null;
        long deadline = System.nanoTime();
        for (int w = -warmup; w <= windows; w++) {
            if (w > -warmup) {
                deadline += windowNanos;
                long left;
                while ((left = deadline - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(left);
                }
            }
            long[] nowCharged = rota ? chargedNanos(tiers.rota.snapshot()) : null;
            long[] nowCpu = new long[feeders.length];
            for (int t = 0; t < feeders.length; t++) {
                nowCpu[t] = feeders[t].cpuNanos();
            }
            if (w > 0) {
                int i = w - 1;
                taskCpu[i] = shares(nowCpu, lastCpu);
                if (rota) {
                    charged[i] = shares(nowCharged, lastCharged);
                }
                System.out.printf(Locale.ROOT, "window %2d: charged %s  task CPU %s%n", w,
                        rota ? format(charged[i]) : "-", format(taskCpu[i]));
                for (int t = 0; t < feeders.length; t++) {
                    csv.add(String.format(Locale.ROOT, "%s,%d,%s,%.6f,%s,%.6f", kind, w, Tiers.NAMES[t], ENTITLEMENT[t],
                            rota ? String.format(Locale.ROOT, "%.6f", charged[i][t]) : "", taskCpu[i][t]));
                }
            }
            lastCharged = nowCharged;
            lastCpu = nowCpu;
        }
        for (Feeder feeder : feeders) {
            feeder.close();
        }
        List<GroupStats> stats = tiers.stats();
        tiers.close();
        for (int t = 0; t < feeders.length; t++) {
            System.out.printf(Locale.ROOT, "  stream %-7s ran %9d tasks, backlog at a tick %.0f on average, %d rejected%n",
                    Tiers.NAMES[t], feeders[t].completed(), feeders[t].meanOutstanding(), feeders[t].rejected());
        }
        System.out.print(Tiers.describe(stats));
        System.out.printf("   load average after: %s%n", loadAverage());
        Result result = new Result(kind, charged, taskCpu);
        System.out.println(result.summary());
        return result;
    }

    private static long[] chargedNanos(PoolSnapshot snapshot) {
        long[] nanos = new long[Tiers.NAMES.length];
        for (int t = 0; t < nanos.length; t++) {
            String name = Tiers.NAMES[t];
            nanos[t] = snapshot.group(name)
                    .orElseThrow(() -> new IllegalStateException("no group " + name + " in " + snapshot))
                    .cpuTimeNanos();
        }
        return nanos;
    }

    /** Each tier's part of the time all tiers received between two readings. */
    private static double[] shares(long[] now, long[] before) {
        double[] delta = new double[now.length];
        double total = 0;
        for (int t = 0; t < now.length; t++) {
            delta[t] = now[t] - before[t];
            total += delta[t];
        }
        if (!(total > 0)) {
            throw new IllegalStateException("no tier received CPU time in a window: " + Arrays.toString(now));
        }
        for (int t = 0; t < delta.length; t++) {
            delta[t] /= total;
        }
        return delta;
    }

    private static String format(double[] shares) {
        StringBuilder out = new StringBuilder();
        for (int t = 0; t < shares.length; t++) {
            out.append(String.format(Locale.ROOT, "%s%5.2f%%", t == 0 ? "" : " ", 100 * shares[t]));
        }
        return out.toString();
    }

    private static double[] entitlements() {
        double total = 0;
        for (long tickets : Tiers.TICKETS) {
            total += tickets;
        }
        double[] e = new double[Tiers.TICKETS.length];
        for (int t = 0; t < e.length; t++) {
            e[t] = Tiers.TICKETS[t] / total;
        }
        return e;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e + ")";
        }
    }

    /** One pool's shares, window by window; {@code charged} is null for the JDK's pools. */
    private record Result(String kind, double[][] charged, double[][] taskCpu) {
        String summary() {
            StringBuilder out = new StringBuilder();
            if (charged != null) {
                out.append(String.format(Locale.ROOT, "   %s charged (snapshot): %s%n", kind, describe(charged)));
            }
            out.append(String.format(Locale.ROOT, "   %s task CPU time:      %s", kind, describe(taskCpu)));
            return out.toString();
        }

        String row(String measure, double[][] shares) {
            double[] errors = errors(shares);
            double[] mean = meanShares(shares);
            return String.format(Locale.ROOT, "| %s | %s | %d | %.2f / %.2f / %.2f | %.2f | %.2f |", kind, measure,
                    shares.length, 100 * mean[0], 100 * mean[1], 100 * mean[2], median(errors), max(errors));
        }

        private static String describe(double[][] shares) {
            double[] errors = errors(shares);
            double[] mean = meanShares(shares);
            return String.format(Locale.ROOT, "mean shares %s; error median %.2f pp, max %.2f pp",
                    FairnessHarness.format(mean), median(errors), max(errors));
        }

        /** |share − entitlement| in percentage points, for every window and tier. */
        private static double[] errors(double[][] shares) {
            double[] errors = new double[shares.length * ENTITLEMENT.length];
            int k = 0;
            for (double[] window : shares) {
                for (int t = 0; t < ENTITLEMENT.length; t++) {
                    errors[k++] = 100 * Math.abs(window[t] - ENTITLEMENT[t]);
                }
            }
            return errors;
        }

        private static double[] meanShares(double[][] shares) {
            double[] mean = new double[ENTITLEMENT.length];
            for (double[] window : shares) {
                for (int t = 0; t < mean.length; t++) {
                    mean[t] += window[t] / shares.length;
                }
            }
            return mean;
        }

        private static double median(double[] values) {
            double[] sorted = values.clone();
            Arrays.sort(sorted);
            int n = sorted.length;
            return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        }

        private static double max(double[] values) {
            return Arrays.stream(values).max().orElse(Double.NaN);
        }
    }

    private static final class Options {
        List<String> pools = List.of("stride", "lottery", Pools.FORK_JOIN, Pools.THREAD_POOL);
        int workers = 2;
        int windows = 30;
        int warmup = 3;
        long windowMs = 1000;
        long taskMicros = 50;
        int backlog = 2000;
        String csv;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after " + name);
                }
                String value = args[++i];
                switch (name) {
                    case "--pools" -> o.pools = List.of(value.split(","));
                    case "--workers" -> o.workers = positive(name, value);
                    case "--windows" -> o.windows = positive(name, value);
                    case "--warmup" -> o.warmup = Integer.parseInt(value);
                    case "--window-ms" -> o.windowMs = positive(name, value);
                    case "--task-us" -> o.taskMicros = positive(name, value);
                    case "--backlog" -> o.backlog = positive(name, value);
                    case "--csv" -> o.csv = value;
                    default -> throw new IllegalArgumentException("unknown option " + name
                            + " (expected --pools, --workers, --windows, --warmup, --window-ms, --task-us, --backlog, --csv)");
                }
            }
            for (String pool : o.pools) {
                if (!List.of("stride", "lottery", Pools.FORK_JOIN, Pools.THREAD_POOL).contains(pool)) {
                    throw new IllegalArgumentException("unknown pool " + pool + " (expected stride, lottery, forkjoin or threadpool)");
                }
            }
            if (o.warmup < 0) {
                throw new IllegalArgumentException("--warmup must be >= 0: " + o.warmup);
            }
            return o;
        }

        private static int positive(String name, String value) {
            int v = Integer.parseInt(value);
            if (v < 1) {
                throw new IllegalArgumentException(name + " must be >= 1: " + value);
            }
            return v;
        }
    }
}
