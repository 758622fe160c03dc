#!/usr/bin/env bash
# Captures dd-trace-go v2 twice (see README.md): into
# test/fixtures/captured/go-dd-trace-go-<version>-v1/ with /info advertising /v1.0/traces (the
# tracer switches to the V1 protocol) and into ...-v0.4/ without it (the tracer stays on v0.4).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
source "$ROOT/test/clients/capture-lib.sh"

APP=$CLIENTS_CACHE/go/goapp
mkdir -p "$(dirname "$APP")"
(cd "$HERE" && go build -o "$APP" .)
VERSION=$(cd "$HERE" && go list -m -f '{{.Version}}' github.com/DataDog/dd-trace-go/v2)

# capture PROTOCOL [capture-agent options]
capture() {
  OUT=$ROOT/test/fixtures/captured/go-dd-trace-go-${VERSION#v}-$1
  shift
  start_capture_agent "$@"
  env DD_TRACE_AGENT_URL="$CAPTURE_URL" DD_SERVICE=go-shop DD_ENV=capture DD_VERSION=1.0.0 \
    DD_LOGS_INJECTION=true "$APP" "$OUT"
  local tags=env:capture,version:1.0.0
  ship_log_file "$OUT/app.json.log" go-shop go "$tags,filename:app.json.log"
  ship_log_file "$OUT/app.text.log" go-shop go "$tags,filename:app.text.log"
  stop_capture_agent
}

trap stop_capture_agent EXIT
capture v1
capture v0.4 --without-v1
