#!/usr/bin/env bash
# Long conversations: builds conversations of 30 and 300 turns × 300 deltas through the event
# log's append, and measures before and after compacting them in the same run: append throughput,
# append → browser-stream latency, time until the console shows the last turn and is live in headless
# Chromium, the browser's JS heap and DOM size, and the event table's size per turn. The server runs in
# its own JVM (-Xmx512m) on PostgreSQL (127.0.0.1:5432/test), the harness in another.
#   scripts/bench-long-conversations.sh [turn counts, default 1,30,300 (1: the baseline)] [deltas per turn]
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES="${1:-1,30,300}"; DELTAS="${2:-300}"
PORT="${BENCH_PORT:-18085}"
PG_URL="${BENCH_PG_URL:-jdbc:postgresql://127.0.0.1:5432/test}"
SCHEMA="bench_long_$(date +%s)"

source scripts/lib/java.sh
./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench.classpath)"
psql -h 127.0.0.1 -U postgres -d test -qc "create schema $SCHEMA"
DATA=$(mktemp -d)
"$JAVA" -Xmx512m ${BENCH_SERVER_OPTS:-} -cp "$CP" app.talkide.controlplane.bench.LongConversationBenchServer \
  --server.port="$PORT" --talkide.data-dir="$DATA" \
  --spring.datasource.url="$PG_URL?currentSchema=$SCHEMA" --spring.datasource.username=postgres \
  --spring.flyway.schemas="$SCHEMA" --spring.flyway.default-schema="$SCHEMA" \
  '--talkide.auth.local-users[0].username=dev' '--talkide.auth.local-users[0].password-hash={noop}dev' \
  '--talkide.auth.local-users[0].roles=USER' \
  --talkide.conversations.compaction.enabled=false --talkide.conversations.compaction.after=0s \
  --logging.level.root=WARN > "$DATA/app.log" 2>&1 &
APP=$!
trap 'kill $APP 2>/dev/null; wait $APP 2>/dev/null || true; PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d test -qc "drop schema $SCHEMA cascade"' EXIT
for _ in $(seq 1 180); do curl -s -o /dev/null "http://127.0.0.1:$PORT/actuator/health" && break; sleep 1; done
echo "== long conversations on $(nproc) cores (machine shared with other builds); server -Xmx512m, PostgreSQL; load $(cut -d' ' -f1-3 /proc/loadavg)"
"$JAVA" -Xmx1g -cp "$CP" app.talkide.controlplane.bench.LongConversationBench "http://127.0.0.1:$PORT" dev:dev "$SIZES" "$DELTAS"
