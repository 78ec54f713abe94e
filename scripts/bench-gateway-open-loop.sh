#!/usr/bin/env bash
# Open-loop gateway benchmark: streams shaped like a model's, arriving at a fixed rate whether or not
# earlier calls have ended. The stand-in (scripts/bench-gateway/upstream.mjs) sends 50 deltas 20 ms apart,
# one second per call, each stamped with its send time; the gateway (own database on the local
# PostgreSQL), the bare Java proxy on its HTTP stack and Portkey on Node 22 run in front of it, each in a
# process of its own, started as scripts/bench-gateway.sh starts them (scripts/bench-gateway/processes.sh).
# For each rate, open-loop.mjs loads direct, the bare proxy, the gateway and Portkey in turn; the report
# gives per target the per-event delay p50 / p99 / p99.9 and what it adds over direct, calls completed
# and failed, the process's CPU per call (/proc utime + stime; direct: the stand-in's), its heap (Java:
# jstat: peak used, kept, collections) and resident memory, and the target: the gateway adds
# ≤ 2 ms per-event p99 at the highest rate where the bare proxy adds ≤ 2 ms.
#   scripts/bench-gateway-open-loop.sh [seconds of arrivals per run (20)]
# OPEN_LOOP_RATES: calls per second to sweep, about as many streams open (default "50 100 150 250").
# OPEN_LOOP_WARMUP: seconds each target is loaded at the highest rate before measuring (default 60); a JVM
# is loaded on until its JIT is done (under 0.1 s of compiling in 10 s), at most OPEN_LOOP_WARMUP_MAX
# seconds (default 300: the gateway's JIT needs minutes at these rates on two cores). OPEN_LOOP_CLIENT:
# the upstream client of the gateway and its bare proxy (default jetty). OPEN_LOOP_PORTKEY=0 leaves
# Portkey out. BENCH_SERVER_OPTS and BENCH_BARE_OPTS: JVM options of the gateway and of the bare proxy.
# PostgreSQL: 127.0.0.1:5432 as $PGUSER (postgres), trust.
set -euo pipefail
cd "$(dirname "$0")/.."

SECS="${1:-20}"
read -r -a RATES <<<"${OPEN_LOOP_RATES:-50 100 150 250}"
WARMUP="${OPEN_LOOP_WARMUP:-60}"
WARMUP_MAX="${OPEN_LOOP_WARMUP_MAX:-300}"
CLIENT="${OPEN_LOOP_CLIENT:-jetty}"
PGUSER="${PGUSER:-postgres}"
TOOLS=scripts/bench-gateway
DB="bench_open_loop_$$"
RUN="$(mktemp -d)"
source "$TOOLS/processes.sh"
JSTAT="$(dirname "$JAVA")/jstat"

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -h 127.0.0.1 -U "$PGUSER" -d postgres -qc "drop database if exists $DB" >/dev/null 2>&1 || true
  rm -rf "$RUN"
}
trap cleanup EXIT

bench_build
psql -h 127.0.0.1 -U "$PGUSER" -d postgres -qc "create database $DB" >/dev/null
start_upstream 20
start_gateway "$CLIENT" "$DB"
start_bare "$CLIENT"
if [ "${OPEN_LOOP_PORTKEY:-1}" = 0 ]; then PORTKEY=""; else
  start_portkey || { PORTKEY=""; echo "Portkey left out: no Node $TALKIDE_NODE_VERSION (scripts/lib/node.sh)" >&2; }
fi

