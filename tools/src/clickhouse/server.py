"""A ClickHouse server for dd-otlp-bridge's stack and tests, from the chdb-core wheel.

clickhouse-local (ClickHouse >= 26) opens real TCP/HTTP listeners on `SYSTEM START LISTEN`, reading
tcp_port, http_port and listen_host from a config.xml in the current directory; only chdb's
stateless `query(sql, format, path=...)` entry runs clickhouse-local, so this script loads the
extension module directly (importing the `chdb` package would open a listener-less embedded
server first) and keeps that query running with a sleepEachRow scan until `KILL QUERY` ends it.
tools/src/clickhouse/launcher.ts writes config.xml and users.xml into the run folder, gives the
`control` user's password on stdin, and starts and stops this script.

Before ClickHouse starts, the process confines itself with Landlock (Linux >= 5.13): it may read
the Python it runs on and the system's libraries, /proc and /sys, write only its data and run
folders, and use only its own ports. clickhouse-local reads a path anywhere on disk for the
`file()` function and the Template format's settings whatever the user's grants; the sandbox is
what keeps them from the rest of the disk. Where Landlock is missing the server runs without it
and says so in <run-dir>/sandbox.

Usage: server.py --data-dir DIR --run-dir DIR --http-port N --tcp-port N  (control password on stdin)
It exits when its parent process dies, so a killed stack leaves no server behind.
"""

import argparse
import base64
import ctypes
import http.client
import importlib.machinery
import importlib.util
import os
import signal
import struct
import sys
import threading

# the holding query is found by this alias; KILL QUERY's own text never contains it whole
HOLD_MARK = "dd_bridge_hold"
# the telemetry tables' database (tools/src/clickhouse/config.ts TELEMETRY_DATABASE)
TELEMETRY_DATABASE = "default"
RTLD_DEEPBIND = 0x00008
PARENT_POLL_SECONDS = 0.5

# Landlock (include/uapi/linux/landlock.h); the syscall numbers are the same on every architecture
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FS_READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
# the rights a rule on a file (not a folder) may carry
FS_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
PR_SET_NO_NEW_PRIVS = 38
LIBC = ctypes.CDLL(None, use_errno=True)


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


def fs_rights(abi):
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def landlock(call, *args):
    result = LIBC.syscall(*args)
    if result < 0:
        raise OSError(ctypes.get_errno(), f"landlock {call}: {os.strerror(ctypes.get_errno())}")
    return result


