"""Bytes of a stopped bench ClickHouse's tables, each merged into one wide part first.

Compressed size depends on how rows were cut into parts (the exporter's batches, the merges that
happened to run) and compact parts keep no per-column sizes, so bench/bytes.ts stops the server
and runs this on its data folder: every table named is switched to wide parts
and merged (OPTIMIZE FINAL), then its part and per-column sizes are printed as JSON lines. Both
sides of a comparison are so read in the same state.

Usage: merged-bytes.py DATA_DIR otel_logs[,otel_traces…]   (runs in the bench's venv)
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools", "src", "clickhouse"))
from server import load_chdb  # noqa: E402


def main():
    data_dir, tables = sys.argv[1], sys.argv[2].split(",")
    chdb = load_chdb()
    # clickhouse-local reads a config.xml from the current folder: the bench server's is not wanted here
    os.chdir(tempfile.mkdtemp())
    names = ", ".join(f"'{t}'" for t in tables)
    merge = "".join(f"ALTER TABLE default.`{t}` MODIFY SETTING min_bytes_for_wide_part = 0, min_rows_for_wide_part = 0; OPTIMIZE TABLE default.`{t}` FINAL; " for t in tables)
    where = f"active AND database = 'default' AND table IN ({names})"
    # chdb's stateless entry runs clickhouse-local once per process: one call, statements in a row
    result = chdb.query(
        merge
        + f"SELECT 'table' AS kind, table, '' AS column, sum(rows) AS rows, count() AS parts, sum(data_compressed_bytes) AS compressed, sum(data_uncompressed_bytes) AS uncompressed FROM system.parts WHERE {where} GROUP BY table "
        + f"UNION ALL SELECT 'column', table, column, 0, 0, sum(column_data_compressed_bytes), sum(column_data_uncompressed_bytes) FROM system.parts_columns WHERE {where} GROUP BY table, column",
        "JSONEachRow",
        path=data_dir,
    )
    if result.has_error():
        sys.exit(f"merged-bytes: {result.error_message().strip()}")
    sys.stdout.write(result.bytes().decode())


if __name__ == "__main__":
    main()
