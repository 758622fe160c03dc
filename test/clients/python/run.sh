#!/usr/bin/env bash
# Captures Python ddtrace into test/fixtures/captured/python-ddtrace-<version>/ (see README.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
source "$ROOT/test/clients/capture-lib.sh"

VENV=$CLIENTS_CACHE/python/venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -r "$HERE/requirements.txt"
VERSION=$("$VENV/bin/python" -c 'import ddtrace; print(ddtrace.__version__)')
OUT=$ROOT/test/fixtures/captured/python-ddtrace-$VERSION

trap stop_capture_agent EXIT
start_capture_agent
env DD_TRACE_AGENT_URL="$CAPTURE_URL" DD_SERVICE=py-shop DD_ENV=capture DD_VERSION=1.0.0 DD_LOGS_INJECTION=true \
  "$VENV/bin/ddtrace-run" "$VENV/bin/python" "$HERE/app.py" "$OUT"
TAGS=env:capture,version:1.0.0
ship_log_file "$OUT/app.log" py-shop python "$TAGS,filename:app.log"
ship_log_file "$OUT/app.json.log" py-shop python "$TAGS,filename:app.json.log"
stop_capture_agent
