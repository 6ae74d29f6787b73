#!/usr/bin/env python3
"""Turns JMH JSON result files (-rf json) of Rota's benchmarks into the Markdown tables of
docs/BENCHMARKS.md: for each benchmark method, thread count and set of parameters other than
`pool`, each pool's per-fork means, their median, JMH's mean and 99.9% error, and Rota's ratio to the
other pools (from the medians). Works for any benchmark (ExternalSubmitBenchmark, ForkJoinBenchmark,
ScheduleCancelBenchmark, the group benchmarks, ...); one table per benchmark class, in the unit that
JMH reports (scaled to k or M where the figures are large). A benchmark without a `pool` parameter
(DecisionCostBenchmark) gets the same table without the pool and ratio columns.

Sample-time benchmarks (-bm sample, e.g. TierLatencyBenchmark) are summarized by percentiles instead
of means: each fork's p50, p99 and p99.9, computed from that fork's histogram of samples (all its
measurement iterations), the median of the forks' figures, the same percentiles over every sample of
every fork and run, and Rota's ratio on the p99 medians. Percentiles are interpolated as JMH's are
(the order statistic at p(n + 1)/100, linearly between neighbours), so for one fork they agree with
the p0.50, p0.99 and p0.999 lines that JMH prints.

Several files (runs of the same benchmark, e.g. with the pools in opposite orders) are pooled: the
forks of all runs give one median, and JMH's figures are listed per run. A second table gives Rota's
ratios run by run (median of that run's forks), to show how far the runs agree, and the median of
those ratios: with many short runs that each hold every pool (jmh/paired.sh), the figure least
disturbed by a machine whose speed drifts over minutes.

--ratio PARAM=A/B adds a table of ratios across a parameter: for each row whose PARAM is A, its median
of forks (each percentile, for sample time) over the median of the row that differs only by PARAM = B.

    python3 jmh/summarize.py jmh/target/external-submit.json [more.json ...]
    python3 jmh/summarize.py --ratio load=overload/unloaded jmh/target/tier-latency.json
"""
import json
import math
import statistics
import sys
from collections import defaultdict

ROTA = "rota"
POOL_ORDER = [ROTA, "rota-groups", "rota-unpinned", "forkjoin", "threadpool", "stpe-remove", "stpe"]
# Benchmarks without a pool parameter: one row per parameter set, no ratio.
NO_POOL = ""
SAMPLE = "sample"
PERCENTILES = (50.0, 99.0, 99.9)
# The percentile that sample-time ratios are taken on.
RATIO_PERCENTILE = 99.0


def load(paths):
    """{class: {(method, threads, params): {pool: {"forks": [...], "runs": {i: [...]}, "jmh": [...],
    "samples": {value: count}}}}}, and units and modes by (class, method). A fork's figure is its mean, or for sample time a dict
    {percentile: value} from its histogram."""
    classes = defaultdict(lambda: defaultdict(lambda: defaultdict(
        lambda: {"forks": [], "runs": defaultdict(list), "jmh": [], "samples": defaultdict(int)})))
    units = {}
    modes = {}
    for run, path in enumerate(paths):
        with open(path) as f:
            for r in json.load(f):
                cls, method = r["benchmark"].rsplit(".", 1)
                cls = cls.rsplit(".", 1)[1]
                params = dict(r.get("params", {}))
                pool = params.pop("pool", NO_POOL)
                key = (method, r["threads"], tuple(sorted(params.items())))
                row = classes[cls][key][pool]
                metric = r["primaryMetric"]
                if r["mode"] == SAMPLE:
                    forks = []
                    for fork in metric["rawDataHistogram"]:
                        merged = defaultdict(int)
                        for iteration in fork:
                            for value, count in iteration:
                                merged[value] += count
                                row["samples"][value] += count
                        forks.append({p: percentile(merged, p) for p in PERCENTILES})
                else:
                    forks = [statistics.mean(fork) for fork in metric["rawData"]]
                row["forks"] += forks
                row["runs"][run] += forks
                row["jmh"].append((metric["score"], metric["scoreError"]))
                units[(cls, method)] = metric["scoreUnit"]
                modes[(cls, method)] = r["mode"]
    return classes, units, modes


def percentile(histogram, p):
    """The p-th percentile of {value: count}: the order statistic at rank p(n + 1)/100, interpolated
    linearly between its neighbours (JMH's estimate)."""
    items = sorted(histogram.items())
    n = sum(count for _, count in items)
    pos = p * (n + 1) / 100
    if pos < 1:
        return items[0][0]
    if pos >= n:
        return items[-1][0]
    lower_rank = math.floor(pos)
    d = pos - lower_rank

    def at(rank):
        seen = 0
        for value, count in items:
            seen += count
            if seen >= rank:
                return value
        return items[-1][0]

    lower = at(lower_rank)
    return lower + d * (at(lower_rank + 1) - lower)


