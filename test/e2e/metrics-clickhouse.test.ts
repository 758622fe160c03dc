/**
 * Metrics with ClickHouse as the judge (issue 23, item 3): real clients through bridge → collector →
 * ClickHouse, read back with the columns HyperDX's metric charts read (docs/hyperdx-ui.md, What HyperDX reads;
 * `MetricName`, `Value`, `TimeUnix`, `ResourceAttributes`, `Attributes`, and for sums
 * `AggregationTemporality`/`IsMonotonic`). Each Datadog type lands in the table docs/translation.md
 * ("Type mapping") gives it:
 *
 * - gauge, v2 type 0, service check → otel_metrics_gauge;
 * - count, rate → otel_metrics_sum, Delta (AggregationTemporality 1), not monotonic, rate × interval;
 * - distribution points → otel_metrics_exp_histogram, scale 5 (the name HyperDX's auto-detection
 *   looks for, tools/src/collector/run.ts).
 *
 * The clients: `@datadog/datadog-api-client` (v1 and v2 submitMetrics, submitDistributionPoints,
 * submitServiceCheck), `datadog-metrics` (which builds its own client configuration, so the client's
 * `createConfiguration` is wrapped to point it at the sidecar, as in metrics-datadog-metrics.test.ts),
 * and the collector's datadog exporter 0.155.0 as captured (test/fixtures/captured/datadog-exporter-0.155.0/).
 */
import { client, v1, v2 } from '@datadog/datadog-api-client';
import { randomUUID } from 'node:crypto';
import { capturedDir, non2xx, replayCaptured } from '../helpers/captured';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { sendWorkload } from '../helpers/datadog-metrics';

// jest hoists this above the imports, so datadog-metrics binds to the wrapped client
let mockIntakeUrl = '';
jest.mock('@datadog/datadog-api-client', () => {
  const actual = jest.requireActual('@datadog/datadog-api-client');
  const createConfiguration = (conf: Record<string, unknown> = {}) => actual.client.createConfiguration({ baseServer: new actual.client.BaseServerConfiguration(mockIntakeUrl, {}), ...conf });
  return { ...actual, client: { ...actual.client, createConfiguration } };
});

const TIMEOUT_MS = 60_000;
/** OTLP's AggregationTemporality as the exporter stores it (Int32). */
const DELTA = 1;
const now = (): number => Math.floor(Date.now() / 1000);

/** The columns every metrics table shares, times as Unix seconds (every client here sends whole seconds). */
const COMMON = `MetricName, MetricUnit, ServiceName, ResourceAttributes, Attributes, toUnixTimestamp(TimeUnix) AS time, toUnixTimestamp(StartTimeUnix) AS start`;

type Row = Record<'MetricName' | 'MetricUnit' | 'ServiceName', string> & Record<'ResourceAttributes' | 'Attributes', Record<string, string>> & Record<'time' | 'start', number>;
type GaugeRow = Row & { Value: number };
type SumRow = GaugeRow & { AggregationTemporality: number; IsMonotonic: boolean };
interface ExpHistogramRow extends Row {
  Count: number;
  Sum: number;
  Min: number;
  Max: number;
  Scale: number;
  ZeroCount: number;
  PositiveOffset: number;
  PositiveBucketCounts: number[];
  NegativeOffset: number;
  NegativeBucketCounts: number[];
  AggregationTemporality: number;
}

const TABLES = {
  gauge: { table: 'otel_metrics_gauge', columns: `${COMMON}, Value` },
  sum: { table: 'otel_metrics_sum', columns: `${COMMON}, Value, AggregationTemporality, IsMonotonic` },
  expHistogram: {
    table: 'otel_metrics_exp_histogram',
    columns: `${COMMON}, Count, Sum, Min, Max, Scale, ZeroCount, PositiveOffset, PositiveBucketCounts, NegativeOffset, NegativeBucketCounts, AggregationTemporality`,
  },
} as const;

