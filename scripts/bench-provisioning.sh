#!/usr/bin/env bash
# Provisioning figures: provisioning against the fabric8 CRUD mock server, calls counted at the server. Time
# and calls to provision one tenant-environment; a full steady-state resync of N tenant-environments
# (default 500), which must make no write call. The application runs in kubernetes mode in-process
# (H2 in memory); the reconciler is the application's own, or a stand-in where the build has none.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${BENCH_TENANT_ENVIRONMENTS:-500}"
echo "== provisioning: one tenant-environment, then a steady-state resync of $COUNT (machine shared with other builds)"
BENCH_JAVA_OPTS="-Xmx768m" scripts/bench.sh ProvisioningResync "$COUNT"
