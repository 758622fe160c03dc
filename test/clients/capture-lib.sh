# Shared by the per-client run.sh scripts: start the capture agent into a fixture directory,
# ship an app's log files through it as the logs agent would, stop it.
# Needs ROOT (the repository) and OUT (the fixture directory) set by the caller, which also traps
# EXIT with stop_capture_agent so the agent never outlives a failed run.
CLIENTS_CACHE=${DD_BRIDGE_CLIENTS_CACHE:-$HOME/.cache/dd-otlp-bridge/clients}
# 0: a free port, so captures by several developers on one machine never clash.
CAPTURE_PORT=${CAPTURE_PORT:-0}

# A re-capture replaces everything in the fixture directory but its hand-written README.md.
# start_capture_agent [capture-agent options, e.g. --without-v1]
start_capture_agent() {
  mkdir -p "$OUT" && find "$OUT" -mindepth 1 ! -name README.md -delete
  node -r "$ROOT/tools/register.js" "$ROOT/test/clients/capture-agent.ts" --out "$OUT" --port "$CAPTURE_PORT" --skip '^/telemetry/' "$@" >"$OUT/.agent.out" &
  CAPTURE_PID=$!
  until grep -q '^listening' "$OUT/.agent.out" 2>/dev/null; do
    kill -0 "$CAPTURE_PID" || { echo "capture agent did not start" >&2; return 1; }
    sleep 0.2
  done
  CAPTURE_URL=$(sed -n 's/^listening //p' "$OUT/.agent.out")
}

# ship_log_file FILE SERVICE SOURCE TAGS
ship_log_file() {
  node -r "$ROOT/tools/register.js" "$ROOT/test/clients/ship-logs.ts" --url "$CAPTURE_URL" --file "$1" --service "$2" --source "$3" --hostname capture-host --tags "$4"
}

stop_capture_agent() {
  kill "$CAPTURE_PID" 2>/dev/null && wait "$CAPTURE_PID" || true
  rm -f "$OUT/.agent.out"
}
