#!/usr/bin/env bash
# Builds Rota and its benchmarks from this checkout and runs the fairness harness
# (dev.rota.bench.groups.FairnessHarness, not a JMH benchmark) on JDK 25.
#
#   jmh/fairness.sh                                   stride, lottery, forkjoin, threadpool; 30 windows of 1 s
#   jmh/fairness.sh --pools stride --windows 60       options: see the harness's Javadoc
#
# Rota is installed into the local Maven repository first; both builds select JDK 25 through
# Maven toolchains, whatever JDK runs Maven.
set -euo pipefail

cd "$(dirname "$0")/.."

mvn -q -DskipTests install
mvn -q -f jmh/pom.xml package exec:exec -Dbench.main=dev.rota.bench.groups.FairnessHarness -Djmh.args="$*"
