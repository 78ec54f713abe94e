# Sourced by the scripts: makes Node.js >= 20 and npm the ones on PATH, for the Node worker (worker/) and
# the engine tests. Debian bookworm's nodejs is 18, too old; nodejs.org may be unreachable (as on the CI
# and dev machines here), so a too-old Node is supplemented with the official Node binary that the npm
# registry publishes as the package node-linux-<arch> (exact version pinned below, checked by npm against
# the registry's integrity hash), installed under TALKIDE_NODE_HOME and put first on PATH for this process
# only: the system's node is left as it is.
TALKIDE_NODE_VERSION=22.23.5
TALKIDE_NODE_HOME="${TALKIDE_NODE_HOME:-$HOME/.local/share/talkide/node-$TALKIDE_NODE_VERSION}"

node_major() { node --version 2>/dev/null | sed -nE 's/^v([0-9]+)\..*/\1/p'; }

ensure_node() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      echo "Installing nodejs and npm (Debian) for the worker and engine tests..."
      apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm
    else
      echo "node and npm are missing: install Node.js 20 or newer with npm (e.g. apt-get install -y nodejs npm" \
        "where the distribution has 20+), then run this again" >&2
      return 1
    fi
  fi
  if [ "$(node_major)" -lt 20 ] 2>/dev/null || [ -z "$(node_major)" ]; then
    [ -x "$(pinned_node_dir)/node" ] ||
      echo "Node $(node --version 2>/dev/null) is too old (the worker needs 20 or newer): installing Node" \
        "$TALKIDE_NODE_VERSION from the npm registry (node-linux-$(node_arch)) into $TALKIDE_NODE_HOME..."
    local bin
    bin=$(pinned_node_bin) || return 1
    export PATH="$bin:$PATH"
  fi
  if [ "$(node_major)" -lt 20 ] 2>/dev/null; then
    echo "Node $(node --version) is too old: the worker needs Node.js 20 or newer" >&2
    return 1
  fi
}

pinned_node_dir() { echo "$TALKIDE_NODE_HOME/node_modules/node-linux-$(node_arch)/bin"; }

# Prints the bin directory of the pinned Node (TALKIDE_NODE_VERSION), installing it from the npm registry
# first if absent; PATH stays as it is. For what needs that Node whatever the machine's is (the gateway
# bench runs Portkey on it).
pinned_node_bin() {
  local bin
  bin=$(pinned_node_dir)
  if [ ! -x "$bin/node" ]; then
    mkdir -p "$TALKIDE_NODE_HOME"
    npm install --prefix "$TALKIDE_NODE_HOME" --no-save --no-audit --no-fund --ignore-scripts \
      "node-linux-$(node_arch)@$TALKIDE_NODE_VERSION" >/dev/null || {
      echo "Installing Node $TALKIDE_NODE_VERSION from the npm registry failed; install Node.js 20 or newer" \
        "yourself (nodejs.org, NodeSource, or your distribution's backports)" >&2
      return 1
    }
  fi
  echo "$bin"
}

node_arch() {
  case "$(uname -m)" in
    x86_64 | amd64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) uname -m ;;
  esac
}
