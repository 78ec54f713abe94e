#!/usr/bin/env bash
# Conversations, worker side: worker event → browser latency through the control plane, single
# subscriber, against the packaged application on PostgreSQL in local mode (embedded reference worker,
# built-in Anthropic simulator pacing the answers). Baseline in the same run: a second direct subscriber
# of the worker stream.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${BENCH_PORT:-18082}"
PG_URL="${BENCH_PG_URL:-jdbc:postgresql://127.0.0.1:5432/test}"
SCHEMA="bench_worker_$(date +%s)"
TURNS="${BENCH_TURNS:-5}"
TOKENS="${BENCH_TOKENS:-400}"

./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true -Dspotless.check.skip=true package >/dev/null
JAR=$(ls target/talkide-control-plane-*.jar | grep -v plain | head -n 1)
source scripts/lib/java.sh
psql -h 127.0.0.1 -U postgres -d test -qc "create schema $SCHEMA"
DATA=$(mktemp -d)
# Actuator on the application port (one port per run, no clash on 9090): its metrics are read below.
"$JAVA" ${BENCH_SERVER_OPTS:--Xmx512m} -jar "$JAR" --server.port="$PORT" --management.server.port="$PORT" --talkide.data-dir="$DATA" \
  --spring.datasource.url="$PG_URL?currentSchema=$SCHEMA" --spring.datasource.username=postgres \
  --spring.flyway.schemas="$SCHEMA" --spring.flyway.default-schema="$SCHEMA" \
  --logging.level.root=WARN --logging.level.app.talkide.controlplane.local.runtime=INFO > "$DATA/app.log" 2>&1 &
APP=$!
trap 'kill $APP 2>/dev/null; PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d test -qc "drop schema $SCHEMA cascade"' EXIT
for _ in $(seq 1 120); do grep -q "Local mode: tenant-environment" "$DATA/app.log" && break; sleep 1; done
WORKER=$(sed -nE 's/.*Local mode: tenant-environment demo\/dev .* at (http:[^ ]+).*/\1/p' "$DATA/app.log" | head -n 1)
KEY=$(cat "$DATA/workers/demo-dev/secret/command-key")
echo "== worker event → browser, one subscriber, $TURNS turns of $TOKENS tokens (machine shared with other builds)"
scripts/bench.sh WorkerToBrowserLatency "http://127.0.0.1:$PORT" "$WORKER" "$KEY" demo dev dev:dev "$TURNS" "$TOKENS"
# Of that, append → browser write as the server saw it (from each event's created_at, the oldest of each flush).
curl -s "http://127.0.0.1:$PORT/actuator/prometheus" | awk '/^talkide_conversations_fanout_lag_seconds_(count|sum|max)/ {k=$1; sub(/\{.*/, "", k); v[k]=$2}
  END {c=v["talkide_conversations_fanout_lag_seconds_count"]; if (c > 0) printf "server fan-out lag (append → write): %d flushes, mean %.2f ms, max %.2f ms\n", c, 1000*v["talkide_conversations_fanout_lag_seconds_sum"]/c, 1000*v["talkide_conversations_fanout_lag_seconds_max"]}'
