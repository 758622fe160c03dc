"""A ClickHouse server for dd-otlp-bridge's stack and tests, from the chdb-core wheel.

clickhouse-local (ClickHouse >= 26) opens real TCP/HTTP listeners on `SYSTEM START LISTEN`, reading
tcp_port, http_port and listen_host from a config.xml in the current directory; only chdb's
stateless `query(sql, format, path=...)` entry runs clickhouse-local, so this script loads the
extension module directly (importing the `chdb` package would open a listener-less embedded
server first) and keeps that query running with a sleepEachRow scan until `KILL QUERY` ends it.
tools/src/clickhouse/launcher.ts starts and stops it.

Usage: server.py --data-dir DIR --run-dir DIR --http-port N --tcp-port N
It exits when its parent process dies, so a killed stack leaves no server behind.
"""

import argparse
import ctypes
import importlib.machinery
import importlib.util
import os
import signal
import sys
import threading
import urllib.parse
import urllib.request

# the holding query is found by this alias; KILL QUERY's own text never contains it whole
HOLD_MARK = "dd_bridge_hold"
RTLD_DEEPBIND = 0x00008
PARENT_POLL_SECONDS = 0.5


def load_chdb():
    spec = importlib.util.find_spec("chdb")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("clickhouse: the chdb-core package is not installed in this Python")
    package_dir = list(spec.submodule_search_locations)[0]
    library = os.path.join(package_dir, "_chdb.abi3.so")
    # as chdb's own __init__.py does: its bundled allocator must win over a global libstdc++, and
    # the extension resolves its pybind11 stubs relative to the current directory while loading
    cwd = os.getcwd()
    os.chdir(package_dir)
    try:
        ctypes.CDLL(library, mode=sys.getdlopenflags() | RTLD_DEEPBIND)
        loader = importlib.machinery.ExtensionFileLoader("chdb._chdb", library)
        module_spec = importlib.util.spec_from_loader("chdb._chdb", loader)
        module = importlib.util.module_from_spec(module_spec)
        loader.exec_module(module)
        return module
    finally:
        os.chdir(cwd)


def write_config(run_dir, http_port, tcp_port):
    # loopback only: user `default` has no password
    with open(os.path.join(run_dir, "config.xml"), "w") as f:
        f.write(
            "<clickhouse>\n"
            "  <listen_host>127.0.0.1</listen_host>\n"
            f"  <http_port>{http_port}</http_port>\n"
            f"  <tcp_port>{tcp_port}</tcp_port>\n"
            "  <users_config>users.xml</users_config>\n"
            "</clickhouse>\n"
        )
    with open(os.path.join(run_dir, "users.xml"), "w") as f:
        f.write(
            "<clickhouse>\n"
            "  <profiles><default/></profiles>\n"
            "  <quotas><default/></quotas>\n"
            "  <users>\n"
            "    <default>\n"
            "      <password></password>\n"
            "      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>\n"
            "      <profile>default</profile>\n"
            "      <quota>default</quota>\n"
            "      <access_management>1</access_management>\n"
            "    </default>\n"
            "  </users>\n"
            "</clickhouse>\n"
        )


def kill_hold_query(http_port):
    sql = f"KILL QUERY WHERE query LIKE concat('%', '{HOLD_MARK[:8]}', '{HOLD_MARK[8:]}', '%')"
    url = f"http://127.0.0.1:{http_port}/?" + urllib.parse.urlencode({"query": sql})
    try:
        urllib.request.urlopen(urllib.request.Request(url, data=b"", method="POST"), timeout=5).read()
    except OSError as err:
        print(f"clickhouse: KILL QUERY failed: {err}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--http-port", type=int, required=True)
    parser.add_argument("--tcp-port", type=int, required=True)
    args = parser.parse_args()

    chdb = load_chdb()
    os.makedirs(args.data_dir, exist_ok=True)
    write_config(args.run_dir, args.http_port, args.tcp_port)
    os.chdir(args.run_dir)

    outcome = {}

    def serve():
        # one row per second (a larger block would ask sleepEachRow for more than its 3 s cap)
        result = chdb.query(
            "SYSTEM START LISTEN TCP; SYSTEM START LISTEN HTTP; "
            f"SELECT max(sleepEachRow(1)) AS {HOLD_MARK} FROM numbers(1000000000000) SETTINGS max_block_size = 1",
            "CSV",
            path=args.data_dir,
        )
        if result.has_error():
            outcome["error"] = result.error_message()

    server = threading.Thread(target=serve, name="clickhouse", daemon=True)
    server.start()

    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    parent = os.getppid()
    while server.is_alive():
        if stopping.is_set() or os.getppid() != parent:
            kill_hold_query(args.http_port)
            server.join(timeout=30)
            break
        server.join(timeout=PARENT_POLL_SECONDS)

    error = outcome.get("error")
    # KILL QUERY ends the holding query with QUERY_WAS_CANCELLED: that is the normal stop
    if error is not None and "QUERY_WAS_CANCELLED" not in error:
        print(f"clickhouse: {error.strip()}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
