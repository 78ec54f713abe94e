#!/usr/bin/env bash
# Conversation streams, browser side: idle browser streams per heap, fan-out to many subscribers
# of one conversation, append → browser latency, sustained persistence; the server in its own JVM with
# -Xmx512m on PostgreSQL (127.0.0.1:5432/test), the harness in another.
#   scripts/bench-conversations.sh [idle streams] [subscribers] [events/s] [seconds] [appenders]
set -euo pipefail
cd "$(dirname "$0")/.."
IDLE="${1:-10000}"; SUBSCRIBERS="${2:-1000}"; RATE="${3:-1000}"; SECONDS_PER_RUN="${4:-10}"; APPENDERS="${5:-64}"
PORT="${BENCH_PORT:-18084}"
PG_URL="${BENCH_PG_URL:-jdbc:postgresql://127.0.0.1:5432/test}"
SCHEMA="bench_conv_$(date +%s)"

source scripts/lib/java.sh
./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench.classpath)"
psql -h 127.0.0.1 -U postgres -d test -qc "create schema $SCHEMA"
DATA=$(mktemp -d)
"$JAVA" -Xmx512m ${BENCH_SERVER_OPTS:-} -cp "$CP" app.talkide.controlplane.bench.ConversationBenchServer \
  --server.port="$PORT" --talkide.data-dir="$DATA" \
  --spring.datasource.url="$PG_URL?currentSchema=$SCHEMA" --spring.datasource.username=postgres \
  --spring.flyway.schemas="$SCHEMA" --spring.flyway.default-schema="$SCHEMA" \
  '--talkide.auth.local-users[0].username=dev' '--talkide.auth.local-users[0].password-hash={noop}dev' \
  '--talkide.auth.local-users[0].roles=USER' \
  --talkide.conversations.stream.max-per-user=$((IDLE + 2 * SUBSCRIBERS + 300)) \
  --logging.level.root=WARN > "$DATA/app.log" 2>&1 &
APP=$!
trap 'kill $APP 2>/dev/null; wait $APP 2>/dev/null || true; PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d test -qc "drop schema $SCHEMA cascade"' EXIT
for _ in $(seq 1 180); do curl -s -o /dev/null "http://127.0.0.1:$PORT/actuator/health" && break; sleep 1; done
echo "== conversation streams on $(nproc) cores (machine shared with other builds); server -Xmx512m, PostgreSQL"
"$JAVA" -Xmx2g -cp "$CP" app.talkide.controlplane.bench.ConversationStreamBench "http://127.0.0.1:$PORT" dev:dev \
  "$IDLE" "$SUBSCRIBERS" "$RATE" "$SECONDS_PER_RUN" "$APPENDERS"
