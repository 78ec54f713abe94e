#!/usr/bin/env bash
# Benchmark of the Node worker (worker/) through the whole product: the control plane in local mode (its own
# JVM, PostgreSQL at 127.0.0.1:5432/test) runs the Node worker as its child process with the real engine,
# and the built-in simulator is the model, so every model call goes engine → the worker's gateway proxy →
# mint/gateway → simulator. Per turn, from the browser's 202: first model call at the gateway, turn.started
# and turn.completed on the browser's stream (p50/p99); the worker's resident memory idle and with open
# sessions. Figures and how to read them: docs/performance.md (The Node worker).
#   BENCH_CONVERSATIONS (5) × BENCH_TURNS_PER_CONVERSATION (11): 5 first turns and 50 follow-ups;
#   BENCH_SESSIONS (20) open sessions for the memory figure; BENCH_SERVER_OPTS adds server JVM/app options
#   (e.g. --talkide.simulator.first-token-delay=0ms to take the simulated model's pause out).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${BENCH_PORT:-18086}"
PG_URL="${BENCH_PG_URL:-jdbc:postgresql://127.0.0.1:5432/test}"
SCHEMA="bench_node_$(date +%s)"
CONVERSATIONS="${BENCH_CONVERSATIONS:-5}"; TURNS="${BENCH_TURNS_PER_CONVERSATION:-11}"; SESSIONS="${BENCH_SESSIONS:-20}"

source scripts/lib/java.sh
./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench.classpath)"
psql -h 127.0.0.1 -U postgres -d test -qc "create schema $SCHEMA"
DATA=$(mktemp -d)
# shellcheck disable=SC2086
"$JAVA" -Xmx512m -cp "$CP" app.talkide.controlplane.bench.NodeWorkerBenchServer \
  --server.port="$PORT" --talkide.data-dir="$DATA" --talkide.localdev.worker=node \
  --spring.datasource.url="$PG_URL?currentSchema=$SCHEMA" --spring.datasource.username=postgres \
  --spring.flyway.schemas="$SCHEMA" --spring.flyway.default-schema="$SCHEMA" \
  --logging.level.root=WARN --logging.level.app.talkide.controlplane.local.runtime=INFO \
  ${BENCH_SERVER_OPTS:-} > "$DATA/app.log" 2>&1 &
APP=$!
trap 'kill $APP 2>/dev/null; wait $APP 2>/dev/null || true; PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d test -qc "drop schema $SCHEMA cascade"' EXIT
for _ in $(seq 1 300); do grep -q "Local mode: tenant-environment" "$DATA/app.log" && break; sleep 1; done
WORKER=$(sed -nE 's/.*Local mode: tenant-environment demo\/dev .* at (http:[^ ]+).*/\1/p' "$DATA/app.log" | head -n 1)
[ -n "$WORKER" ] || { echo "the control plane did not start; its log:" >&2; tail -n 40 "$DATA/app.log" >&2; exit 1; }
grep -q "runs the Node worker" "$DATA/app.log" || { echo "the Node worker is not running" >&2; exit 1; }
KEY=$(cat "$DATA/workers/demo-dev/secret/command-key")
echo "== Node worker through gateway and simulator, $CONVERSATIONS conversations × $TURNS turns," \
  "$(nproc) cores (load average $(cut -d' ' -f1-3 /proc/loadavg))"
"$JAVA" -cp "$CP" app.talkide.controlplane.bench.NodeWorkerTurns "http://127.0.0.1:$PORT" dev:dev "$WORKER" "$KEY" \
  "$CONVERSATIONS" "$TURNS" "$SESSIONS"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
