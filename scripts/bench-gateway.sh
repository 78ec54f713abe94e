#!/usr/bin/env bash
# Gateway load harness (issue 3): the gateway vs the same fast local upstream called directly, in one
# run, with budget reservations on PostgreSQL (127.0.0.1:5432/test, or TALKIDE_TEST_POSTGRES_URL).
# Prints time to first byte at 1 and 16 clients, throughput at 16, zero buffering, 1,000 open streams.
#   scripts/bench-gateway.sh [requests at 1 client] [seconds per 16-client run] [open streams]
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:--Xmx512m -Xms512m}" exec scripts/bench.sh GatewayLoadHarness "$@"
