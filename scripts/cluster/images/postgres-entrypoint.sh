#!/bin/sh
# First start: a cluster in $PGDATA with the password from POSTGRES_PASSWORD (network logins; the container's own
# socket trusts its user) and database POSTGRES_DB; then PostgreSQL in the foreground on every address of the pod.
# A first start that died half-way is started over (the marker is written last).
set -eu
if [ ! -f "$PGDATA/.initialized" ]; then
  rm -rf "$PGDATA"
  pw=$(mktemp); printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}" > "$pw"
  initdb -D "$PGDATA" -U postgres --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 -E UTF8 >/dev/null
  rm -f "$pw"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql -qU postgres -c "create database \"${POSTGRES_DB:-talkide}\"" >/dev/null
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  touch "$PGDATA/.initialized"
fi
exec postgres -D "$PGDATA"