def natural(item):
    """Sort key of a (method, threads, params) row: numbers in parameters compare as numbers (3 < 16 < 256)."""
    (method, threads, params), _ = item

    def value(v):
        try:
            return (0, float(v), "")
        except ValueError:
            return (1, 0.0, v)
    return (method, threads, tuple((name, value(v)) for name, v in params))


def median_of(forks):
    """Median of fork figures: of the means, or percentile by percentile."""
    if isinstance(forks[0], dict):
        return {p: statistics.median(f[p] for f in forks) for p in forks[0]}
    return statistics.median(forks)


def headline(figure):
    """The figure ratios are taken on: the mean, or the p99 of a sample-time fork."""
    return figure[RATIO_PERCENTILE] if isinstance(figure, dict) else figure


def scale_for(values):
    top = max(max(v.values()) if isinstance(v, dict) else v for v in values)
    if top >= 1e6:
        return 1e6, "M "
    if top >= 1e4:
        return 1e3, "k "
    return 1, ""


def fmt(x, scale):
    x = float(x)                                     # JMH writes "NaN" as a string (one fork: no error)
    if x != x:
        return "NaN"
    v = x / scale
    return f"{v:.2f}" if abs(v) < 100 else f"{v:.1f}"


def ordered(pools):
    return [p for p in POOL_ORDER if p in pools] + sorted(set(pools) - set(POOL_ORDER))


def ratio(medians, pool):
    if ROTA not in medians or pool == ROTA or headline(medians[pool]) == 0:
        return "—"
    return times(headline(medians[ROTA]) / headline(medians[pool]))


def times(x):
    """A ratio with two decimals, or two significant digits where it is below 0.1."""
    return f"{x:.2g}×" if x < 0.1 else f"{x:.2f}×"


def has_pools(groups):
    return any(pool != NO_POOL for pools in groups.values() for pool in pools)


def pct_name(p):
    return f"p{p:g}"


def param_names(groups):
    names = []
    for (_, _, params) in groups:
        for name, _ in params:
            if name not in names:
                names.append(name)
    return names


def print_class(cls, groups, unit, mode):
    names = param_names(groups)
    pooled = has_pools(groups)
    all_forks = [m for pools in groups.values() for row in pools.values() for m in row["forks"]]
    sample = mode == SAMPLE
    # Latencies span microseconds to tens of milliseconds: kept in JMH's unit, unscaled.
    scale, prefix = (1, "") if sample else scale_for(all_forks)
    print(f"### {cls} ({prefix}{unit}{', sample time' if sample else ''})")
    print()
    head = ["benchmark", "threads"] + names + (["pool"] if pooled else [])
    if sample:
        tail = [f"per-fork {pct_name(p)}" for p in PERCENTILES] + [
            "median of forks " + " / ".join(pct_name(p) for p in PERCENTILES),
            "all samples " + " / ".join(pct_name(p) for p in PERCENTILES) + " (n)"]
        if pooled:
            tail.append(f"Rota ÷ this pool ({pct_name(RATIO_PERCENTILE)})")
    else:
        tail = ["per-fork means", "median of forks", "JMH mean ± 99.9% error (per run)"] + (
            ["Rota ÷ this pool"] if pooled else [])
    print("| " + " | ".join(head + tail) + " |")
    print("|" + "---|" * len(head + tail))
    for (method, threads, params), pools in sorted(groups.items(), key=natural):
        values = dict(params)
        medians = {pool: median_of(row["forks"]) for pool, row in pools.items()}
        for pool in ordered(pools):
            row = pools[pool]
            cells = [method, str(threads)] + [str(values.get(n, "")) for n in names] + ([pool] if pooled else [])
            if sample:
                m = medians[pool]
                n = sum(row["samples"].values())
                cells += [", ".join(fmt(f[p], scale) for f in row["forks"]) for p in PERCENTILES]
                cells += ["**" + " / ".join(fmt(m[p], scale) for p in PERCENTILES) + "**",
                          " / ".join(fmt(percentile(row["samples"], p), scale) for p in PERCENTILES) + f" ({n})"]
            else:
                cells += [
                    ", ".join(fmt(m, scale) for m in row["forks"]),
                    f"**{fmt(medians[pool], scale)}**",
                    "; ".join(f"{fmt(s, scale)} ± {fmt(e, scale)}" for s, e in row["jmh"]),
                ]
            if pooled:
                cells.append(ratio(medians, pool))
            print("| " + " | ".join(cells) + " |")
    print()
    runs = sorted({run for pools in groups.values() for row in pools.values() for run in row["runs"]})
    if len(runs) > 1 and pooled:
        lines = []
        for (method, threads, params), pools in sorted(groups.items(), key=natural):
            if ROTA not in pools:
                continue
            values = dict(params)
            for pool in ordered(pools):
                if pool == ROTA:
                    continue
                per_run = []
                numbers = []
                for run in runs:
                    mine, theirs = pools[ROTA]["runs"].get(run), pools[pool]["runs"].get(run)
                    if mine and theirs:
                        numbers.append(headline(median_of(mine)) / headline(median_of(theirs)))
                        per_run.append(times(numbers[-1]))
                    else:
                        per_run.append("—")
                middle = times(statistics.median(numbers)) if numbers else "—"
                cells = ([method, str(threads)] + [str(values.get(n, "")) for n in names]
                         + [pool, " / ".join(per_run), f"**{middle}**"])
                lines.append("| " + " | ".join(cells) + " |")
        if lines:
            print("Rota ÷ this pool, run by run (median of each run's forks"
                  + (f", {pct_name(RATIO_PERCENTILE)}" if sample else "") + "):")
            print()
            print("| benchmark | threads | " + " | ".join(names) + (" | " if names else "")
                  + "pool | " + " / ".join(f"run {i + 1}" for i in runs) + " | median of the runs |")
            print("|---|---|" + "---|" * len(names) + "---|---|---|")
            for line in lines:
                print(line)
            print()


