#!/usr/bin/env bash
# Runs a command with Node.js >= 20 first on PATH (installing it as scripts/lib/node.sh says when the
# machine's node is missing or too old), e.g. so that local mode starts the real Node worker:
#   scripts/with-node.sh ./mvnw spring-boot:run
set -euo pipefail
source "$(dirname "$0")/lib/node.sh"
ensure_node
exec "$@"
