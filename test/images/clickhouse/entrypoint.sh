#!/bin/sh
# The official image's contract, as far as the compose file and the tests use it: CLICKHOUSE_USER
# (not "default") with CLICKHOUSE_PASSWORD, reachable from any address, every right on the
# telemetry database `default`; HTTP 8123, native 9000. The rest is what tools/src/clickhouse/
# config.ts gives server.py: `default` is clickhouse-local's own session (loopback, one session,
# only what starts the listeners), `control` only stops the server (KILL QUERY), with a password
# made here and handed to server.py on stdin.
set -eu
run=$(mktemp -d)
user=${CLICKHOUSE_USER:-otel}
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
control=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
cat > "$run/config.xml" <<XML
<clickhouse>
  <listen_host>0.0.0.0</listen_host>
  <http_port>8123</http_port>
  <tcp_port>9000</tcp_port>
  <users_config>users.xml</users_config>
  <default_database>_local</default_database>
</clickhouse>
XML
cat > "$run/users.xml" <<XML
<clickhouse>
  <profiles><default/><locked><max_sessions_for_user>1</max_sessions_for_user></locked></profiles>
  <quotas><default/></quotas>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>locked</profile><quota>default</quota><grants><query>GRANT CREATE DATABASE ON default.*</query><query>GRANT SYSTEM LISTEN ON *.*</query></grants></default>
    <$user><password_sha256_hex>$(sha "${CLICKHOUSE_PASSWORD:-}")</password_sha256_hex><networks><ip>0.0.0.0/0</ip><ip>::/0</ip></networks><profile>default</profile><quota>default</quota><default_database>default</default_database><grants><query>GRANT ALL ON default.*</query><query>GRANT TABLE ENGINE ON MergeTree</query><query>GRANT SELECT ON system.*</query></grants></$user>
    <control><password_sha256_hex>$(sha "$control")</password_sha256_hex><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota><grants><query>GRANT KILL QUERY ON *.*</query><query>GRANT SELECT ON system.processes</query></grants></control>
  </users>
</clickhouse>
XML
exec /opt/chdb/bin/python /opt/ddb/server.py --data-dir /var/lib/clickhouse --run-dir "$run" --http-port 8123 --tcp-port 9000 <<STDIN
$control
STDIN
