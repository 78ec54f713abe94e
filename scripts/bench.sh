#!/usr/bin/env bash
# Runs a benchmark from src/test/java/app/talkide/controlplane/bench on the project's JDK 21+.
#   scripts/bench.sh jmh [JMH options, e.g. 'WorkerToken' -f 1]   JMH micro-benchmarks
#   scripts/bench.sh <MainClass> [args...]                        a load harness (a main class in bench/)
#   scripts/bench.sh all                                           every benchmark, figures printed
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/java.sh

./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench.classpath)"

what="${1:-all}"; shift || true
case "$what" in
  jmh)
    exec "$JAVA" -cp "$CP" org.openjdk.jmh.Main "$@" ;;
  all)
    for script in scripts/bench-*.sh; do [ -e "$script" ] && bash "$script"; done ;;
  *)
    exec "$JAVA" ${BENCH_JAVA_OPTS:-} -cp "$CP" "app.talkide.controlplane.bench.$what" "$@" ;;
esac
