#!/usr/bin/env bash
# Runs a benchmark from src/test/java/app/talkide/controlplane/bench on the project's JDK 21+.
#   scripts/bench.sh jmh [JMH options, e.g. 'WorkerToken' -f 1]   JMH micro-benchmarks
#   scripts/bench.sh <MainClass> [args...]                        a load harness (a main class in bench/)
#   scripts/bench.sh all                                           every benchmark, figures printed
set -euo pipefail
cd "$(dirname "$0")/.."

java_home() {
  # The newest JDK 21+ : JAVA_HOME if it qualifies, else the newest under /usr/lib/jvm.
  local candidates=("${JAVA_HOME:-}" /usr/lib/jvm/*) best="" best_version=0
  for home in "${candidates[@]}"; do
    [ -x "$home/bin/java" ] || continue
    local version
    version=$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [ "${version%%.*}" -ge 21 ] 2>/dev/null && [ "${version%%.*}" -gt "$best_version" ]; then
      best="$home"; best_version="${version%%.*}"
    fi
  done
  [ -n "$best" ] || { echo "No JDK 21+ found (set JAVA_HOME)" >&2; exit 1; }
  echo "$best"
}

./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
JAVA="$(java_home)/bin/java"
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
