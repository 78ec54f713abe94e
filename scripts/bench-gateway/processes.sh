# Sourced by scripts/bench-gateway.sh and scripts/bench-gateway-open-loop.sh: builds the bench's classpath
# and starts each part of the gateway bench in a process of its own, waiting until it serves. The caller
# sets RUN (a scratch directory), TOOLS (this directory) and PGUSER, and kills the PIDS array on exit.
source scripts/lib/java.sh
source scripts/lib/node.sh
PIDS=()
declare -A GATEWAY GATEWAY_PID TOKEN BARE BARE_PID

# The stand-in's npm tools and Portkey (again whenever package-lock.json changed), and CP: the control
# plane's test classpath.
bench_build() {
  [ "$TOOLS/node_modules/.package-lock.json" -nt "$TOOLS/package-lock.json" ] ||
    (cd "$TOOLS" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
  ./mvnw -q -B -ntp -DskipTests -Djacoco.skip=true test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
  CP="target/test-classes:target/classes:$(cat target/bench.classpath)"
}

# Waits for "READY ..." in a log, prints that line.
ready() {
  for _ in $(seq 1 600); do
    if line=$(grep -m1 '^READY' "$1"); then echo "$line"; return 0; fi
    sleep 0.5
  done
  echo "timed out waiting for $1" >&2; cat "$1" >&2; return 1
}

# The Anthropic stand-in (upstream.mjs) with the given ms between deltas (0: each stream in one write).
# Sets UP (its port), UP_PID and DIRECT (its Messages URL).
start_upstream() {
  node "$TOOLS/upstream.mjs" 0 "${1:-0}" >"$RUN/upstream.log" 2>&1 & PIDS+=($!)
  UP_PID=$!
  UP=$(ready "$RUN/upstream.log" | cut -d' ' -f2)
  DIRECT="http://127.0.0.1:$UP/v1/messages?beta=true"
}

# The control plane (GatewayBenchServer) with the given upstream client, budgets on the given database,
# in front of the stand-in. Sets GATEWAY[client] (its Messages URL), TOKEN[client], GATEWAY_PID[client].
start_gateway() { # client database
  local c="$1" port token
  "$JAVA" -Xmx512m -Xms512m ${BENCH_SERVER_OPTS:-} -Dtalkide.gateway.upstream-client="$c" -cp "$CP" \
    app.talkide.controlplane.bench.GatewayBenchServer "jdbc:postgresql://127.0.0.1:5432/$2" "$PGUSER" \
    "http://127.0.0.1:$UP" >"$RUN/gateway-$c.log" 2>&1 & PIDS+=($!)
  GATEWAY_PID[$c]=$!
  read -r _ port token < <(ready "$RUN/gateway-$c.log")
  GATEWAY[$c]="http://127.0.0.1:$port/api/internal/gateway/anthropic/v1/messages?beta=true"
  TOKEN[$c]="$token"
}

# The physical baseline of a Java gateway (BareProxyServer): the same Jetty and upstream client, relaying
# and nothing else. Sets BARE[client] and BARE_PID[client].
start_bare() { # client
  "$JAVA" -Xmx512m -Xms512m ${BENCH_BARE_OPTS:-} -cp "$CP" app.talkide.controlplane.bench.BareProxyServer "http://127.0.0.1:$UP" "$1" \
    >"$RUN/bare-$1.log" 2>&1 & PIDS+=($!)
  BARE_PID[$1]=$!
  BARE[$1]="http://127.0.0.1:$(ready "$RUN/bare-$1.log" | cut -d' ' -f2)/v1/messages?beta=true"
}

# Portkey (@portkey-ai/gateway, pinned by package-lock.json) on the pinned Node of scripts/lib/node.sh
# (22), in front of the stand-in. Sets PORTKEY (its Messages URL), PORTKEY_HEADERS and PORTKEY_PID.
start_portkey() {
  local pk=$((20000 + $$ % 20000)) bin
  bin=$(pinned_node_bin) || return 1
  "$bin/node" "$TOOLS/node_modules/@portkey-ai/gateway/build/start-server.js" --port=$pk --headless \
    >"$RUN/portkey.log" 2>&1 & PIDS+=($!)
  PORTKEY_PID=$!
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$pk") 2>/dev/null && break; sleep 0.2; done
  PORTKEY="http://127.0.0.1:$pk/v1/messages"
  PORTKEY_HEADERS=(x-portkey-provider=anthropic "x-portkey-custom-host=http://127.0.0.1:$UP/v1" x-api-key=sk-bench-local)
}
