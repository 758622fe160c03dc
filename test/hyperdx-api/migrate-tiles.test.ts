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
 * its series (five per request, its limit). A tile with formulas is run the way the HyperDX UI
 * runs it instead, by HyperDX's own query builder (./render-tile.js), with the tables and time
 * column of the server's Metrics source.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { type ApiTile, localTileConfig } from '../helpers/local-dashboard';
import { type PostgresWorkload, sendPostgresAgentMetrics } from '../helpers/postgres-agent-metrics';
import { assertCliBuilt, type Run, runTools } from '../helpers/stack-cli';
import { type Created, seededApiForSuite } from './server';
import { ensureApiNode, ensureHyperdxApi } from './setup';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'migrate');
const KEY = 'migrate-tiles-key';

const running = useClickHouseStack();
const server = seededApiForSuite(() => ({ url: running.ch.httpUrl, login: running.ch.credentials.reader }));
let workload: PostgresWorkload;

beforeAll(async () => {
  assertCliBuilt();
  workload = await sendPostgresAgentMetrics(running.stack.intakeUrl, KEY);
  await running.ch.waitForRows('SELECT 1 FROM otel_metrics_gauge', workload.series.length * workload.minutes.length, 60_000);
  await running.ch.waitForRows('SELECT 1 FROM otel_metrics_sum', workload.counts.length * workload.minutes.length, 60_000);
}, 90_000);

const migrate = (args: string[]): Promise<Run> => runTools(['migrate', ...args], { HYPERDX_API_URL: server.api.baseUrl, HYPERDX_PERSONAL_API_KEY: server.api.apiKey });

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
  for (const s of [...sent.series, ...sent.counts].filter((x) => x.metric === metric)) {
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
  formulas?: { expression: string; alias?: string }[];
}

/** charts/series' limit of series per request. */
const SERIES_PER_REQUEST = 5;
const BUCKET_COLUMN = '__hdx_time_bucket';

interface ChartRange {
  startTime: number;
  endTime: number;
  granularity: '1m' | '15m';
}

/** charts/series' granularity names, and the query builder's. */
const GRANULARITY: Record<ChartRange['granularity'], string> = { '1m': '1 minute', '15m': '15 minute' };

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

interface MetricSource {
  id: string;
  from: { databaseName: string };
  timestampValueExpression: string;
  metricTables: Record<string, string>;
}

/**
 * HyperDX's values for each formula of a tile, per bucket over `range`, from the query its UI
 * runs for the tile: the tile's config with its source's tables and time column, as a dashboard
 * page builds it. A formula's column is named by its alias, else its expression.
 */
async function formulaPoints(config: TileConfig, range: ChartRange): Promise<Points[]> {
  const source = (await api<MetricSource[]>('GET', '/sources')).find((s) => s.id === config.sourceId);
  if (!source) throw new Error(`no source ${config.sourceId}`);
  const chart = {
    ...localTileConfig({ name: '', x: 0, y: 0, w: 0, h: 0, config } as ApiTile),
    connection: 'test',
    dateRange: [range.startTime, range.endTime],
    granularity: GRANULARITY[range.granularity],
    timestampValueExpression: source.timestampValueExpression,
    from: { databaseName: source.from.databaseName, tableName: source.metricTables[config.select[0]!.metricType] },
    metricTables: source.metricTables,
    filters: [],
  };
  const node = ensureApiNode();
  const commonUtils = join(ensureHyperdxApi(), 'packages', 'common-utils');
  const run = spawnSync(node, [join(__dirname, 'render-tile.js')], { input: JSON.stringify({ commonUtils, clickhouseUrl: running.ch.httpUrl, login: running.ch.credentials.reader, config: chart }), encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`render-tile.js exited ${run.status}: ${run.stderr}`);
  const rows = JSON.parse(run.stdout) as Record<string, unknown>[];
  const columns = (config.formulas ?? []).map((f) => f.alias ?? f.expression);
  return columns.map((column) => {
    const points: Points = new Map();
    for (const row of rows) {
      // the group-by column: neither the bucket, a formula, nor an operand series (A, B, …)
      const group = Object.entries(row).find(([name]) => name !== BUCKET_COLUMN && !columns.includes(name) && !/^[A-Z]$/.test(name))?.[1] ?? '';
      if (row[column] !== undefined) points.set(`${Date.parse(`${row[BUCKET_COLUMN] as string}`)}|${group as string}`, Number(row[column]));
    }
    return points;
  });
}

/** What HyperDX draws for a tile: its formulas, else each select. */
async function drawnPoints(config: TileConfig, sent: PostgresWorkload): Promise<Points[]> {
  return config.formulas?.length ? formulaPoints(config, perMinute(sent)) : selectPoints(config, perMinute(sent));
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
    // a title ending in [≈] marks a tile whose widget is approximated (here: system.* metrics of unknown type, read as gauges)
    tiles = (dashboard!.tiles as Created[]).filter((t) => (t.config as TileConfig).displayType !== 'markdown').map((t) => ({ ...t, name: (t.name as string).replace(/ \[≈\]$/, '') }));
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

describe('a count metric queried without .as_count()', () => {
  // hand-made: no integrations-core dashboard of the set charts a count metric; the query is the
  // postgres check's own metric, which its metadata.csv lists as a count
  const drawn: Drawn[] = ['sum:postgresql.bgwriter.checkpoints_timed by host'];
  const exportFile = join(mkdtempSync(join(tmpdir(), 'migrate-count-')), 'checkpoints.json');
  writeFileSync(exportFile, JSON.stringify({ title: 'Checkpoints', layout_type: 'ordered', widgets: [{ definition: { type: 'timeseries', title: 'Checkpoints', requests: [{ q: 'sum:postgresql.bgwriter.checkpoints_timed{*} by {host}' }] } }] }));

  async function migratedTile(extra: string[]): Promise<Created> {
    const run = await migrate(['dashboards', exportFile, ...extra]);
    expect(run.status).toBe(0);
    const dashboard = (await api<Created[]>('GET', '/dashboards')).find((d) => d.name === 'Checkpoints');
    const tile = ((dashboard?.tiles ?? []) as Created[]).find((t) => t.name === 'Checkpoints');
    if (!tile) throw new Error(`no Checkpoints tile: ${JSON.stringify(dashboard)}`);
    return tile;
  }

  it('draws nothing from the gauge table, where the bridge never writes a count', async () => {
    const tile = await migratedTile([]);
    const [points] = await selectPoints(tile.config as TileConfig, perMinute(workload));
    expect(points?.size).toBe(0);
  }, 60_000);

  it("with --metric-types (the check's metadata.csv) it reads the sum table and draws each host's counts", async () => {
    const tile = await migratedTile(['--metric-types', join(FIXTURES, 'metadata', 'postgres-metadata.csv')]);
    expect(expectedPoints(drawn[0]!, workload).size).toBe(workload.minutes.length * workload.counts.length);
    await expectTileDraws(tile, drawn);
  }, 60_000);
});
