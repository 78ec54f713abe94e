#!/usr/bin/env bash
# Gateway benchmark (issue 16), one invocation, every part in a process of its own: a fast Anthropic
# stand-in (Node, scripts/bench-gateway/upstream.mjs), the control plane's gateway in front of it with
# budgets on a fresh PostgreSQL database, a bare Java proxy on the same HTTP stack (BareProxyServer: the
# physical baseline of a Java gateway), the Portkey gateway (npm @portkey-ai/gateway, pinned in
# scripts/bench-gateway/package-lock.json) in front of it, and the load generator (load.mjs).
# Prints req/s and latency per target, ratios against direct and Portkey measured in the same run, the
# time to first byte the gateway adds at one client, and database commits per gateway call (from
# pg_stat_database; also without what the background jobs commit in an idle window as long). Then the in-JVM harness checks zero buffering and 1,000 open streams in 512 MB.
#   scripts/bench-gateway.sh [seconds per 16-client run (10)] [calls at 1 client (2000)] [open streams (1000)]
# PostgreSQL: 127.0.0.1:5432 as $PGUSER (postgres), trust; the bench creates and drops its own database.
# BENCH_JFR=/path/file.jfr records a JFR profile of the warm gateway during its 16-client streaming run
# (read it with: jfr view hot-methods /path/file.jfr).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/java.sh

SECS="${1:-10}"
ONE="${2:-2000}"
STREAMS="${3:-1000}"
PGUSER="${PGUSER:-postgres}"
TOOLS=scripts/bench-gateway
DB="bench_gateway_$$"
RUN="$(mktemp -d)"
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -h 127.0.0.1 -U "$PGUSER" -d postgres -qc "drop database if exists $DB" >/dev/null 2>&1 || true
  rm -rf "$RUN"
}
trap cleanup EXIT