describe('metrics into ClickHouse, read as HyperDX reads them', () => {
  const running = useClickHouseStack();
  let configuration: client.Configuration;
  beforeAll(() => {
    mockIntakeUrl = running.stack.intakeUrl;
    configuration = client.createConfiguration({ authMethods: { apiKeyAuth: 'api-client-key' } });
  });

  /** Polls one table until `count` rows whose MetricName starts with `prefix` are there; by name. */
  async function rowsOf<T extends Row>(kind: keyof typeof TABLES, prefix: string, count: number): Promise<Map<string, T>> {
    const { table, columns } = TABLES[kind];
    const rows = await running.ch.waitForRows<T>(`SELECT ${columns} FROM ${table} WHERE startsWith(MetricName, {prefix:String}) ORDER BY MetricName`, count, TIMEOUT_MS, { prefix });
    expect(rows).toHaveLength(count); // no more rows than points sent
    return new Map(rows.map((r) => [r.MetricName, r]));
  }

  /** The row named `name`, failing with the names that did arrive. */
  function named<T extends Row>(rows: Map<string, T>, name: string): T {
    const row = rows.get(name);
    if (!row) throw new Error(`no row ${name}; rows: ${[...rows.keys()].join(', ')}`);
    return row;
  }

  it('datadog-api-client v1 submitMetrics: gauge → otel_metrics_gauge; count and rate → otel_metrics_sum, Delta, rate × interval', async () => {
    const p = `ch.v1.${randomUUID().slice(0, 8)}.`;
    const t = now();
    const reply = await new v1.MetricsApi(configuration).submitMetrics({
      body: {
        series: [
          { metric: `${p}gauge`, points: [[t, 21.5]], host: 'api-host', tags: ['env:prod', 'service:billing', 'version:2.1', 'customer:acme'] },
          { metric: `${p}count`, type: 'count', interval: 10, points: [[t, 3]], host: 'api-host', tags: ['env:prod', 'service:billing'] },
          { metric: `${p}rate`, type: 'rate', interval: 20, points: [[t, 0.5]], host: 'api-host', tags: ['env:prod', 'service:billing', 'http.method:GET'] },
        ],
      },
    });
    expect(reply.status).toBe('ok');
    const resource = { 'service.name': 'billing', 'deployment.environment.name': 'prod', 'host.name': 'api-host' };

    const [gauge] = (await rowsOf<GaugeRow>('gauge', p, 1)).values();
    expect(gauge).toEqual({
      MetricName: `${p}gauge`,
      MetricUnit: '',
      ServiceName: 'billing',
      ResourceAttributes: { ...resource, 'service.version': '2.1' },
      Attributes: { customer: 'acme' },
      time: t,
      start: 0, // gauges have no window
      Value: 21.5,
    });

    const sums = await rowsOf<SumRow>('sum', p, 2);
    const sumOf = (name: string, interval: number, value: number, attributes: Record<string, string>): SumRow => ({
      MetricName: `${p}${name}`,
      MetricUnit: '',
      ServiceName: 'billing',
      ResourceAttributes: resource,
      Attributes: attributes,
      time: t,
      start: t - interval,
      Value: value,
      AggregationTemporality: DELTA,
      IsMonotonic: false,
    });
    expect(named(sums, `${p}count`)).toEqual(sumOf('count', 10, 3, {}));
    // 0.5/s over 20 s; the HTTP tag a point attribute under its default (no opt-in) name
    expect(named(sums, `${p}rate`)).toEqual(sumOf('rate', 20, 10, { 'http.method': 'GET' }));
  });

  it('datadog-api-client v2 submitMetrics: integer types to their tables, host resource, unit', async () => {
    const p = `ch.v2.${randomUUID().slice(0, 8)}.`;
    const t = now();
    const host = [{ type: 'host', name: 'v2-host' }];
    const reply = await new v2.MetricsApi(configuration).submitMetrics({
      body: {
        series: [
          { metric: `${p}gauge`, type: 3, points: [{ timestamp: t, value: 1.25 }], resources: host, tags: ['env:staging', 'service:checkout'], unit: 'second' },
          { metric: `${p}unspecified`, type: 0, points: [{ timestamp: t, value: 4 }], resources: host, tags: ['env:staging', 'service:checkout'] },
          { metric: `${p}count`, type: 1, interval: 60, points: [{ timestamp: t, value: 12 }], resources: host, tags: ['env:staging', 'service:checkout'] },
          { metric: `${p}rate`, type: 2, interval: 10, points: [{ timestamp: t, value: 0.3 }], resources: host, tags: ['env:staging', 'service:checkout', 'path:/x'] },
        ],
      },
    });
    expect(reply.errors).toEqual([]);
    const resource = { 'service.name': 'checkout', 'deployment.environment.name': 'staging', 'host.name': 'v2-host' };

    const gauges = await rowsOf<GaugeRow>('gauge', p, 2);
    expect(named(gauges, `${p}gauge`)).toMatchObject({ MetricUnit: 'second', Value: 1.25, time: t, ResourceAttributes: resource, Attributes: {} });
    expect(named(gauges, `${p}unspecified`)).toMatchObject({ Value: 4, time: t, ResourceAttributes: resource });

    const sums = await rowsOf<SumRow>('sum', p, 2);
    expect(named(sums, `${p}count`)).toMatchObject({ Value: 12, time: t, start: t - 60, AggregationTemporality: DELTA, IsMonotonic: false, ResourceAttributes: resource });
    const rate = named(sums, `${p}rate`);
    expect(rate).toMatchObject({ time: t, start: t - 10, AggregationTemporality: DELTA, IsMonotonic: false, ResourceAttributes: resource, Attributes: { path: '/x' } });
    expect(rate.Value).toBeCloseTo(3, 12); // 0.3 × 10 in doubles
  });

  it('datadog-api-client v1 submitDistributionPoints → otel_metrics_exp_histogram, scale 5, exact count/sum/min/max', async () => {
    const p = `ch.dist.${randomUUID().slice(0, 8)}.`;
    const t = now();
    const api = new v1.MetricsApi(configuration);
    await api.submitDistributionPoints({ body: { series: [{ metric: `${p}positive`, points: [[t, [1, 2, 2, 4]]], host: 'dist-host', tags: ['service:upload', 'env:prod', 'bucket:a'] }] } });
    await api.submitDistributionPoints({ body: { series: [{ metric: `${p}mixed`, points: [[t, [0.5, -3]]], host: 'dist-host', tags: ['service:upload'] }] }, contentEncoding: 'deflate' });

    const rows = await rowsOf<ExpHistogramRow>('expHistogram', p, 2);
    const positive = named(rows, `${p}positive`);
    expect(positive).toMatchObject({
      ServiceName: 'upload',
      ResourceAttributes: { 'service.name': 'upload', 'deployment.environment.name': 'prod', 'host.name': 'dist-host' },
      Attributes: { bucket: 'a' },
      time: t,
      start: t, // a stream's first point: its own time, never the epoch
      Count: 4,
      Sum: 9,
      Min: 1,
      Max: 4,
      Scale: 5,
      ZeroCount: 0,
      AggregationTemporality: DELTA,
      NegativeBucketCounts: [],
    });
    // 1, 2 and 4 at scale 5 (base 2^(1/32)): buckets −1, 31 and 63
    expect(positive.PositiveOffset).toBe(-1);
    expect(positive.PositiveBucketCounts).toEqual([1, ...Array(31).fill(0), 2, ...Array(31).fill(0), 1]);

    const mixed = named(rows, `${p}mixed`);
    expect(mixed).toMatchObject({ Count: 2, Sum: -2.5, Min: -3, Max: 0.5, Scale: 5, PositiveBucketCounts: [1], NegativeBucketCounts: [1] });
    expect(mixed.ResourceAttributes).toEqual({ 'service.name': 'upload', 'host.name': 'dist-host' });
  });

  it('datadog-api-client v1 submitServiceCheck → otel_metrics_gauge named after the check, status as value, message attribute', async () => {
    const check = `ch.check.${randomUUID().slice(0, 8)}`;
    const t = now();
    const reply = await new v1.ServiceChecksApi(configuration).submitServiceCheck({
      body: [{ check, hostName: 'checked-host', status: 2, message: 'disk full', tags: ['env:prod', 'service:storage', 'mount:/data'], timestamp: t }],
    });
    expect(reply.status).toBe('ok');
    const [row] = (await rowsOf<GaugeRow>('gauge', check, 1)).values();
    expect(row).toEqual({
      MetricName: check,
      MetricUnit: '',
      ServiceName: 'storage',
      ResourceAttributes: { 'service.name': 'storage', 'deployment.environment.name': 'prod', 'host.name': 'checked-host' },
      Attributes: { mount: '/data', message: 'disk full' },
      time: t,
      start: 0,
      Value: 2, // CRITICAL
    });
  });

  it('datadog-metrics: gauge, counter, its histogram summaries and a distribution, each in its table', async () => {
    const prefix = `ch.dm.${randomUUID().slice(0, 8)}.`;
    const { before, after } = await sendWorkload(prefix);

    // the library summarizes a histogram itself: max, min, sum, avg, median, 75/85/95/99th percentile gauges and a count
    const gauges = await rowsOf<GaugeRow>('gauge', prefix, 10);
    const sums = await rowsOf<SumRow>('sum', prefix, 2);
    const [dist] = (await rowsOf<ExpHistogramRow>('expHistogram', prefix, 1)).values();
    const resource = { 'service.name': 'worker', 'deployment.environment.name': 'prod', 'host.name': 'dm-host' };
    for (const row of [...gauges.values(), ...sums.values(), dist!]) {
      expect([row.MetricName, row.ResourceAttributes, row.ServiceName]).toEqual([row.MetricName, resource, 'worker']);
      expect(row.time >= before && row.time <= after).toBe(true);
    }

    expect(named(gauges, `${prefix}queue.depth`)).toMatchObject({ Value: 7, Attributes: { queue: 'emails' } });
    expect(named(gauges, `${prefix}job.ms.max`).Value).toBe(30);
    expect(named(gauges, `${prefix}job.ms.avg`).Value).toBe(20);
    expect(named(sums, `${prefix}jobs.done`)).toMatchObject({ Value: 5, AggregationTemporality: DELTA, IsMonotonic: false });
    expect(named(sums, `${prefix}job.ms.count`)).toMatchObject({ Value: 2, AggregationTemporality: DELTA });
    expect(dist).toMatchObject({ MetricName: `${prefix}payload.bytes`, Count: 2, Sum: 400, Min: 100, Max: 300, Scale: 5, AggregationTemporality: DELTA });
  });

  it("the collector's datadog exporter 0.155.0 (captured): its JSON and protobuf series as gauges, resource promoted, scope tags on the point", async () => {
    const results = await replayCaptured(capturedDir('datadog-exporter-0.155.0'), running.stack.intakeUrl, 'unused');
    expect(results.filter((r) => r.request.path === '/api/v2/series').map((r) => r.request.contentType)).toEqual(['application/json', 'application/x-protobuf']);
    expect(non2xx(results)).toEqual([]);

    const [depth] = (await rowsOf<GaugeRow>('gauge', 'shop.queue.depth', 1)).values();
    expect(depth).toEqual({
      MetricName: 'shop.queue.depth',
      MetricUnit: '',
      ServiceName: 'otel-shop',
      // the host tags from the exporter's host metadata (005-intake.json.gzip) join the series' own
      ResourceAttributes: { 'service.name': 'otel-shop', 'service.version': '1.0.0', 'deployment.environment.name': 'capture', 'host.name': 'capture-host', team: 'shop', 'cloud.region': 'capture-1' },
      // the OTel scope the exporter flattened into tags is not a known key: it stays on the point
      Attributes: { 'queue.name': 'packing', instrumentation_scope: 'capture.shop', instrumentation_scope_version: '0.3.1' },
      start: 0,
      time: 1795698883, // the protobuf point's timestamp (008-api_v2_series.pb.deflate)
      Value: 17,
    });

    // the exporter's own gauges: traces.running from the JSON body (006), metrics.running twice in the
    // protobuf one (008): once on host capture-host, once on a host resource with an empty name
    const own = await running.ch.waitForRows<GaugeRow>(`SELECT ${TABLES.gauge.columns} FROM otel_metrics_gauge WHERE startsWith(MetricName, 'otel.datadog_exporter.') ORDER BY MetricName, length(ResourceAttributes) DESC`, 3, TIMEOUT_MS);
    expect(own.map((r) => [r.MetricName, r.Value, r.time, r.ResourceAttributes['host.name'] ?? null, r.Attributes])).toEqual([
      ['otel.datadog_exporter.metrics.running', 1, 1795698884, 'capture-host', { command: 'otelcol-dd-bridge' }],
      ['otel.datadog_exporter.metrics.running', 1, 1795698884, null, { command: 'otelcol-dd-bridge' }],
      ['otel.datadog_exporter.traces.running', 1, 1795698884, 'capture-host', { command: 'otelcol-dd-bridge' }],
    ]);
  });
});
