#!/bin/sh
# The official image's contract, as far as the compose file and the tests use it: CLICKHOUSE_USER
# (not "default") with CLICKHOUSE_PASSWORD, reachable from any address; HTTP 8123, native 9000.
# User "default" stays, without a password and from inside the container only: server.py's own
# queries (the one that keeps the server up, and KILL QUERY to stop it) run as it.
set -eu
run=$(mktemp -d)
user=${CLICKHOUSE_USER:-otel}
hash=$(printf '%s' "${CLICKHOUSE_PASSWORD:-}" | sha256sum | cut -d' ' -f1)
cat > "$run/users-env.xml" <<XML
<clickhouse>
  <profiles><default/></profiles>
  <quotas><default/></quotas>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
    <$user>
      <password_sha256_hex>$hash</password_sha256_hex>
      <networks><ip>0.0.0.0/0</ip><ip>::/0</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
      <access_management>1</access_management>
    </$user>
  </users>
</clickhouse>
XML
exec /opt/chdb/bin/python /opt/ddb/server.py --data-dir /var/lib/clickhouse --run-dir "$run" \
  --http-port 8123 --tcp-port 9000 --listen-host 0.0.0.0 --users-file "$run/users-env.xml"
