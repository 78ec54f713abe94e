#!/usr/bin/env bash
# The whole test suite, from a fresh machine: starts or installs what the tests need, then runs
# every test (H2 and PostgreSQL runs) with the same Maven wrapper as the run command.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage says how long it took, so a slow CI run shows where its time went.
stage() {
  local name=$1 started=$SECONDS status=0
  shift
  echo "=== stage ${name}: started"
  "$@" || status=$?
  echo "=== stage ${name}: $((SECONDS - started)) s$([ "$status" = 0 ] || echo ", FAILED (exit $status)")"
  return "$status"
}

setup() {
  # PostgreSQL at 127.0.0.1:5432 (trust auth, database "test"): start the local cluster if it is down.
  # Elsewhere, point TALKIDE_TEST_POSTGRES_URL at one, or let Testcontainers start one where Docker runs.
  if [ -z "${TALKIDE_TEST_POSTGRES_URL:-}" ] && command -v pg_isready >/dev/null 2>&1; then
    if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
      echo "Starting PostgreSQL..."
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start
      for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
    fi
    # Two test JVMs, each with cached Spring contexts and clusters of replicas, can hold more than the
    # default 100 connections at once (a run failed with "too many clients" at PostgreSQL's default).
    if [ "$(psql -h 127.0.0.1 -U postgres -tAc "show max_connections")" -lt 200 ]; then
      echo "Raising PostgreSQL's max_connections to 200 (a restart)..."
      psql -h 127.0.0.1 -U postgres -qc "alter system set max_connections = 200"
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main restart
      for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
    fi
    psql -h 127.0.0.1 -U postgres -tAc "select 1 from pg_database where datname = 'test'" | grep -q 1 \
      || psql -h 127.0.0.1 -U postgres -c "create database test"
  fi

  # Debian packages the tests need, installed when missing: headless Chromium and chromium-driver for the
  # console's browser tests (never a downloaded browser), and bubblewrap, socat and ripgrep for the
  # sandbox the engine runs Mara's Bash in (the worker's tool-boundary tests run the real engine in it).
  local missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
  command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
  command -v socat >/dev/null 2>&1 || missing+=(socat)
  command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
  if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      echo "Installing ${missing[*]} for the tests..."
      apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    else
      echo "Missing for the tests: ${missing[*]} (apt-get install -y ${missing[*]})" >&2
    fi
  fi

  # The Node worker (worker/) and the engine tests (JUnit tag engine, which install the engine from npm with
  # the lockfile in src/test/engine) need Node.js 20+ and npm: installed when missing, and a too-old node
  # (Debian bookworm's 18) is supplemented from the npm registry for this run (scripts/lib/node.sh).
  source scripts/lib/node.sh
  ensure_node
  echo "Node $(node --version) ($(command -v node)), npm $(npm --version)"
}

# The worker is installed and built before the Java tests start: some of them run it as a child process.
worker_build() {
  (cd worker && npm ci --no-audit --no-fund && npm run build)
}

# Its lint and tests then read the build (test:built, no second compile writing dist/ under a running worker).
worker_tests() {
  (cd worker && npm run lint && npm run test:built)
}

stage setup setup
stage worker-build worker_build
# Maven itself on a JDK 21+ (as the tests, which the toolchain puts on one), so Surefire can share the test
# classes between two test JVMs (pom.xml, profile parallel-tests); on Java 17 it would run one.
source scripts/lib/java.sh
JAVA_HOME="$(java_home)"
export JAVA_HOME
# The worker's tests run alongside the Java tests, which spend much of their time waiting on sockets,
# timers and child processes; their output follows the Java tests' so neither log is interleaved.
worker_log=$(mktemp)
stage worker worker_tests >"$worker_log" 2>&1 &
worker_pid=$!
# Every Java test: H2 first, then the database tests again on PostgreSQL (two Surefire executions).
java_status=0
stage control-plane ./mvnw -B -ntp verify "$@" || java_status=$?
worker_status=0
wait "$worker_pid" || worker_status=$?
cat "$worker_log"
rm -f "$worker_log"
[ "$java_status" = 0 ] && [ "$worker_status" = 0 ]
