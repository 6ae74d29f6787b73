#!/usr/bin/env bash
# The scaling figures: Rota beside the JDK's pools at 1, 2, 4, 8 and 16 workers, one fork per trial,
# short enough for a machine lent for a few minutes (docs/BENCHMARKS.md, "Scaling over 1–16 workers").
#
#   jmh/scaling.sh bundle          here: builds Rota and jmh/target/device (benchmarks.jar, the commit it
#                                  was built from, and a JDK 25 runtime made by jlink: 47 MB in all), for
#                                  a machine without a JDK 25
#   jmh/scaling.sh submit OUTDIR   ExternalSubmit (rota, forkjoin, threadpool) and ForkJoin (rota,
#                                  forkjoin): 50 trials, about 5 minutes
#   jmh/scaling.sh groups OUTDIR   GroupOverhead (rota, rota-groups, forkjoin, threadpool): 40 trials,
#                                  about 4 minutes
#
# submit and groups run jmh/target/device's jar on its runtime, and write, per benchmark, JMH's JSON and
# its text output (with the GroupStats and WorkerStats lines), and machine.txt (CPUs, memory, kernel,
# the runtime, and the commit the jar was built from).
# Summarize them anywhere with: python3 jmh/summarize.py OUTDIR/*.json
# Each trial runs 2 warm-up and 3 measured iterations of 1 s; the sets are split in two so that each
# fits in one 10-minute command. W = 16 with two submitters wants 18 CPUs: on a 16-core machine that
# row is oversubscribed by two threads, as W = 2 is on 2 vCPUs.
set -euo pipefail

script=$(realpath "$0")
if [ $# -eq 2 ]; then
    mkdir -p "$2"
    set -- "$1" "$(realpath "$2")"               # OUTDIR as given, before the cd below
fi
cd "$(dirname "$script")/.."
device=jmh/target/device
workers=${SCALING_WORKERS:-1,2,4,8,16}   # SCALING_WORKERS=1 for a quick try of the script
trial=(-f 1 -wi 2 -i 3 -w 1s -r 1s -p "workers=$workers")

usage() {
    sed -n '2,10p' "$script" >&2
    exit 2
}

machine() {
    {
        echo "date: $(date -u +%FT%TZ)"
        echo "nproc: $(nproc)"
        echo "kernel: $(uname -srm)"
        grep -m1 'model name' /proc/cpuinfo || true
        grep -E '^(MemTotal|MemAvailable)' /proc/meminfo || true
        echo "allowed CPUs: $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
        echo "benchmarks.jar built from: $(cat "$device/commit.txt" 2>/dev/null || echo unknown)"
        "$device/jdk/bin/java" -version 2>&1
    } > "$1/machine.txt"
}

bench() {
    local out=$1 name=$2
    shift 2
    echo "== $name: $*" >&2
    "$device/jdk/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
        -jar "$device/benchmarks.jar" "$@" "${trial[@]}" -rf json -rff "$out/$name.json" > "$out/$name.txt" 2>&1 \
        || { tail -n 40 "$out/$name.txt" >&2; return 1; }
}

runs() {
    local out=$1
    if [ ! -x "$device/jdk/bin/java" ] || [ ! -f "$device/benchmarks.jar" ]; then
        echo "no $device/jdk or $device/benchmarks.jar: run 'jmh/scaling.sh bundle' first" >&2
        exit 1
    fi
    mkdir -p "$out"
    machine "$out"
}

case "${1:-}" in
    bundle)
        mvn -q -DskipTests install
        mvn -q -f jmh/pom.xml package
        rm -rf "$device"
        mvn -q -f jmh/pom.xml validate exec:exec@device-runtime
        cp jmh/target/benchmarks.jar "$device/benchmarks.jar"
        git describe --always --dirty > "$device/commit.txt"
        du -sh "$device"
        ;;
    submit)
        [ $# -eq 2 ] || usage
        runs "$2"
        bench "$2" external ExternalSubmit -p pool=rota,forkjoin,threadpool
        bench "$2" forkjoin ForkJoinBenchmark -p pool=rota,forkjoin
        ;;
    groups)
        [ $# -eq 2 ] || usage
        runs "$2"
        bench "$2" groups GroupOverhead -p pool=rota,rota-groups,forkjoin,threadpool
        ;;
    *)
        usage
        ;;
esac
