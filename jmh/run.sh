#!/usr/bin/env bash
# Builds Rota and its benchmarks from this checkout and runs JMH on JDK 25.
#
#   jmh/run.sh                                   every benchmark, as its annotations say
#   jmh/run.sh ExternalSubmit -f 1 -wi 3 -i 5    JMH arguments, as for benchmarks.jar
#   jmh/run.sh -l                                list the benchmarks
#
# Rota is installed into the local Maven repository first; both builds select JDK 25 through
# Maven toolchains, whatever JDK runs Maven.
set -euo pipefail

cd "$(dirname "$0")/.."

mvn -q -DskipTests install
mvn -q -f jmh/pom.xml package exec:exec -Djmh.args="$*"