[ -d "$TOOLS/node_modules" ] || (cd "$TOOLS" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
CP="target/test-classes:target/classes:$(cat target/bench.classpath)"
psql -h 127.0.0.1 -U "$PGUSER" -d postgres -qc "create database $DB" >/dev/null

# Waits for "READY ..." in a log, prints that line.
ready() {
  for _ in $(seq 1 600); do
    if line=$(grep -m1 '^READY' "$1"); then echo "$line"; return 0; fi
    sleep 0.5
  done
  echo "timed out waiting for $1" >&2; cat "$1" >&2; return 1
}

node "$TOOLS/upstream.mjs" >"$RUN/upstream.log" 2>&1 & PIDS+=($!)
UP=$(ready "$RUN/upstream.log" | cut -d' ' -f2)
"$JAVA" -Xmx512m -Xms512m ${BENCH_SERVER_OPTS:-} -cp "$CP" app.talkide.controlplane.bench.GatewayBenchServer \
  "jdbc:postgresql://127.0.0.1:5432/$DB" "$PGUSER" "http://127.0.0.1:$UP" >"$RUN/gateway.log" 2>&1 & PIDS+=($!)
GATEWAY_PID=$!
read -r _ GW TOKEN < <(ready "$RUN/gateway.log")
# The physical baseline of a Java gateway: the same Jetty and upstream client, relaying and nothing else;
# and the same with the JDK's HttpClient, to show what the gateway's own client is worth.
"$JAVA" -Xmx512m -Xms512m -cp "$CP" app.talkide.controlplane.bench.BareProxyServer "http://127.0.0.1:$UP" \
  >"$RUN/bare.log" 2>&1 & PIDS+=($!)
BP=$(ready "$RUN/bare.log" | cut -d' ' -f2)
"$JAVA" -Xmx512m -Xms512m -cp "$CP" app.talkide.controlplane.bench.BareProxyServer "http://127.0.0.1:$UP" jdk \
  >"$RUN/bare-jdk.log" 2>&1 & PIDS+=($!)
BPJ=$(ready "$RUN/bare-jdk.log" | cut -d' ' -f2)
PK=$((20000 + $$ % 20000))
node "$TOOLS/node_modules/@portkey-ai/gateway/build/start-server.js" --port=$PK --headless >"$RUN/portkey.log" 2>&1 & PIDS+=($!)
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PK") 2>/dev/null && break; sleep 0.2; done

DIRECT="http://127.0.0.1:$UP/v1/messages?beta=true"
GATEWAY="http://127.0.0.1:$GW/api/internal/gateway/anthropic/v1/messages?beta=true"
PORTKEY="http://127.0.0.1:$PK/v1/messages"
BARE="http://127.0.0.1:$BP/v1/messages?beta=true"
BARE_JDK="http://127.0.0.1:$BPJ/v1/messages?beta=true"
PORTKEY_HEADERS=(x-portkey-provider=anthropic "x-portkey-custom-host=http://127.0.0.1:$UP/v1" x-api-key=sk-bench-local)
load() { node "$TOOLS/load.mjs" "$@"; }
commits() {
  # A backend reports its counters when it goes idle, at most once a second, or 10 s later: wait that out.
  sleep 11
  psql -h 127.0.0.1 -U "$PGUSER" -d "$DB" -Atc "select pg_stat_force_next_flush()" >/dev/null
  psql -h 127.0.0.1 -U "$PGUSER" -d "$DB" -Atc "select xact_commit from pg_stat_database where datname = '$DB'"
}

echo "Gateway benchmark: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
# Every target is measured warm, as a server that has served for a while: on two cores the gateway's JIT
# takes a minute or more of full load to compile the call path (a cold JVM serves a third of the warm
# rate), and Node's JIT warms too. Rounds of 5 s at 16 clients run until three in a row agree within
# 5 % (at most WARMUP_ROUNDS); each target's rounds are printed.
warm() { # name url mode headers...
  local name="$1" url="$2" mode="$3"; shift 3
  local rates=() round
  for round in $(seq 1 "${WARMUP_ROUNDS:-24}"); do
    rates+=("$(load "$url" 16 5 "$mode" "$@" | sed -E 's/.*"rps":([0-9.]+).*/\1/')")
    if [ "$round" -ge 3 ] && node -e 'const r = process.argv.slice(1).map(Number); process.exit(Math.max(...r) < 1.05 * Math.min(...r) ? 0 : 1)' "${rates[@]: -3}"; then
      break
    fi
  done
  echo "  $name: ${rates[*]} req/s"
}
echo "warming up until each target's rate settles (JIT, connections, budget lease)..."
warm "gateway, streaming" "$GATEWAY" stream "X-Worker-Token=$TOKEN"
warm "gateway, non-streaming" "$GATEWAY" json "X-Worker-Token=$TOKEN"
warm "direct, streaming" "$DIRECT" stream
warm "bare Java proxy, streaming" "$BARE" stream
warm "bare Java proxy on the JDK client, streaming" "$BARE_JDK" stream
warm "Portkey, non-streaming" "$PORTKEY" json "${PORTKEY_HEADERS[@]}"

results="$RUN/results"
: >"$results"
measure() { # name url clients duration mode headers...
  local name="$1"; shift
  echo "$name $(load "$@")" | tee -a "$results"
}
measure direct_1_stream "$DIRECT" 1 "-$ONE" stream
measure gateway_1_stream "$GATEWAY" 1 "-$ONE" stream "X-Worker-Token=$TOKEN"
measure direct_16_stream "$DIRECT" 16 "$SECS" stream
measure bare_16_stream "$BARE" 16 "$SECS" stream
measure bare_jdk_16_stream "$BARE_JDK" 16 "$SECS" stream
before=$(commits)
[ -z "${BENCH_JFR:-}" ] || "$(dirname "$JAVA")/jcmd" "$GATEWAY_PID" JFR.start name=bench settings=profile filename="$BENCH_JFR" >/dev/null
measure gateway_16_stream "$GATEWAY" 16 "$SECS" stream "X-Worker-Token=$TOKEN"
[ -z "${BENCH_JFR:-}" ] || "$(dirname "$JAVA")/jcmd" "$GATEWAY_PID" JFR.stop name=bench >/dev/null
after=$(commits)
echo "commits $((after - before))" | tee -a "$results"
# The same window with no load: what the application's background jobs commit on their own.
sleep "$SECS"
idle=$(commits)
echo "background $((idle - after))" | tee -a "$results"
measure direct_16_json "$DIRECT" 16 "$SECS" json
measure gateway_16_json "$GATEWAY" 16 "$SECS" json "X-Worker-Token=$TOKEN"
measure portkey_16_json "$PORTKEY" 16 "$SECS" json "${PORTKEY_HEADERS[@]}"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"

node - "$results" <<'JS'
const fs = require("fs");
const r = {};
for (const line of fs.readFileSync(process.argv[2], "utf8").trim().split("\n")) {
  const [name, ...rest] = line.split(" ");
  r[name] = name === "commits" || name === "background" ? Number(rest[0]) : JSON.parse(rest.join(" "));
}
const f = (x, d = 2) => (x == null ? "n/a" : Number(x).toFixed(d));
const pct = (a, b) => `${f((100 * a) / b, 1)} %`;
console.log("\n| check | measured | target |\n|---|---|---|");
console.log(`| 16 clients streaming req/s: gateway vs direct | ${f(r.gateway_16_stream.rps, 0)} vs ${f(r.direct_16_stream.rps, 0)} = ${pct(r.gateway_16_stream.rps, r.direct_16_stream.rps)} | ≥ 25 % |`);
console.log(`| 16 clients streaming req/s: bare Java proxy (same Jetty and upstream client, nothing else) vs direct | ${f(r.bare_16_stream.rps, 0)} vs ${f(r.direct_16_stream.rps, 0)} = ${pct(r.bare_16_stream.rps, r.direct_16_stream.rps)} | the HTTP stack's ceiling |`);
console.log(`| 16 clients streaming req/s: the bare proxy on the JDK's HttpClient vs direct | ${f(r.bare_jdk_16_stream.rps, 0)} = ${pct(r.bare_jdk_16_stream.rps, r.direct_16_stream.rps)} | the gateway's own client against the JDK's |`);
console.log(`| 16 clients streaming req/s: gateway vs bare Java proxy | ${pct(r.gateway_16_stream.rps, r.bare_16_stream.rps)} | what the product costs |`);
console.log(`| direct streaming at 16 clients (the upstream's own ceiling) | ${f(r.direct_16_stream.rps, 0)} req/s | ≥ 5,000 or it is the bottleneck |`);
console.log(`| 16 clients non-streaming req/s: gateway vs Portkey | ${f(r.gateway_16_json.rps, 0)} vs ${f(r.portkey_16_json.rps, 0)} = ${f(r.gateway_16_json.rps / r.portkey_16_json.rps)} × (direct ${f(r.direct_16_json.rps, 0)}) | ≥ 1.5 × |`);
console.log(`| 16 clients non-streaming p50 / p99 ms: gateway vs Portkey | ${f(r.gateway_16_json.total_p50)} / ${f(r.gateway_16_json.total_p99)} vs ${f(r.portkey_16_json.total_p50)} / ${f(r.portkey_16_json.total_p99)} | lower |`);
console.log(`| 1 client streaming, time to first byte added, p50 | ${f(r.gateway_1_stream.ttfb_p50 - r.direct_1_stream.ttfb_p50)} ms (direct ${f(r.direct_1_stream.ttfb_p50)}, gateway ${f(r.gateway_1_stream.ttfb_p50)}) | ≤ 1.5 ms |`);
console.log(`| 1 client streaming, time to first byte added, p99 | ${f(r.gateway_1_stream.ttfb_p99 - r.direct_1_stream.ttfb_p99)} ms (direct ${f(r.direct_1_stream.ttfb_p99)}, gateway ${f(r.gateway_1_stream.ttfb_p99)}) | ≤ 5 ms |`);
const calls = r.gateway_16_stream.started;
console.log(`| database commits per gateway call, 16 clients streaming | ${r.commits} commits / ${calls} calls = ${f(r.commits / calls, 3)} | ≤ 0.1 |`);
console.log(`| the same without the background jobs' commits (${r.background} in an idle window as long) | ${f((r.commits - r.background) / calls, 3)} | |`);
JS

echo
echo "Zero buffering and open streams (in-JVM harness, 512 MB heap):"
BENCH_JAVA_OPTS="-Xmx512m -Xms512m" "$JAVA" -Xmx512m -Xms512m -cp "$CP" \
  app.talkide.controlplane.bench.GatewayLoadHarness 200 2 "$STREAMS" | grep -iE "buffer|open|stream|heap" || true
