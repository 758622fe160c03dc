#!/usr/bin/env bash
# Captures dd-java-agent twice (see README.md), both with the V1 protocol requested
# (dd.trace.agent.protocol.version=1.0; the agent's default is 0.4): into
# test/fixtures/captured/java-dd-java-agent-<version>-v1/ with /info advertising /v1.0/traces, and
# into ...-v0.4/ without it (the agent falls back to v0.4).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
source "$ROOT/test/clients/capture-lib.sh"

VERSION=${DD_JAVA_AGENT_VERSION:-1.68.1}
CACHE=$CLIENTS_CACHE/java
BUILD=$CACHE/build
MVN=(mvn -q -B -f "$HERE/pom.xml" -Dmaven.repo.local="$CACHE/m2" -Dclients.build="$BUILD")
"${MVN[@]}" compile dependency:build-classpath -Dmdep.outputFile="$BUILD/classpath.txt"
AGENT_JAR=$CACHE/dd-java-agent-$VERSION.jar
[ -f "$AGENT_JAR" ] || "${MVN[@]}" dependency:copy -Dartifact="com.datadoghq:dd-java-agent:$VERSION" -DoutputDirectory="$CACHE"

# capture PROTOCOL [capture-agent options]
capture() {
  OUT=$ROOT/test/fixtures/captured/java-dd-java-agent-$VERSION-$1
  shift
  start_capture_agent "$@"
  java -javaagent:"$AGENT_JAR" -Ddd.trace.agent.url="$CAPTURE_URL" \
    -Ddd.service=java-shop -Ddd.env=capture -Ddd.version=1.0.0 -Ddd.logs.injection=true \
    -Ddd.trace.agent.protocol.version=1.0 -Dlog.dir="$OUT" \
    -cp "$BUILD/classes:$(cat "$BUILD/classpath.txt")" shop.ShopApplication
  local tags=env:capture,version:1.0.0
  for file in app.default.log app.log app.json.log; do
    ship_log_file "$OUT/$file" java-shop java "$tags,filename:$file"
  done
  stop_capture_agent
}

trap stop_capture_agent EXIT
capture v1
capture v0.4 --without-v1
