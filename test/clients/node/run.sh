#!/usr/bin/env bash
# Captures Node dd-trace (the repository's devDependency) into
# test/fixtures/captured/node-dd-trace-<version>/ (see README.md). Needs PostgreSQL's initdb and
# pg_ctl on PATH and a `postgres` user to run them (PostgreSQL refuses to run as root).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
source "$ROOT/test/clients/capture-lib.sh"

DEPS=$CLIENTS_CACHE/node
[ -d "$DEPS/node_modules/pg" ] || npm install --prefix "$DEPS" --no-save --no-audit --no-fund pg@8.23.1
VERSION=$(node -p "require('$ROOT/node_modules/dd-trace/package.json').version")
OUT=$ROOT/test/fixtures/captured/node-dd-trace-$VERSION

# A throwaway database cluster: postgres cannot reach files under root's home, so it lives in /tmp.
PGDIR=$(mktemp -d /tmp/dd-otlp-bridge-capture-pg.XXXXXX)
chown postgres "$PGDIR"
FREE_PORT=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
export PGHOST=127.0.0.1 PGPORT=${CAPTURE_PG_PORT:-$FREE_PORT} PGUSER=shop PGDATABASE=postgres
su postgres -s /bin/sh -c "initdb -D '$PGDIR/data' -A trust -U shop >/dev/null && pg_ctl -D '$PGDIR/data' -o '-p $PGPORT -k $PGDIR -c listen_addresses=127.0.0.1' -l '$PGDIR/log' -w start >/dev/null"
stop_postgres() { su postgres -s /bin/sh -c "pg_ctl -D '$PGDIR/data' -m fast -w stop >/dev/null"; rm -rf "$PGDIR"; }
trap 'stop_capture_agent; stop_postgres' EXIT
start_capture_agent
env DD_TRACE_AGENT_URL="$CAPTURE_URL" DD_SERVICE=node-shop DD_ENV=capture DD_VERSION=1.0.0 NODE_PATH="$DEPS/node_modules" \
  node "$HERE/app.js" "$OUT"
TAGS=env:capture,version:1.0.0
for file in pino.json.log winston.json.log winston.log; do
  ship_log_file "$OUT/$file" node-shop nodejs "$TAGS,filename:$file"
done
stop_capture_agent
