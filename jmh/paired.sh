#!/usr/bin/env bash
# Runs one benchmark in many short rounds, each holding every pool (one fork each), and summarizes
# them with Rota's ratio round by round and the median of those ratios.
#
#   jmh/paired.sh ROUNDS BENCHMARK POOLS [JMH arguments]
#   jmh/paired.sh 8 ExternalSubmit rota,forkjoin,threadpool -wi 3 -i 3 -w 1s -r 1s
#
# On a small shared machine (2 vCPUs here) the speed of every pool drifts between two levels over
# minutes, in step (docs/BENCHMARKS.md, "Reading"): a run that measures one pool for minutes, then
# the next, can catch them at different levels. A round here measures each pool for well under a
# minute, back to back, and alternates their order from round to round, so a ratio compares pools
# measured under the same conditions. Results: jmh/target/paired/BENCHMARK-N.json, then the tables.
#
# Rota and jmh/target/benchmarks.jar are built once, before the first round; every round runs that
# jar. Rebuilding it per round would copy in whatever Rota snapshot the shared local Maven repository
# holds at that moment, so that another checkout's install could change the build between rounds.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,11p' "$0" >&2
    exit 2
fi
rounds=$1
bench=$2
pools=$3
shift 3
case "$rounds" in
    ''|*[!0-9]*|0) echo "ROUNDS must be a positive number: $rounds" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
reversed=$(echo "$pools" | tr ',' '\n' | tac | paste -sd, -)
mkdir -p jmh/target/paired
rm -f jmh/target/paired/"$bench"-*.json

mvn -q -DskipTests install
mvn -q -f jmh/pom.xml package
files=()
for round in $(seq 1 "$rounds"); do
    order=$pools
    if [ $((round % 2)) -eq 0 ]; then
        order=$reversed
    fi
    out="target/paired/$bench-$round.json"
    echo "round $round of $rounds: $order"
    # validate selects the JDK 25 toolchain that exec:exec launches; no rebuild.
    mvn -q -f jmh/pom.xml validate exec:exec \
        -Djmh.args="$bench -p pool=$order -f 1 $* -rf json -rff $out"
    files+=("jmh/$out")
done
python3 jmh/summarize.py "${files[@]}"
