/**
 * The end-to-end bench's destination: one real ClickHouse per side (the embedded chdb-core server,
 * tools/src/clickhouse/), pinned to the side's cores so that its CPU is counted as the side's own and
 * nothing of one side's writes lands on the other's bill. Both collectors write to it through the
 * same clickhouse exporter build with the same disk queue (collector/config.yaml).
 *
 * What is read back: how many rows a signal's tables hold (the drain: every acknowledged record
 * is in ClickHouse before the CPU is sampled) and, once the server is stopped, the compressed bytes
 * they take per table and per column (system.parts, system.parts_columns; merged-bytes.py).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureClickHouseVenv } from '../tools/src/clickhouse/launcher';
import { startTestClickHouse, TEST_CLICKHOUSE_HOME, type TestClickHouse } from '../test/helpers/clickhouse';
import type { ScenarioName } from './scenarios';

/** The tables a scenario's records land in (a LIKE pattern): spans, log records, metric points. */
export const TABLES_OF: Record<ScenarioName, string> = {
  traces: 'otel_traces',
  'traces-v05': 'otel_traces',
  logs: 'otel_logs',
  'logs-unmatched': 'otel_logs',
  series: 'otel_metrics_%',
  sketches: 'otel_metrics_%',
};

const ACTIVE = "active AND database = 'default'";

export async function startBenchClickHouse(pin: (pid: number) => void): Promise<TestClickHouse> {
  const ch = await startTestClickHouse();
  pin(ch.pid());
  return ch;
}

/** Rows the scenario's tables hold (active parts: what a SELECT count() would give). */
export async function storedRows(ch: Pick<TestClickHouse, 'query'>, scenario: ScenarioName): Promise<number> {
  const [row] = await ch.query<{ rows: string }>(`SELECT sum(rows) AS rows FROM system.parts WHERE ${ACTIVE} AND table LIKE '${TABLES_OF[scenario]}'`);
  return Number(row?.rows ?? 0);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the tables hold `expected` rows, or their count has not moved for `quietMs` (a side
 * that writes fewer rows than it acknowledged records would otherwise be waited for forever; the
 * caller reports the count against what was sent). Resolves with the final count.
 */
export async function drained(ch: Pick<TestClickHouse, 'query'>, scenario: ScenarioName, expected: number, quietMs = 4000, timeoutMs = 180_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let since = Date.now();
  for (;;) {
    const rows = await storedRows(ch, scenario).catch(() => 0);
    if (rows >= expected) return rows;
    if (rows !== last) [last, since] = [rows, Date.now()];
    else if (Date.now() - since >= quietMs || Date.now() > deadline) return rows;
    await sleep(200);
  }
}

export interface TableBytes {
  table: string;
  rows: number;
  parts: number;
  compressed: number;
  uncompressed: number;
}

export interface ColumnBytes {
  table: string;
  column: string;
  compressed: number;
  uncompressed: number;
}

const MERGED_BYTES = join(__dirname, 'merged-bytes.py');
const METRIC_TABLES = ['otel_metrics_gauge', 'otel_metrics_sum', 'otel_metrics_summary', 'otel_metrics_histogram', 'otel_metrics_exp_histogram'];
/** Every table the exporter creates for the scenario's signal (create_schema makes them all at start). */
const MERGED_TABLES: Record<ScenarioName, readonly string[]> = { traces: ['otel_traces'], 'traces-v05': ['otel_traces'], logs: ['otel_logs'], 'logs-unmatched': ['otel_logs'], series: METRIC_TABLES, sketches: METRIC_TABLES };

/**
 * The scenario's tables in a stopped bench ClickHouse, each merged into one wide part first
 * (merged-bytes.py): per table and per column, largest column first.
 */
export async function mergedBytes(dataDir: string, scenario: ScenarioName): Promise<{ tables: TableBytes[]; columns: ColumnBytes[] }> {
  const python = await ensureClickHouseVenv(TEST_CLICKHOUSE_HOME);
  const out = execFileSync(python, [MERGED_BYTES, dataDir, MERGED_TABLES[scenario].join(',')], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const rows = out
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<'kind' | keyof TableBytes | keyof ColumnBytes, string | number>);
  const byColumn = (r: (typeof rows)[number]): number => -Number(r.compressed);
  return {
    tables: rows.filter((r) => r.kind === 'table').map((r) => ({ table: String(r.table), rows: Number(r.rows), parts: Number(r.parts), compressed: Number(r.compressed), uncompressed: Number(r.uncompressed) })),
    columns: rows
      .filter((r) => r.kind === 'column')
      .sort((x, y) => byColumn(x) - byColumn(y))
      .map((r) => ({ table: String(r.table), column: String(r.column), compressed: Number(r.compressed), uncompressed: Number(r.uncompressed) })),
  };
}
