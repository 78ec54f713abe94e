#!/usr/bin/env bash
# Token figures: WorkerToken mint/verify micro-benchmarks (JMH, one thread) and a load run of the
# mint endpoint over loopback (16 clients) against the packaged application on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${BENCH_PORT:-18081}"
PG_URL="${BENCH_PG_URL:-jdbc:postgresql://127.0.0.1:5432/test}"
SCHEMA="bench_tokens_$(date +%s)"

SERVER_OPTS="${BENCH_SERVER_OPTS:--Xmx512m}"

if [ -z "${BENCH_SKIP_JMH:-}" ]; then
  echo "== JMH: WorkerToken mint and verify (one thread; baseline: one HMAC-SHA256 of the same input)"
  scripts/bench.sh jmh WorkerTokenBenchmark -rf text -rff target/jmh-tokens.txt >/dev/null
  grep -E "Benchmark|p0.50|p0.99 " target/jmh-tokens.txt
fi

echo "== Load: mint endpoint, packaged application ($SERVER_OPTS) on PostgreSQL schema $SCHEMA"
./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true -Dspotless.check.skip=true package >/dev/null
JAR=$(ls target/talkide-control-plane-*.jar | grep -v plain | head -n 1)
source scripts/lib/java.sh
psql -h 127.0.0.1 -U postgres -d test -qc "create schema $SCHEMA"
DATA=$(mktemp -d)
# Actuator on the application port (one port per run, no clash on 9090): the liveness probe is the load baseline.
"$JAVA" $SERVER_OPTS -jar "$JAR" --server.port="$PORT" --management.server.port="$PORT" --talkide.data-dir="$DATA" \
  --spring.datasource.url="$PG_URL?currentSchema=$SCHEMA" --spring.datasource.username=postgres \
  --spring.flyway.schemas="$SCHEMA" --spring.flyway.default-schema="$SCHEMA" \
  --talkide.tokens.mint.rate-per-second=1000000000 --talkide.tokens.mint.burst=1000000000 \
  --logging.level.root=WARN > "$DATA/app.log" 2>&1 &
APP=$!
trap 'kill $APP 2>/dev/null; PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d test -qc "drop schema $SCHEMA cascade"' EXIT
for _ in $(seq 1 120); do curl -sf "localhost:$PORT/actuator/health/readiness" >/dev/null && break; sleep 1; done
curl -sf -u dev:dev -X PUT "localhost:$PORT/api/admin/tenant-environments/bench/dev" >/dev/null
IDENTITY=$(curl -sf -u dev:dev -X POST "localhost:$PORT/api/admin/tenant-environments/bench/dev/identity-tokens" | sed -E 's/.*"token":"([^"]+)".*/\1/')
CONVERSATION=$(cat /proc/sys/kernel/random/uuid)
psql -h 127.0.0.1 -U postgres -d test -qc "insert into $SCHEMA.conversation (id, tenant, env, owner_user_id, title, created_at) values ('$CONVERSATION', 'bench', 'dev', 'dev', 'bench', now())"
scripts/bench.sh MintLoad "http://127.0.0.1:$PORT" "$IDENTITY" "$CONVERSATION" 16 20