def sandbox(read_only, read_write, bind_ports, connect_ports):
    """Confines this process (and the threads it starts later) with Landlock; returns what it did."""
    abi = LIBC.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    if abi < 1:
        return f"none: Landlock unavailable ({os.strerror(ctypes.get_errno())})"
    handled = fs_rights(abi)
    if abi >= 6:
        attr = struct.pack("QQQ", handled, NET_BIND_TCP | NET_CONNECT_TCP, SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
    elif abi >= 4:
        attr = struct.pack("QQ", handled, NET_BIND_TCP | NET_CONNECT_TCP)
    else:
        attr = struct.pack("Q", handled)
    ruleset = landlock("create_ruleset", SYS_CREATE_RULESET, ctypes.create_string_buffer(attr, len(attr)), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    try:
        for path, rights in [(p, FS_READ) for p in read_only] + [(p, handled) for p in read_write]:
            if not os.path.exists(path):
                continue
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                allowed = rights & handled if os.path.isdir(path) else rights & handled & FS_FILE_RIGHTS
                rule = struct.pack("=Qi", allowed, fd)
                landlock(f"add_rule {path}", SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.create_string_buffer(rule, len(rule)), ctypes.c_uint32(0))
            finally:
                os.close(fd)
        if abi >= 4:
            for port, access in [(p, NET_BIND_TCP) for p in bind_ports] + [(p, NET_CONNECT_TCP) for p in connect_ports]:
                rule = struct.pack("=QQ", access, port)
                landlock(f"add_rule port {port}", SYS_ADD_RULE, ruleset, RULE_NET_PORT, ctypes.create_string_buffer(rule, len(rule)), ctypes.c_uint32(0))
        if LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        landlock("restrict_self", SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return f"landlock ABI {abi}" + ("" if abi >= 4 else " (files only: ports need ABI 4)")


def confine(args):
    # the Python running this script, the system's libraries, what ClickHouse reads about the
    # machine (/proc, /sys: memory, CPUs, cgroups; another process's /proc files stay closed, as
    # Landlock forbids ptrace-like access outside its domain) and the local time zone
    read_only = sorted({sys.prefix, sys.base_prefix, sys.exec_prefix, "/usr", "/lib", "/lib64", "/proc", "/sys", "/dev/urandom", "/etc/localtime", "/etc/timezone"})
    status = sandbox(read_only, [args.data_dir, args.run_dir, "/dev/null"], [args.http_port, args.tcp_port], [args.http_port])
    with open(os.path.join(args.run_dir, "sandbox"), "w") as f:
        f.write(status + "\n")


def adopt_former_default_database(data_dir):
    """Keeps the tables of a data folder made before config.xml renamed clickhouse-local's own
    database: that database was then `default`, and its Atomic part left metadata/default, a link
    to its folder in store/, without the metadata/default.sql that loads it. Written here, that
    file makes the folder the plain Atomic `default` database, tables and all."""
    link = os.path.join(data_dir, "metadata", TELEMETRY_DATABASE)
    sql = link + ".sql"
    if os.path.islink(link) and not os.path.exists(sql):
        uuid = os.path.basename(os.readlink(link).rstrip("/"))
        with open(sql, "w") as f:
            f.write(f"ATTACH DATABASE _ UUID '{uuid}'\nENGINE = Atomic\n")


def kill_hold_query(http_port, control_password):
    sql = f"KILL QUERY WHERE query LIKE concat('%', '{HOLD_MARK[:8]}', '{HOLD_MARK[8:]}', '%')"
    auth = base64.b64encode(f"control:{control_password}".encode()).decode()
    connection = http.client.HTTPConnection("127.0.0.1", http_port, timeout=5)
    try:
        connection.request("POST", "/", body=sql.encode(), headers={"Authorization": f"Basic {auth}"})
        reply = connection.getresponse()
        if reply.status != 200:
            print(f"clickhouse: KILL QUERY answered {reply.status}: {reply.read().decode(errors='replace').strip()}", file=sys.stderr, flush=True)
    except OSError as err:
        print(f"clickhouse: KILL QUERY failed: {err}", file=sys.stderr, flush=True)
    finally:
        connection.close()


# what clickhouse-local prints of the holding query when KILL QUERY ends it: the normal stop
CANCELLED_LINE = b"Code: 394. DB::Exception: Query was cancelled. (QUERY_WAS_CANCELLED)"


def quiet_normal_stop():
    """
    Everything written to this process's stderr (ClickHouse's own messages, from C++, included)
    goes on through a thread that leaves out CANCELLED_LINE once the stop has begun; returns the
    event that says so. Before that the line is a real error and is kept.
    """
    stopping = threading.Event()
    read_end, write_end = os.pipe()
    original = os.dup(2)
    os.dup2(write_end, 2)
    os.close(write_end)

    def forward():
        with os.fdopen(read_end, "rb") as lines:
            for line in lines:
                if not (stopping.is_set() and line.rstrip(b"\n") == CANCELLED_LINE):
                    os.write(original, line)

    threading.Thread(target=forward, name="stderr", daemon=True).start()
    return stopping


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--http-port", type=int, required=True)
    parser.add_argument("--tcp-port", type=int, required=True)
    args = parser.parse_args()
    control_password = sys.stdin.readline().strip()
    if not control_password:
        sys.exit("clickhouse: expected the control user's password on stdin")

    stop_begun = quiet_normal_stop()
    os.makedirs(args.data_dir, exist_ok=True)
    adopt_former_default_database(args.data_dir)
    confine(args)
    chdb = load_chdb()
    os.chdir(args.run_dir)

    outcome = {}

    def serve():
        # one row per second (a larger block would ask sleepEachRow for more than its 3 s cap)
        result = chdb.query(
            f"CREATE DATABASE IF NOT EXISTS {TELEMETRY_DATABASE}; SYSTEM START LISTEN TCP; SYSTEM START LISTEN HTTP; "
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
            stop_begun.set()
            kill_hold_query(args.http_port, control_password)
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
