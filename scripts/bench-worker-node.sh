#!/usr/bin/env bash
# Benchmark of the Node worker (worker/): accepted message → first model call, first and follow-up turns
# (p50/p99), resident memory idle and with open sessions. Figures and how to read them:
# docs/performance.md. Tunables: BENCH_CONVERSATIONS (5), BENCH_TURNS_PER_CONVERSATION (11): 5 first turns and 50 follow-ups;
# BENCH_SESSIONS (20).
set -euo pipefail
cd "$(dirname "$0")/../worker"
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build >/dev/null
exec node bench/bench.mjs
