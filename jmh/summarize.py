#!/usr/bin/env python3
"""Turns JMH JSON result files (-rf json) of ExternalSubmitBenchmark into the Markdown table of
docs/BENCHMARKS.md: per submitter count and worker count, each pool's per-fork means, their median,
JMH's mean and 99.9% error, and Rota's ratio to the other pools (from the medians).

Several files (runs of the same benchmark, e.g. with the pools in opposite orders) are pooled: the
forks of all runs give one median, and JMH's figures are listed per run.

    python3 jmh/summarize.py jmh/target/external-submit.json [more.json ...]
"""
import json
import statistics
import sys
from collections import defaultdict

ROTA = "rota"
POOL_ORDER = [ROTA, "forkjoin", "threadpool"]


def millions(x):
    return "NaN" if x != x else f"{x / 1e6:.2f}"


def load(paths):
    groups = defaultdict(lambda: defaultdict(lambda: {"forks": [], "jmh": []}))
    for path in paths:
        with open(path) as f:
            for r in json.load(f):
                key = (r["threads"], int(r["params"]["workers"]), r["benchmark"].rsplit(".", 1)[1])
                row = groups[key][r["params"]["pool"]]
                metric = r["primaryMetric"]
                row["forks"] += [statistics.mean(fork) for fork in metric["rawData"]]
                row["jmh"].append(f"{millions(metric['score'])} ± {millions(metric['scoreError'])}")
    return groups


def main(paths):
    groups = load(paths)
    print("| submitters | workers | pool | per-fork means (M tasks/s) | median of forks | JMH mean ± 99.9% error "
          "| Rota ÷ this pool |")
    print("|---|---|---|---|---|---|---|")
    for (threads, workers, method), pools in sorted(groups.items()):
        medians = {pool: statistics.median(row["forks"]) for pool, row in pools.items()}
        for pool in [p for p in POOL_ORDER if p in pools] + sorted(set(pools) - set(POOL_ORDER)):
            row = pools[pool]
            ratio = "—" if ROTA not in medians or pool == ROTA else f"{medians[ROTA] / medians[pool]:.2f}×"
            print(f"| {threads} ({method}) | {workers} | {pool} | {', '.join(millions(m) for m in row['forks'])} "
                  f"| **{millions(medians[pool])}** | {'; '.join(row['jmh'])} | {ratio} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: summarize.py RESULT.json [RESULT.json ...]")
    main(sys.argv[1:])
