#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster on 127.0.0.1 for the test suite; installs Debian's
# `postgresql` when it is missing. Prints `export TASKFORCE_TEST_PG_URL=...` on stdout
# (eval it). Stop it with: scripts/postgres.sh stop DIR
set -euo pipefail
if [ "${1:-}" = "stop" ]; then
  dir=$2
  bin=$(cat "$dir/.bindir")
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
  else "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
  exit 0
fi
find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
bin=$(find_bin)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "installing Debian's postgresql ..." >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
  bin=$(find_bin)
fi
dir=$(mktemp -d /tmp/taskforce-pg.XXXXXX)
echo "$bin" > "$dir/.bindir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; chmod 755 "$dir"; fi
run "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1
run "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on -c max_connections=200" start >&2
echo "export TASKFORCE_TEST_PG_URL=postgresql+asyncpg://postgres@127.0.0.1:$port/postgres"
echo "export TASKFORCE_TEST_PG_DIR=$dir"
