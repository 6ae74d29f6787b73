#!/usr/bin/env bash
# Builds Rota and its benchmarks from this checkout and runs JMH on JDK 25.
#
#   jmh/run.sh                                   every benchmark, as its annotations say
#   jmh/run.sh ExternalSubmit -f 1 -wi 3 -i 5    JMH arguments, as for benchmarks.jar
#   jmh/run.sh -l                                list the benchmarks
#
# Rota is installed into the local Maven repository by a Maven running on JDK 25: the modular jar
# is finished by the `jar` tool of the JDK that runs Maven, and an older one rejects Java 25's
# module-info.class. The benchmarks' own build selects JDK 25 through toolchains and runs on any
# Maven JDK. Set ROTA_JDK to choose the JDK 25 home; otherwise JAVA_HOME and /usr/lib/jvm/* are
# searched for one.
set -euo pipefail

cd "$(dirname "$0")/.."

java_feature_version() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 \
        | awk -F' = ' '/java.specification.version/ { split($2, v, "."); print (v[1] == 1 ? v[2] : v[1]) }'
}

find_jdk25() {
    local home
    for home in "${ROTA_JDK:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
        if [[ -n "$home" && -x "$home/bin/java" ]] && (( $(java_feature_version "$home") >= 25 )); then
            echo "$home"
            return 0
        fi
    done
    echo "no JDK 25 or later found: set ROTA_JDK to its home" >&2
    return 1
}

jdk=$(find_jdk25)
# Maven's own libraries use sun.misc.Unsafe, which JDK 24+ warns about; the flag keeps the output clean.
JAVA_HOME="$jdk" MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -q -DskipTests install
mvn -q -f jmh/pom.xml package exec:exec -Djmh.args="$*"
