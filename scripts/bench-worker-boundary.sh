#!/usr/bin/env bash
# The cost of the worker's tool boundary (docs/security.md), in one run: the built Node worker with the real
# engine against a stand-in model that answers at once, once per sandbox mode (off = no boundary, on, nested,
# engine, engine-nested):
# first turn, follow-up turn, a follow-up with one Bash call, and the Bash round trip (tool.started →
# tool.completed on the stream), medians, with the CPU per turn of the worker and all it started; then each
# mode against off (differences and ratios), and where one sandboxed Bash call's time goes (the engine's own
# bubblewrap call, recorded and replayed with one part taken out at a time). Figures in docs/performance.md.
# Needs bubblewrap, socat and ripgrep (Debian packages). Run as root: the worker runs as uid 10001 as in the
# pod, and CPU is read from a cgroup (v2 or the unified hierarchy; without one, no CPU figures).
#   BENCH_TURNS (10) follow-ups per conversation (3 conversations); BENCH_MODES (off,on,nested,engine,engine-nested);
#   BENCH_STEP_RUNS (20) runs per replayed step; BENCH_STEPS=0 skips the steps.
set -euo pipefail
cd "$(dirname "$0")/../worker"
source ../scripts/lib/node.sh
ensure_node
[ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null
npm run -s build >/dev/null
echo "== tool boundary, $(nproc) cores (load average $(cut -d' ' -f1-3 /proc/loadavg))"
node dist/test/boundaryBench.js
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
