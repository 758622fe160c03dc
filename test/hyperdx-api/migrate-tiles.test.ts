/**
 * The destination's proof for `migrate` (issue 27): real agent metrics for the postgres
 * integration go through the bridge and the collector into a real ClickHouse
 * (test/helpers/postgres-agent-metrics.ts); the integrations-core "Postgres - Metrics" dashboard
 * and its percent_usage_connections monitor (test/fixtures/migrate/) are migrated into the real
 * HyperDX API server, whose connection points at that ClickHouse; then HyperDX itself evaluates
 * every migrated metric tile (`POST /api/v2/charts/series`, the same query builder its charts
 * use) over the minutes sent, and each drawn series must equal what the Datadog query means over
 * the points sent: the space aggregation (avg, sum, max) across the series the filter keeps,
 * per minute, grouped by the tag the query splits by.
 *
 * `charts/series` takes one select per series and no formulas: a tile's selects are asked for as
 * its series (five per request, its limit), and a formula tile's formulas are applied here to
 * what HyperDX returned for their operands (HyperDX applies the same arithmetic in SQL; the UI
 * suite shows the formula tile drawn by HyperDX).
 */
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/tools/collector/build';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { type PostgresWorkload, sendPostgresAgentMetrics } from '../helpers/postgres-agent-metrics';
import { assertCliBuilt, type Run, runBridge } from '../helpers/stack-cli';
import { type Created, seededApiForSuite } from './server';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'migrate');
const KEY = 'migrate-tiles-key';

const running = useClickHouseStack();
const server = seededApiForSuite(() => running.ch.httpUrl);
let workload: PostgresWorkload;

beforeAll(async () => {
  assertCliBuilt();
  workload = await sendPostgresAgentMetrics(running.stack.intakeUrl, KEY);
  await running.ch.waitForRows('SELECT 1 FROM otel_metrics_gauge', workload.series.length * workload.minutes.length, 60_000);
}, 90_000);

