#!/usr/bin/env python3
"""Turns JMH JSON result files (-rf json) of Rota's benchmarks into the Markdown tables of
docs/BENCHMARKS.md: for each benchmark method, thread count and set of parameters other than
`pool`, each pool's per-fork means, their median, JMH's mean and 99.9% error, and Rota's ratio to the
other pools (from the medians). Works for any benchmark with a `pool` parameter
(ExternalSubmitBenchmark, ForkJoinBenchmark, ScheduleCancelBenchmark, ...); one table per benchmark
class, in the unit that JMH reports (scaled to k or M where the figures are large).

Several files (runs of the same benchmark, e.g. with the pools in opposite orders) are pooled: the
forks of all runs give one median, and JMH's figures are listed per run. A second table gives Rota's
ratios run by run (median of that run's forks), to show how far the runs agree.

    python3 jmh/summarize.py jmh/target/external-submit.json [more.json ...]
"""
import json
import statistics
import sys
from collections import defaultdict

ROTA = "rota"
POOL_ORDER = [ROTA, "rota-unpinned", "forkjoin", "threadpool", "stpe-remove", "stpe"]


def load(paths):
    """{class: {(method, threads, params): {pool: {"forks": [...], "runs": {i: [...]}, "jmh": [...]}}}}, units"""
    classes = defaultdict(lambda: defaultdict(lambda: defaultdict(
        lambda: {"forks": [], "runs": defaultdict(list), "jmh": []})))
    units = {}
    for run, path in enumerate(paths):
        with open(path) as f:
            for r in json.load(f):
                cls, method = r["benchmark"].rsplit(".", 1)
                cls = cls.rsplit(".", 1)[1]
                params = dict(r.get("params", {}))
                pool = params.pop("pool")
                key = (method, r["threads"], tuple(sorted(params.items())))
                row = classes[cls][key][pool]
                metric = r["primaryMetric"]
                forks = [statistics.mean(fork) for fork in metric["rawData"]]
                row["forks"] += forks
                row["runs"][run] += forks
                row["jmh"].append((metric["score"], metric["scoreError"]))
                units[cls] = metric["scoreUnit"]
    return classes, units


def scale_for(values):
    top = max(values)
    if top >= 1e6:
        return 1e6, "M "
    if top >= 1e4:
        return 1e3, "k "
    return 1, ""


def fmt(x, scale):
    if x != x:
        return "NaN"
    v = x / scale
    return f"{v:.2f}" if abs(v) < 100 else f"{v:.1f}"


def ordered(pools):
    return [p for p in POOL_ORDER if p in pools] + sorted(set(pools) - set(POOL_ORDER))


def ratio(medians, pool):
    if ROTA not in medians or pool == ROTA or medians[pool] == 0:
        return "—"
    return f"{medians[ROTA] / medians[pool]:.2f}×"


def param_names(groups):
    names = []
    for (_, _, params) in groups:
        for name, _ in params:
            if name not in names:
                names.append(name)
    return names


def print_class(cls, groups, unit):
    names = param_names(groups)
    all_forks = [m for pools in groups.values() for row in pools.values() for m in row["forks"]]
    scale, prefix = scale_for(all_forks)
    print(f"### {cls} ({prefix}{unit})")
    print()
    print("| benchmark | threads | " + " | ".join(names) + (" | " if names else "")
          + "pool | per-fork means | median of forks | JMH mean ± 99.9% error (per run) | Rota ÷ this pool |")
    print("|---|---|" + "---|" * len(names) + "---|---|---|---|---|")
    for (method, threads, params), pools in sorted(groups.items()):
        values = dict(params)
        medians = {pool: statistics.median(row["forks"]) for pool, row in pools.items()}
        for pool in ordered(pools):
            row = pools[pool]
            cells = [method, str(threads)] + [str(values.get(n, "")) for n in names] + [
                pool,
                ", ".join(fmt(m, scale) for m in row["forks"]),
                f"**{fmt(medians[pool], scale)}**",
                "; ".join(f"{fmt(s, scale)} ± {fmt(e, scale)}" for s, e in row["jmh"]),
                ratio(medians, pool),
            ]
            print("| " + " | ".join(cells) + " |")
    print()
    runs = sorted({run for pools in groups.values() for row in pools.values() for run in row["runs"]})
    if len(runs) > 1:
        print("Rota ÷ this pool, run by run (median of each run's forks):")
        print()
        print("| benchmark | threads | " + " | ".join(names) + (" | " if names else "")
              + "pool | " + " / ".join(f"run {i + 1}" for i in runs) + " |")
        print("|---|---|" + "---|" * len(names) + "---|---|")
        for (method, threads, params), pools in sorted(groups.items()):
            if ROTA not in pools:
                continue
            values = dict(params)
            for pool in ordered(pools):
                if pool == ROTA:
                    continue
                per_run = []
                for run in runs:
                    mine, theirs = pools[ROTA]["runs"].get(run), pools[pool]["runs"].get(run)
                    per_run.append(f"{statistics.median(mine) / statistics.median(theirs):.2f}×"
                                   if mine and theirs else "—")
                cells = [method, str(threads)] + [str(values.get(n, "")) for n in names] + [pool, " / ".join(per_run)]
                print("| " + " | ".join(cells) + " |")
        print()


def main(paths):
    classes, units = load(paths)
    for cls in sorted(classes):
        # One table per set of parameter names: methods with parameters of their own (ForkJoinBenchmark's
        # fibonacci and arraySum) get a table each, without the other's empty columns.
        by_names = defaultdict(dict)
        for key, pools in classes[cls].items():
            by_names[tuple(name for name, _ in key[2])][key] = pools
        for names, groups in sorted(by_names.items()):
            methods = sorted({method for method, _, _ in groups})
            title = cls if len(by_names) == 1 else f"{cls}: {', '.join(methods)}"
            print_class(title, groups, units[cls])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: summarize.py RESULT.json [RESULT.json ...]")
    main(sys.argv[1:])
