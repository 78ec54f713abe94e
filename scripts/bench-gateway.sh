#!/usr/bin/env bash
# Gateway benchmark, one invocation, every part in a process of its own: a fast Anthropic stand-in (Node,
# scripts/bench-gateway/upstream.mjs); the control plane's gateway in front of it once per upstream client
# (talkide.gateway.upstream-client: jetty, the default, and jdk), each with budgets on a fresh PostgreSQL database of
# its own; a bare Java proxy on the same HTTP stack per client (BareProxyServer: the physical baseline of
# a Java gateway); the Portkey gateway (npm @portkey-ai/gateway, pinned in
# scripts/bench-gateway/package-lock.json, on the Node 22 of scripts/lib/node.sh); and the load generator
# (load.mjs). scripts/bench-gateway/processes.sh starts them (shared with bench-gateway-open-loop.sh).
# Prints req/s and latency per target, ratios against direct, the bare proxy and Portkey measured in the
# same run, the time to first byte each gateway adds at one client, database commits per gateway call
# (from pg_stat_database) and PostgreSQL CPU per call (its backends serving the gateway's database, /proc). BENCH_ROUNDS (default 1) repeats the measurements on the same warm processes
# and prints every round and the median. Then the in-JVM harness checks zero buffering and 1,000 open
# streams in 512 MB.
#   scripts/bench-gateway.sh [seconds per 16-client run (10)] [calls at 1 client (2000)] [open streams (1000)]
# PostgreSQL: 127.0.0.1:5432 as $PGUSER (postgres), trust; the bench creates and drops its own database.
# BENCH_JFR=/path/file.jfr records a JFR profile of the warm gateway during its 16-client streaming run
# (read it with: jfr view hot-methods /path/file.jfr). BENCH_SERVER_OPTS and BENCH_BARE_OPTS add JVM options to the
# gateways and to the bare proxies.
set -euo pipefail
cd "$(dirname "$0")/.."

SECS="${1:-10}"
ONE="${2:-2000}"
STREAMS="${3:-1000}"
PGUSER="${PGUSER:-postgres}"
TOOLS=scripts/bench-gateway
DB="bench_gateway_$$"
CLIENTS=(jetty jdk)
ROUNDS="${BENCH_ROUNDS:-1}"
RUN="$(mktemp -d)"
source "$TOOLS/processes.sh"

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for c in "${CLIENTS[@]}"; do
    psql -h 127.0.0.1 -U "$PGUSER" -d postgres -qc "drop database if exists ${DB}_$c" >/dev/null 2>&1 || true
  done
  rm -rf "$RUN"
}
trap cleanup EXIT

bench_build
for c in "${CLIENTS[@]}"; do
  psql -h 127.0.0.1 -U "$PGUSER" -d postgres -qc "create database ${DB}_$c" >/dev/null
done

start_upstream
for c in "${CLIENTS[@]}"; do
  start_gateway "$c" "${DB}_$c"
  start_bare "$c"
done
start_portkey

load() { node "$TOOLS/load.mjs" "$@"; }
# CPU time (clock ticks) of the PostgreSQL backends serving a database: the gateway's pool connections.
pg_cpu() { # database
  local pid sum=0
  for pid in $(pgrep -f "^postgres: .* $1 "); do
    sum=$(( sum + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0) ))
  done
  echo "$sum"
}
# Transactions committed in each gateway's database, one line "jetty=N jdk=N".
commits() {
  # A backend reports its counters when it goes idle, at most once a second, or 10 s later: wait that out.
  sleep 11
  local c line=""
  for c in "${CLIENTS[@]}"; do
    psql -h 127.0.0.1 -U "$PGUSER" -d "${DB}_$c" -Atc "select pg_stat_force_next_flush()" >/dev/null
    line+="$c=$(psql -h 127.0.0.1 -U "$PGUSER" -d "${DB}_$c" -Atc "select xact_commit from pg_stat_database where datname = '${DB}_$c'") "
  done
  echo "$line"
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
for c in "${CLIENTS[@]}"; do
  warm "gateway ($c client), streaming" "${GATEWAY[$c]}" stream "X-Worker-Token=${TOKEN[$c]}"
  warm "gateway ($c client), non-streaming" "${GATEWAY[$c]}" json "X-Worker-Token=${TOKEN[$c]}"
  warm "bare Java proxy ($c client), streaming" "${BARE[$c]}" stream
done
warm "direct, streaming" "$DIRECT" stream
warm "Portkey, non-streaming" "$PORTKEY" json "${PORTKEY_HEADERS[@]}"

results="$RUN/results"
: >"$results"
measure() { # name url clients duration mode headers...
  local name="$1"; shift
  echo "$name $(load "$@")" | tee -a "$results"
}
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  measure "r$round.direct_1_stream" "$DIRECT" 1 "-$ONE" stream
  for c in "${CLIENTS[@]}"; do
    measure "r$round.gateway_${c}_1_stream" "${GATEWAY[$c]}" 1 "-$ONE" stream "X-Worker-Token=${TOKEN[$c]}"
  done
  measure "r$round.direct_16_stream" "$DIRECT" 16 "$SECS" stream
  for c in "${CLIENTS[@]}"; do measure "r$round.bare_${c}_16_stream" "${BARE[$c]}" 16 "$SECS" stream; done
  echo "r$round.commits_before $(commits)" | tee -a "$results"
  for c in "${CLIENTS[@]}"; do
    [ -z "${BENCH_JFR:-}" ] || "$(dirname "$JAVA")/jcmd" "${GATEWAY_PID[$c]}" JFR.start name=bench settings=profile \
      filename="${BENCH_JFR%.jfr}-$c-r$round.jfr" >/dev/null
    pg_before=$(pg_cpu "${DB}_$c")
    measure "r$round.gateway_${c}_16_stream" "${GATEWAY[$c]}" 16 "$SECS" stream "X-Worker-Token=${TOKEN[$c]}"
    echo "r$round.pgcpu_$c $(( $(pg_cpu "${DB}_$c") - pg_before ))" >>"$results"
    [ -z "${BENCH_JFR:-}" ] || "$(dirname "$JAVA")/jcmd" "${GATEWAY_PID[$c]}" JFR.stop name=bench >/dev/null
  done
  echo "r$round.commits_after $(commits)" | tee -a "$results"
  measure "r$round.direct_16_json" "$DIRECT" 16 "$SECS" json
  for c in "${CLIENTS[@]}"; do
    measure "r$round.gateway_${c}_16_json" "${GATEWAY[$c]}" 16 "$SECS" json "X-Worker-Token=${TOKEN[$c]}"
  done
  measure "r$round.portkey_16_json" "$PORTKEY" 16 "$SECS" json "${PORTKEY_HEADERS[@]}"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"

CLK_TCK=$(getconf CLK_TCK) node scripts/bench-gateway/report.mjs "$results" "${CLIENTS[@]}"

echo
echo "Zero buffering and open streams (in-JVM harness, 512 MB heap):"
BENCH_JAVA_OPTS="-Xmx512m -Xms512m" "$JAVA" -Xmx512m -Xms512m -cp "$CP" \
  app.talkide.controlplane.bench.GatewayLoadHarness 200 2 "$STREAMS" | grep -iE "buffer|open|stream|heap" || true