const migrate = (args: string[]): Promise<Run> => runBridge(['migrate', ...args], { HYPERDX_API_URL: server.api.baseUrl, HYPERDX_PERSONAL_API_KEY: server.api.apiKey });

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.api.baseUrl}/api/v2${path}`, { method, headers: { authorization: `Bearer ${server.api.apiKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** A series as the Datadog dashboard draws it, in a small notation: `agg:metric [by tag]`, or `X - Y` of two of those. */
type Drawn = string;

/**
 * What each tile of postgres-metrics.json draws, read off its Datadog queries by hand (a bare
 * `metric{…}` is Datadog's default avg; `$scope` defaults to `*`). Written independently of the
 * translation, so a tile the translation gets wrong draws something else.
 */
const POSTGRES_TILES: Record<string, Drawn[]> = {
  'Rows fetched / returned / inserted / updated (per sec)': ['avg:postgresql.rows_fetched', 'avg:postgresql.rows_returned', 'avg:postgresql.rows_inserted', 'avg:postgresql.rows_updated'],
  Connections: ['avg:postgresql.connections by db'],
  'Inserts / updates / deletes (per sec)': ['avg:postgresql.rows_inserted', 'avg:postgresql.rows_deleted', 'avg:postgresql.rows_updated'],
  'Disk utilization (%)': ['avg:system.io.util'],
  'System load': ['avg:system.load.1', 'avg:system.load.5', 'avg:system.load.15'],
  'CPU usage (%)': ['avg:system.cpu.idle', 'avg:system.cpu.system', 'avg:system.cpu.iowait', 'avg:system.cpu.user', 'avg:system.cpu.stolen', 'avg:system.cpu.guest'],
  'I/O wait (%)': ['max:system.cpu.iowait'],
  'System memory': ['sum:system.mem.usable', 'sum:system.mem.total - sum:system.mem.usable'],
  'Network traffic (per sec)': ['sum:system.net.bytes_rcvd', 'sum:system.net.bytes_sent'],
};

/** The monitor's query, `avg(last_15m):avg:postgresql.percent_usage_connections{*} > 0.9 by {host}`. */
const MONITOR_TILE: Drawn[] = ['avg:postgresql.percent_usage_connections by host'];

/** Values by `<bucket start ms>|<group>` (group "" without a group-by). */
type Points = Map<string, number>;

const SPACE_AGGREGATORS: Record<string, (values: number[]) => number> = {
  avg: (v) => v.reduce((a, b) => a + b, 0) / v.length,
  sum: (v) => v.reduce((a, b) => a + b, 0),
  max: (v) => Math.max(...v),
};

/** What a Datadog query means over the points sent: per minute (and group), the space aggregate of the series' values. */
function expectedPoints(drawn: Drawn, sent: PostgresWorkload): Points {
  const difference = /^(.+) - (.+)$/.exec(drawn);
  if (difference) return combine(expectedPoints(difference[1]!, sent), expectedPoints(difference[2]!, sent), (a, b) => a - b);
  const [, agg, metric, by] = /^(\w+):(\S+)(?: by (\w+))?$/.exec(drawn) ?? [];
  const aggregate = SPACE_AGGREGATORS[agg!];
  if (!aggregate) throw new Error(`not a drawn series: ${drawn}`);
  const grouped = new Map<string, number[]>();
  for (const s of sent.series.filter((x) => x.metric === metric)) {
    s.values.forEach((value, i) => {
      const key = `${sent.minutes[i]! * 1000}|${by ? s.tags[by] : ''}`;
      grouped.set(key, [...(grouped.get(key) ?? []), value]);
    });
  }
  return new Map([...grouped].map(([key, values]) => [key, aggregate(values)]));
}

function combine(a: Points, b: Points, op: (x: number, y: number) => number): Points {
  return new Map([...a].filter(([key]) => b.has(key)).map(([key, x]) => [key, op(x, b.get(key)!)]));
}

interface TileSelect {
  aggFn: string;
  level?: number;
  where: string;
  whereLanguage: string;
  metricName: string;
  metricType: string;
}

interface TileConfig {
  displayType: string;
  sourceId: string;
  select: TileSelect[];
  groupBy?: string;
  formulas?: { expression: string }[];
}

/** charts/series' limit of series per request. */
const SERIES_PER_REQUEST = 5;
const BUCKET_COLUMN = '__hdx_time_bucket';

interface ChartRange {
  startTime: number;
  endTime: number;
  granularity: '1m' | '15m';
}

/** The minutes sent, in 1-minute buckets. */
const perMinute = (sent: PostgresWorkload): ChartRange => ({ startTime: sent.minutes[0]! * 1000, endTime: (sent.minutes.at(-1)! + 60) * 1000, granularity: '1m' });

/**
 * HyperDX's values for each select of a tile, per bucket over `range`. Rows come back as
 * columns (`seriesReturnType: column`): the grouped reply keys a group by the group-by text, while
 * the row names it as ClickHouse does (`arrayElement(Attributes, 'db')`), so its `group` would be null.
 */
async function selectPoints(config: TileConfig, range: ChartRange): Promise<Points[]> {
  const series = config.select.map((s) => ({
    sourceId: config.sourceId,
    aggFn: s.aggFn,
    ...(s.level === undefined ? {} : { level: s.level }),
    where: s.where,
    whereLanguage: s.whereLanguage,
    metricName: s.metricName,
    metricDataType: s.metricType,
    groupBy: config.groupBy ? [config.groupBy] : [],
  }));
  const points = series.map((): Points => new Map());
  for (let first = 0; first < series.length; first += SERIES_PER_REQUEST) {
    const rows = await api<Record<string, unknown>[]>('POST', '/charts/series', { series: series.slice(first, first + SERIES_PER_REQUEST), ...range, seriesReturnType: 'column' });
    for (const row of rows) {
      const group = Object.entries(row).find(([column]) => column !== BUCKET_COLUMN && !column.startsWith('series_'))?.[1] ?? '';
      const key = `${Date.parse(`${row[BUCKET_COLUMN] as string}`)}|${group as string}`;
      for (const [column, value] of Object.entries(row)) {
        const index = /^series_(\d+)$/.exec(column)?.[1];
        if (index !== undefined) points[first + Number(index)]!.set(key, Number(value));
      }
    }
  }
  return points;
}

/** A formula over select letters (`B - C`, `(A * 100) / B`) at each key all its operands have. */
function applyFormula(expression: string, operands: Points[]): Points {
  const tokens = expression.match(/[A-Z]|\d+(?:\.\d+)?|[-+*/()]/g) ?? [];
  const letters = [...new Set(tokens.filter((t) => /^[A-Z]$/.test(t)))];
  const keys = [...operands[letters[0]!.charCodeAt(0) - 65]!.keys()].filter((key) => letters.every((l) => operands[l.charCodeAt(0) - 65]!.has(key)));
  return new Map(keys.map((key) => [key, evaluate(tokens, (l) => operands[l.charCodeAt(0) - 65]!.get(key)!)]));
}

/** Arithmetic with the usual precedence, left to right. */
function evaluate(tokens: readonly string[], value: (letter: string) => number): number {
  let pos = 0;
  const primary = (): number => {
    const t = tokens[pos++]!;
    if (t === '(') {
      const v = sum();
      pos++; // ')'
      return v;
    }
    if (t === '-') return -primary();
    return /^[A-Z]$/.test(t) ? value(t) : Number(t);
  };
  const product = (): number => {
    let v = primary();
    while (tokens[pos] === '*' || tokens[pos] === '/') v = tokens[pos++] === '*' ? v * primary() : v / primary();
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (tokens[pos] === '+' || tokens[pos] === '-') v = tokens[pos++] === '+' ? v + product() : v - product();
    return v;
  };
  return sum();
}

/** What HyperDX draws for a tile: its formulas over its selects, else each select. */
async function drawnPoints(config: TileConfig, sent: PostgresWorkload): Promise<Points[]> {
  const selects = await selectPoints(config, perMinute(sent));
  return config.formulas?.length ? config.formulas.map((f) => applyFormula(f.expression, selects)) : selects;
}

/** Sorted `[key, value]` pairs, values rounded off float noise, for one readable diff. */
const comparable = (points: Points): [string, number][] => [...points].map(([key, value]): [string, number] => [key, Math.round(value * 1e6) / 1e6]).sort(([a], [b]) => a.localeCompare(b));

async function expectTileDraws(tile: Created, drawn: Drawn[]): Promise<void> {
  const actual = await drawnPoints(tile.config as TileConfig, workload);
  const expected = drawn.map((d) => expectedPoints(d, workload));
  expect({ tile: tile.name, points: actual.map(comparable) }).toEqual({ tile: tile.name, points: expected.map(comparable) });
}

describe('the Postgres - Metrics dashboard', () => {
  let tiles: Created[];

  beforeAll(async () => {
    const run = await migrate(['dashboards', join(FIXTURES, 'dashboards', 'postgres-metrics.json')]);
    expect({ status: run.status, err: run.err }).toEqual({ status: 0, err: expect.stringContaining('1 created') });
    const [dashboard] = await api<Created[]>('GET', '/dashboards');
    tiles = (dashboard!.tiles as Created[]).filter((t) => (t.config as TileConfig).displayType !== 'markdown');
  }, 60_000);

  it('has one metric tile per Datadog widget', () => {
    expect(tiles.map((t) => t.name).sort()).toEqual(Object.keys(POSTGRES_TILES).sort());
  });

  it.each(Object.entries(POSTGRES_TILES))('"%s" draws what was ingested, as HyperDX computes it', async (name, drawn) => {
    const tile = tiles.find((t) => t.name === name);
    if (!tile) throw new Error(`no tile "${name}"`);
    // every series holds each minute sent (and a group per value of the split tag)
    for (const points of drawn.map((d) => expectedPoints(d, workload))) expect(points.size).toBeGreaterThanOrEqual(workload.minutes.length);
    await expectTileDraws(tile, drawn);
  });
});

describe('the percent_usage_connections monitor', () => {
  let dashboard: Created | undefined;
  let tile: Created;

  beforeAll(async () => {
    const monitor = join(FIXTURES, 'monitors', 'postgres-percent_usage_connections.json');
    const run = await migrate(['monitors', monitor, '--default-webhook', server.webhookId]);
    expect({ status: run.status, err: run.err }).toEqual({ status: 0, err: expect.stringContaining('1 created') });
    dashboard = (await api<Created[]>('GET', '/dashboards')).find((d) => (d.tags as string[]).includes('dd-migrate:monitors'));
    const [first] = (dashboard?.tiles ?? []) as Created[];
    if (!first) throw new Error(`no monitors dashboard with a tile: ${JSON.stringify(dashboard)}`);
    tile = first;
  }, 60_000);

  it('becomes an alert on a tile that draws each host as ingested', async () => {
    const [alert] = await api<Created[]>('GET', '/alerts');
    // `> 0.9` over the last 15 minutes, on that tile, to the webhook
    expect(alert).toMatchObject({ source: 'tile', dashboardId: dashboard?.id, tileId: tile.id, threshold: 0.9, thresholdType: 'above_exclusive', interval: '15m', channel: { type: 'webhook', webhookId: server.webhookId } });
    await expectTileDraws(tile, MONITOR_TILE);
  });

  it('over the alert’s 15-minute window, HyperDX reads each host’s last point, not Datadog’s mean of the window', async () => {
    // HyperDX buckets a gauge series by its last value in each interval, then aggregates across series
    const window = (workload.minutes[0]! - 60) * 1000;
    const [points] = await selectPoints(tile.config as TileConfig, { startTime: window, endTime: window + 900_000, granularity: '15m' });
    const usage = workload.series.filter((s) => s.metric === 'postgresql.percent_usage_connections');
    const last = new Map(usage.map((s) => [`${window}|${s.host}`, s.values.at(-1)!]));
    const mean = new Map(usage.map((s) => [`${window}|${s.host}`, SPACE_AGGREGATORS.avg!(s.values)]));
    expect(comparable(points!)).toEqual(comparable(last));
    // the workload tells the two apart (pg-1: mean 0.9467, last 0.97; both above 0.9, so the alert fires either way here)
    expect(comparable(points!)).not.toEqual(comparable(mean));
  });
});