def print_ratios(cls, groups, param, numerator, denominator):
    """Ratios across one parameter: rows with param = numerator over the row alike but for param = denominator."""
    names = [n for n in param_names(groups) if n != param]
    pooled = has_pools(groups)
    lines = []
    for (method, threads, params), pools in sorted(groups.items(), key=natural):
        values = dict(params)
        if values.get(param) != numerator:
            continue
        other = (method, threads, tuple(sorted({**values, param: denominator}.items())))
        if other not in groups:
            continue
        for pool in ordered(pools):
            if pool not in groups[other]:
                continue
            top, bottom = median_of(pools[pool]["forks"]), median_of(groups[other][pool]["forks"])
            if isinstance(top, dict):
                figure = " / ".join(times(top[p] / bottom[p]) for p in PERCENTILES)
            else:
                figure = times(top / bottom)
            cells = [method, str(threads)] + [str(values.get(n, "")) for n in names] + ([pool] if pooled else [])
            lines.append("| " + " | ".join(cells + [figure]) + " |")
    if not lines:
        return
    sample = any(isinstance(row["forks"][0], dict) for pools in groups.values() for row in pools.values())
    what = " / ".join(pct_name(p) for p in PERCENTILES) if sample else "median of forks"
    print(f"{cls}: {param} = {numerator} ÷ {param} = {denominator} ({what}, medians of forks):")
    print()
    head = ["benchmark", "threads"] + names + (["pool"] if pooled else []) + [f"{numerator} ÷ {denominator}"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for line in lines:
        print(line)
    print()


def main(paths, ratios):
    classes, units, modes = load(paths)
    for cls in sorted(classes):
        # One table per set of parameter names: methods with parameters of their own (ForkJoinBenchmark's
        # fibonacci and arraySum) get a table each, without the other's empty columns.
        # Methods of another mode or unit (TierLatencyBenchmark's sample-time and throughput methods)
        # get a table each too.
        by_names = defaultdict(dict)
        for key, pools in classes[cls].items():
            method = key[0]
            kind = (tuple(name for name, _ in key[2]), modes[(cls, method)], units[(cls, method)])
            by_names[kind][key] = pools
        for (names, mode, unit), groups in sorted(by_names.items()):
            methods = sorted({method for method, _, _ in groups})
            title = cls if len(by_names) == 1 else f"{cls}: {', '.join(methods)}"
            print_class(title, groups, unit, mode)
            for param, numerator, denominator in ratios:
                print_ratios(title, groups, param, numerator, denominator)


def parse_args(args):
    paths, ratios = [], []
    i = 0
    while i < len(args):
        if args[i] == "--ratio":
            if i + 1 >= len(args):
                sys.exit("--ratio needs PARAM=A/B")
            try:
                param, pair = args[i + 1].split("=", 1)
                numerator, denominator = pair.split("/", 1)
            except ValueError:
                sys.exit(f"--ratio needs PARAM=A/B, not {args[i + 1]}")
            ratios.append((param, numerator, denominator))
            i += 2
        else:
            paths.append(args[i])
            i += 1
    return paths, ratios


if __name__ == "__main__":
    paths, ratios = parse_args(sys.argv[1:])
    if not paths:
        sys.exit("usage: summarize.py [--ratio PARAM=A/B ...] RESULT.json [RESULT.json ...]")
    main(paths, ratios)