# CPU seconds a process has used so far (user + system; the fields after the command's name).
cpu_seconds() { sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$(getconf CLK_TCK)" '{ print ($12 + $13) / hz }'; }

# Samples a process every second until killed: resident memory, and for a JVM its heap (jstat -gc).
sample() { # pid java|node
  local jstat=""
  if [ "$2" = java ]; then "$JSTAT" -gc "$1" 1000 >"$RUN/jstat" & jstat=$!; fi
  trap '[ -z "$jstat" ] || kill "$jstat" 2>/dev/null; exit 0' TERM
  while sleep 1; do sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/rss \1/p' "/proc/$1/status"; done
}

# From jstat -gc's columns, as JSON fields: the peak heap used (MB), what survived young collections at
# the end (old generation and survivors: the streams' live data and what was promoted), and the
# collections over the run with their total time (under ZGC, which collects concurrently: its pauses).
heap_json() {
  [ -s "$RUN/jstat" ] || { echo '"heap_peak_mb":null,"heap_kept_mb":null,"gcs":null,"gc_ms":null'; return; }
  awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["EU"] ~ /^[0-9.]+$/ {
      kept = $col["S0U"] + $col["S1U"] + $col["OU"]; used = kept + $col["EU"]; if (used > peak) peak = used
      if (!first) { gcs0 = $col["YGC"] + $col["FGC"]; t0 = $col["GCT"]; first = 1 }
      gcs = $col["YGC"] + $col["FGC"]; t = $col["GCT"]
    }
    END { printf "\"heap_peak_mb\":%.0f,\"heap_kept_mb\":%.0f,\"gcs\":%d,\"gc_ms\":%.0f", peak / 1024, kept / 1024, gcs - gcs0, (t - t0) * 1000 }' "$RUN/jstat"
}

results="$RUN/results"
: >"$results"
# One open-loop run against a target, with the CPU and memory of the process serving it.
measure() { # label rate seconds name pid java|node url headers...
  local label="$1" rate="$2" secs="$3" name="$4" pid="$5" kind="$6" url="$7" cpu0 cpu1 sampler out rss
  shift 7
  rm -f "$RUN/jstat"
  sample "$pid" "$kind" >"$RUN/rss" & sampler=$!
  cpu0=$(cpu_seconds "$pid")
  out=$(node "$TOOLS/open-loop.mjs" "$url" "$rate" "$secs" "$@")
  cpu1=$(cpu_seconds "$pid")
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  rss=$(awk '$2 > m { m = $2 } END { printf "%.0f", m / 1024 }' "$RUN/rss")
  echo "$label $rate $name ${out%\}},\"cpu_s\":$cpu1,\"cpu_s_before\":$cpu0,\"rss_peak_mb\":${rss:-null},$(heap_json)}" | tee -a "$results"
}
targets() { # label rate seconds
  measure "$@" direct "$UP_PID" node "$DIRECT"
  measure "$@" bare "${BARE_PID[$CLIENT]}" java "${BARE[$CLIENT]}"
  measure "$@" gateway "${GATEWAY_PID[$CLIENT]}" java "${GATEWAY[$CLIENT]}" "X-Worker-Token=${TOKEN[$CLIENT]}"
  [ -z "$PORTKEY" ] || measure "$@" portkey "$PORTKEY_PID" node "$PORTKEY" "${PORTKEY_HEADERS[@]}"
}

# Seconds a JVM's JIT has spent compiling so far (jstat -compiler's Time column).
jit_seconds() { "$JSTAT" -compiler "$1" | awk 'NR == 2 { print $4 }'; }

# Loads a target at the given rate for WARMUP seconds; a JVM then goes on in 10 s rounds until its JIT
# compiled for under 0.1 s in a round (1 % of a core), or for WARMUP_MAX seconds in all: a JIT still
# compiling takes a core now and then, and would be measured as the proxy's own delay.
warm() { # rate name pid java|node url headers...
  local rate="$1" name="$2" pid="$3" kind="$4" url="$5" spent="$WARMUP" jit0 jit1 last=""
  shift 5
  node "$TOOLS/open-loop.mjs" "$url" "$rate" "$WARMUP" "$@" >/dev/null
  while [ "$kind" = java ] && [ "$spent" -lt "$WARMUP_MAX" ]; do
    jit0=$(jit_seconds "$pid")
    node "$TOOLS/open-loop.mjs" "$url" "$rate" 10 "$@" >/dev/null
    spent=$((spent + 10))
    jit1=$(jit_seconds "$pid")
    last=$(awk -v a="$jit0" -v b="$jit1" 'BEGIN { printf "%.2f", b - a }')
    awk -v t="$last" 'BEGIN { exit !(t < 0.1) }' && break
  done
  echo "warm: $name after ${spent} s at $rate calls/s${last:+ (JIT compiled $last s in the last 10 s)}"
}

echo "Open-loop gateway benchmark: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start;" \
  "rates ${RATES[*]} calls/s, $SECS s each, gateway client $CLIENT"
MAX_RATE=$(printf '%s\n' "${RATES[@]}" | sort -n | tail -1)
echo "warming up every target at $MAX_RATE calls/s: $WARMUP s, a JVM until its JIT is done (at most $WARMUP_MAX s)..."
warm "$MAX_RATE" direct "$UP_PID" node "$DIRECT"
warm "$MAX_RATE" bare "${BARE_PID[$CLIENT]}" java "${BARE[$CLIENT]}"
warm "$MAX_RATE" gateway "${GATEWAY_PID[$CLIENT]}" java "${GATEWAY[$CLIENT]}" "X-Worker-Token=${TOKEN[$CLIENT]}"
[ -z "$PORTKEY" ] || warm "$MAX_RATE" portkey "$PORTKEY_PID" node "$PORTKEY" "${PORTKEY_HEADERS[@]}"
for rate in $(printf '%s\n' "${RATES[@]}" | sort -n); do
  echo "rate $rate calls/s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  targets run "$rate" "$SECS"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"

node "$TOOLS/open-loop-report.mjs" "$results"
