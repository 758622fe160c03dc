/**
 * The metric routes inside a real sidecar (in process, fake exporter): which body each path
 * takes, what it answers, that nothing is exported for empty payloads, and that an export failure
 * reaches the sender as the exporter's status (503: retried) rather than a 2xx.
 */
import { compress } from '@mongodb-js/zstd';
import { gzipSync } from 'node:zlib';
import { loadConfig, parseArgs } from '../../src/config';
import type { Exporter } from '../../src/core/export/exporter';
import { createLogger } from '../../src/core/observability/log';
import { MetricStreamEncoder, type EncodedExport } from '../../src/core/otlp/encode';
import { decodeSketchPayload } from '../../src/signals/metrics/parse-sketches';
import type { MetricsPayload } from '../../src/signals/metrics/datadog';
import { decodeMetricPayload, decodeMetricPayloadGeneric } from '../../src/signals/metrics/parse-v2-proto';
import { BODY_START, readMetricPayloadPieces } from '../../src/signals/metrics/parse-v2-proto-direct';
import { fastElseGeneral } from '../../src/signals/shared/fast-path';
import { translateMetrics, translateMetricsToModel } from '../../src/signals/metrics/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { ExportRefusedError } from '../../src/core/errors';
import { GrpcStatus } from '../../src/core/export/grpc-client';
import { startSidecar, type Sidecar } from '../../src/cli/sidecar';
import { lookupType } from '../helpers/otlp-proto';
import { AGENT_PROTOBUF_HEADERS, agentV3Body, encodeMetricPayload, encodeSketchPayload } from '../fixtures/metrics/agent-payloads';
import { translationContext } from '../helpers/translation';

const METRICS_REQUEST = lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest');

class FakeExporter implements Exporter {
  batches: EncodedExport[][] = [];
  failWith: ExportRefusedError | undefined;
  async export(requests: EncodedExport[]) {
    if (this.failWith) throw this.failWith;
    this.batches.push(requests);
    return { accepted: 1, rejected: 0 };
  }
  async close() {}
  /** The start times (ns, as strings) of each exported metric's points, by metric name. */
  startTimes(): Map<string, Set<string>> {
    const starts = new Map<string, Set<string>>();
    for (const metric of this.metrics()) {
      const points = Object.values(metric).flatMap((field) => (typeof field === 'object' ? (field.dataPoints ?? []) : []));
      for (const p of points) starts.set(metric.name, (starts.get(metric.name) ?? new Set()).add(p.startTimeUnixNano ?? '0'));
    }
    return starts;
  }
  /** Names of the metrics exported, read back from the encoded requests. */
  metricNames(): string[] {
    return this.metrics().map((m) => m.name);
  }
  /** Every point exported as `name@time value` (time in s; value: the number, or a histogram's sum). */
  points(): string[] {
    return this.metrics().flatMap((metric) =>
      Object.values(metric)
        .flatMap((field) => (typeof field === 'object' ? (field.dataPoints ?? []) : []))
        .map((p) => `${metric.name}@${Number(BigInt(p.timeUnixNano ?? '0') / 1_000_000_000n)} ${p.asDouble ?? p.asInt ?? p.sum}`),
    );
  }
  /** Every metric exported, decoded from the encoded requests (64-bit fields as strings). */
  private metrics(): ExportedMetric[] {
    return this.batches.flat().flatMap((r) => {
      if (r.signal !== 'metrics') return [];
      const decoded = METRICS_REQUEST.toObject(METRICS_REQUEST.decode(r.body), { longs: String }) as { resourceMetrics?: { scopeMetrics?: { metrics?: ExportedMetric[] }[] }[] };
      return (decoded.resourceMetrics ?? []).flatMap((rm) => (rm.scopeMetrics ?? []).flatMap((sm) => sm.metrics ?? []));
    });
  }
}

/** A decoded Metric: its name, and its one data field (gauge, sum, histogram, …) holding the points. */
type ExportedMetric = { name: string } & Record<string, { dataPoints?: ExportedPoint[] } | string>;
type ExportedPoint = { startTimeUnixNano?: string; timeUnixNano?: string; asDouble?: number; asInt?: string; sum?: number };

let sidecar: Sidecar;
let base: string;
let exportMaxBytes: number;
const exporter = new FakeExporter();

beforeAll(async () => {
  const config = loadConfig(parseArgs(['--enable', '--listen', '127.0.0.1:0', '--admin-listen', '127.0.0.1:0']), {});
  exportMaxBytes = config.exportMaxBytes;
  sidecar = await startSidecar(
    config,
    createLogger('error', {}, () => undefined),
    { exporter },
  );
  base = `http://127.0.0.1:${sidecar.intakeAddress!.port}`;
});
afterAll(() => sidecar.stop());
beforeEach(() => {
  exporter.batches = [];
  exporter.failWith = undefined;
});

const post = (path: string, body: Buffer | string, headers: Record<string, string> = {}) => fetch(base + path, { method: 'POST', body, headers });
const T = 1_700_000_000;

describe('metric routes', () => {
  it('v1 series: 202 {"status":"ok"}, gzip body, text/json as the API client sends', async () => {
    const res = await post('/api/v1/series', gzipSync(JSON.stringify({ series: [{ metric: 'v1.m', points: [[T, 1]] }] })), { 'Content-Type': 'text/json', 'Content-Encoding': 'gzip' });
    expect([res.status, await res.json()]).toEqual([202, { status: 'ok' }]);
    expect(exporter.metricNames()).toEqual(['v1.m']);
  });

  it('v2 series: JSON by Content-Type (with charset), protobuf otherwise; 202 {"errors":[]}', async () => {
    const asJson = await post('/api/v2/series', JSON.stringify({ series: [{ metric: 'v2.json', type: 3, points: [{ timestamp: T, value: 1 }] }] }), { 'Content-Type': 'application/json; charset=utf-8' });
    expect([asJson.status, await asJson.json()]).toEqual([202, { errors: [] }]);
    const proto = await post('/api/v2/series', await compress(encodeMetricPayload({ series: [{ metric: 'v2.proto', type: 3, points: [{ value: 1, timestamp: T }] }] }), 1), AGENT_PROTOBUF_HEADERS);
    expect(proto.status).toBe(202);
    const untyped = await post('/api/v2/series', JSON.stringify({ series: [{ metric: 'v2.untyped', points: [{ timestamp: T, value: 1 }] }] }));
    expect(untyped.status).toBe(202);
    expect(exporter.metricNames()).toEqual(['v2.json', 'v2.proto', 'v2.untyped']);
  });

  it.each(['/api/beta/sketches', '/api/v1/sketches'])('%s: protobuf SketchPayload, 202', async (path) => {
    const body = encodeSketchPayload({ sketches: [{ metric: 'sk', host: 'h', dogsketches: [{ ts: T, cnt: 1, min: 1, max: 1, sum: 1, k: [1338], n: [1] }] }] });
    const res = await post(path, await compress(body, 1), AGENT_PROTOBUF_HEADERS);
    expect(res.status).toBe(202);
    expect(exporter.metricNames()).toEqual(['sk']);
  });

  it.each(['/api/intake/metrics/v3/series', '/api/intake/metrics/v3/sketches'])('%s: the agent’s multi-stream zstd body, 202', async (path) => {
    const body = await agentV3Body([
      { name: 'v3.s', type: 'gauge', points: [{ ts: T, value: 1 }] },
      { name: 'v3.k', type: 'sketch', points: [{ ts: T, sketch: { sum: 1, min: 1, max: 1, cnt: 1, k: [1338], n: [1] } }] },
    ]);
    const res = await post(path, body, AGENT_PROTOBUF_HEADERS);
    expect(res.status).toBe(202);
    expect(exporter.metricNames()).toEqual(['v3.s', 'v3.k']);
  });

  it('check_run: array or single object, 202 {"status":"ok"}', async () => {
    const res = await post('/api/v1/check_run', JSON.stringify({ check: 'app.ok', status: 0 }), { 'Content-Type': 'application/json' });
    expect([res.status, await res.json()]).toEqual([202, { status: 'ok' }]);
    expect(exporter.metricNames()).toEqual(['app.ok']);
  });

  it('distribution_points: 202 {"status":"ok"}', async () => {
    const res = await post('/api/v1/distribution_points', JSON.stringify({ series: [{ metric: 'dist', points: [[T, [1, 2]]] }] }), { 'Content-Type': 'text/json' });
    expect([res.status, await res.json()]).toEqual([202, { status: 'ok' }]);
    expect(exporter.metricNames()).toEqual(['dist']);
  });

  it('exports nothing for the agent’s empty flushes, and still answers 202', async () => {
    expect((await post('/api/v1/check_run', '[]')).status).toBe(202);
    expect((await post('/api/v1/series', JSON.stringify({ series: [{ metric: 'm', points: [[T, null]] }] }))).status).toBe(202);
    expect((await post('/api/intake/metrics/v3/series', Buffer.alloc(0), { 'Content-Type': 'application/x-protobuf' })).status).toBe(202);
    expect(exporter.batches).toEqual([]);
    // the null point is not silently gone: it is counted for /metrics
    expect(sidecar.metrics.render()).toMatch(/ddbridge_metric_points_dropped_total\{route="series_v1",reason="[a-z_ ]+"\} 1/);
  });

  it.each(['/api/v1/series', '/api/v2/series', '/api/beta/sketches', '/api/v1/check_run', '/api/intake/metrics/v3/series'])('acknowledges the `agent diagnose` probe body {} on %s', async (path) => {
    const res = await post(path, '{}', { 'Content-Type': path.includes('sketches') || path.includes('v3') ? 'application/x-protobuf' : 'application/json' });
    expect(res.status).toBe(202);
    expect(exporter.batches).toEqual([]);
  });

  it('answers a malformed body 400 with the field path', async () => {
    const res = await post('/api/v1/series', JSON.stringify({ series: [{ metric: 'm', points: [[T]] }] }));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('series[0].points[0]: expected [timestamp, value]');
    const proto = await post('/api/beta/sketches', Buffer.from([0x0a, 0x05, 0x01]), { 'Content-Type': 'application/x-protobuf' });
    expect(proto.status).toBe(400);
  });

  const dogsketch = (i: number) => ({ ts: T, cnt: 3, min: 1, max: 9, sum: 12 + i, k: [-1400, 0, 1338, 1500], n: [1, 1, 0, 1] });
  /** Bodies of many records, which the route parses and translates in pieces. */
  const LARGE = {
    'v2 series': {
      path: '/api/v2/series',
      records: 2500,
      body: (n: number, prefix: string) =>
        encodeMetricPayload({
          series: Array.from({ length: n }, (_, i) => ({
            metric: `${prefix}.m${i % 7}`,
            type: i % 3 === 0 ? 1 : 3,
            interval: 10,
            tags: [`shard:${i % 5}`],
            resources: [{ type: 'host', name: `h${i % 3}` }],
            points: [{ value: i, timestamp: T }],
          })),
        }),
      decode: decodeMetricPayload,
      malformed: Buffer.from([0x0a, 0x04, 0x22, 0x02, 0x10, 0x80]),
      error: 'MetricPayload.series[2500].points[0]: truncated varint',
    },
    sketches: {
      path: '/api/beta/sketches',
      records: 300,
      body: (n: number, prefix: string) => encodeSketchPayload({ sketches: Array.from({ length: n }, (_, i) => ({ metric: `${prefix}.s${i % 7}`, host: `h${i % 3}`, tags: [`shard:${i % 5}`], dogsketches: [dogsketch(i)] })) }),
      decode: decodeSketchPayload,
      malformed: encodeSketchPayload({ sketches: [{ metric: 's', dogsketches: [{ ...dogsketch(0), n: [1] }] }] }),
      error: 'SketchPayload.sketches[300].dogsketches[0]: 4 bin keys (k) but 1 counts (n)',
    },
  };

  it.each(Object.entries(LARGE))('%s: a large body, parsed and translated in pieces, exports what the whole payload translated at once does', async (_name, c) => {
    const body = c.body(c.records, `pieces.${c.path}`);
    const res = await post(c.path, await compress(body, 1), AGENT_PROTOBUF_HEADERS);
    expect(res.status).toBe(202);
    const whole = new MetricStreamEncoder();
    translateMetrics(translationContext(createTranslatorCaches(), 0n), whole)(c.decode(body));
    const expected = whole.requests(exportMaxBytes);
    expect(expected.reduce((n, r) => n + r.records, 0)).toBe(c.records);
    expect(exporter.batches).toEqual([expected]);
  });

  it.each(Object.entries(LARGE))('%s: a malformed record after the first pieces is refused 400 with its place in the whole body, and nothing is exported', async (_name, c) => {
    const res = await post(c.path, await compress(Buffer.concat([c.body(c.records, `bad.${c.path}`), c.malformed]), 1), AGENT_PROTOBUF_HEADERS);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(c.error);
    expect(exporter.batches).toEqual([]);
  });

  it('after a malformed later piece, the streams of the earlier pieces keep the time their points ended at, as documented in route-common.ts', async () => {
    const c = LARGE.sketches;
    const at = (ts: number, prefix: string) => encodeSketchPayload({ sketches: Array.from({ length: c.records }, (_, i) => ({ metric: `${prefix}.s${i % 7}`, host: `h${i % 3}`, tags: [`shard:${i % 5}`], dogsketches: [{ ...dogsketch(i), ts }] })) });
    const refused = await post(c.path, await compress(Buffer.concat([at(T, 'kept'), c.malformed]), 1), AGENT_PROTOBUF_HEADERS);
    expect(refused.status).toBe(400);
    expect(exporter.batches).toEqual([]);
    // the next flush, 10 s later: its points' windows start where the refused body's points ended;
    // a stream never seen before starts at its own point (the control, which this must differ from)
    for (const prefix of ['kept', 'fresh']) expect((await post(c.path, await compress(at(T + 10, prefix), 1), AGENT_PROTOBUF_HEADERS)).status).toBe(202);
    const starts = exporter.startTimes();
    expect(starts.size).toBe(2 * 7);
    for (let i = 0; i < 7; i++) {
      expect(starts.get(`kept.s${i}`)).toEqual(new Set([String(BigInt(T) * 1_000_000_000n)]));
      expect(starts.get(`fresh.s${i}`)).toEqual(new Set([String(BigInt(T + 10) * 1_000_000_000n)]));
    }
  });

  it('passes an export failure through (503, which every Datadog sender retries)', async () => {
    exporter.failWith = new ExportRefusedError(GrpcStatus.UNAVAILABLE, 'UNAVAILABLE', 'collector unavailable', false);
    const res = await post('/api/v2/series', JSON.stringify({ series: [{ metric: 'm', type: 1, points: [{ timestamp: T, value: 1 }] }] }), { 'Content-Type': 'application/json' });
    expect([res.status, res.headers.get('retry-after'), await res.text()]).toEqual([503, '5', 'collector did not accept the data (UNAVAILABLE); retry later\n']);
  });

  it('never answers 404 on a metric path', async () => {
    for (const path of ['/api/v1/series', '/api/v2/series', '/api/beta/sketches', '/api/v1/sketches', '/api/v1/check_run', '/api/v1/distribution_points', '/api/intake/metrics/v3/series', '/api/intake/metrics/v3/sketches']) {
      expect((await post(path, Buffer.alloc(0))).status).not.toBe(404);
    }
  });
});

/** Drop counts by reason for one route, read from /metrics. */
function droppedOn(route: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of sidecar.metrics.render().matchAll(/^ddbridge_metric_points_dropped_total\{route="([a-z_0-9]+)",reason="([a-z_]+)"\} (\d+)$/gm)) {
    if (m[1] === route) counts[m[2] as string] = Number(m[3]);
  }
  return counts;
}

/** JSON text with every `"INF"` written as 1e400, which JSON.parse reads as Infinity (JSON.stringify cannot write it). */
const withInfinity = (value: unknown): string => JSON.stringify(value).replace(/"INF"/g, '1e400');

describe('metric points whose time or value cannot be stored (issue 21, item 10)', () => {
  /** What each route's body holds beside one good point per metric, and what it must export and count. */
  const CASES: { route: string; path: string; body: () => Promise<Buffer | string>; headers?: Record<string, string>; exported: string[]; dropped: Record<string, number> }[] = [
    {
      route: 'series_v1',
      path: '/api/v1/series',
      body: async () =>
        withInfinity({
          series: [
            {
              metric: 'g',
              type: 'gauge',
              points: [
                [T, 1],
                [0, 1],
                [T + 1, 'INF'],
              ],
            },
            { metric: 'r.inf', type: 'rate', interval: 'INF', points: [[T, 1]] },
            { metric: 'r.neg', type: 'rate', interval: -10, points: [[T, 1]] },
            { metric: 'r.overflow', type: 'rate', interval: 1e308, points: [[T, 10]] },
            { metric: 'r.unset', type: 'rate', points: [[T, 3]] },
            { metric: 'r.ok', type: 'rate', interval: 10, points: [[T, 0.5]] },
          ],
        }),
      exported: [`g@${T} 1`, `r.unset@${T} 3`, `r.ok@${T} 5`],
      dropped: { invalid_timestamp: 1, invalid_value: 2, invalid_interval: 2 },
    },
    {
      route: 'series_v2',
      path: '/api/v2/series',
      headers: { 'Content-Type': 'application/json' },
      body: async () =>
        withInfinity({
          series: [
            {
              metric: 'g',
              type: 3,
              points: [
                { timestamp: T, value: 1 },
                { timestamp: 0, value: 1 },
                { timestamp: 'INF', value: 1 },
                { timestamp: T + 1, value: 'INF' },
              ],
            },
            { metric: 'c', type: 1, interval: 'INF', points: [{ timestamp: T, value: 2 }] },
            { metric: 'r.inf', type: 2, interval: 'INF', points: [{ timestamp: T, value: 1 }] },
            { metric: 'r.neg', type: 2, interval: -10, points: [{ timestamp: T, value: 1 }] },
          ],
        }),
      // a count's interval only places its window: a bad one falls back to the stream's history
      exported: [`g@${T} 1`, `c@${T} 2`],
      dropped: { invalid_timestamp: 2, invalid_value: 1, invalid_interval: 2 },
    },
    {
      route: 'series_v2',
      path: '/api/v2/series',
      headers: AGENT_PROTOBUF_HEADERS,
      body: () =>
        compress(
          encodeMetricPayload({
            series: [
              {
                metric: 'g',
                type: 3,
                points: [
                  { value: 1, timestamp: T },
                  { value: 1, timestamp: 0 },
                  { value: Infinity, timestamp: T + 1 },
                  { value: NaN, timestamp: T + 2 },
                ],
              },
              { metric: 'r.neg', type: 2, interval: -10, points: [{ value: 1, timestamp: T }] },
              { metric: 'r.ok', type: 2, interval: 10, points: [{ value: 0.5, timestamp: T }] },
            ],
          }),
          1,
        ),
      exported: [`g@${T} 1`, `r.ok@${T} 5`],
      dropped: { invalid_timestamp: 1, invalid_value: 2, invalid_interval: 1 },
    },
    {
      route: 'metrics_v3',
      path: '/api/intake/metrics/v3/series',
      headers: AGENT_PROTOBUF_HEADERS,
      body: () =>
        agentV3Body([
          {
            name: 'g',
            type: 'gauge',
            valueType: 'float64',
            points: [
              { ts: T, value: 1 },
              { ts: 0, value: 1 },
              { ts: T + 1, value: Infinity },
              { ts: T + 2, value: NaN },
            ],
          },
          { name: 'k', type: 'sketch', valueType: 'float64', points: [{ ts: T, sketch: { sum: Infinity, min: 1, max: 1, cnt: 1, k: [1338], n: [1] } }] },
        ]),
      exported: [`g@${T} 1`],
      dropped: { invalid_timestamp: 1, invalid_value: 3 },
    },
    {
      route: 'sketches',
      path: '/api/beta/sketches',
      headers: AGENT_PROTOBUF_HEADERS,
      body: () =>
        compress(
          encodeSketchPayload({
            sketches: [
              {
                metric: 'sk',
                host: 'h',
                dogsketches: [
                  { ts: T, cnt: 1, min: 1, max: 1, sum: 1, k: [1338], n: [1] },
                  { ts: 0, cnt: 1, min: 1, max: 1, sum: 1, k: [1338], n: [1] },
                  { ts: T + 1, cnt: 1, min: 1, max: Infinity, sum: 1, k: [1338], n: [1] },
                  { ts: T + 2, cnt: 1, min: 1, max: 1, sum: NaN, k: [1338], n: [1] },
                ],
              },
            ],
          }),
          1,
        ),
      exported: [`sk@${T} 1`],
      dropped: { invalid_timestamp: 1, invalid_value: 2 },
    },
    {
      route: 'distribution_points',
      path: '/api/v1/distribution_points',
      body: async () =>
        withInfinity({
          series: [
            {
              metric: 'dist',
              points: [
                [T, [1, 2]],
                [0, [1]],
                [T + 1, [4, 'INF']],
                [T + 2, ['INF']],
                [T + 3, [1e308, 1e308]],
              ],
            },
          ],
        }),
      // the finite value of a point beside an infinite one is kept
      exported: [`dist@${T} 3`, `dist@${T + 1} 4`],
      dropped: { invalid_timestamp: 1, invalid_value: 3 },
    },
  ];

  it.each(CASES.map((c) => [`${c.path} ${c.headers?.['Content-Type'] ?? ''}`, c] as const))('%s: drops and counts them, exports the rest', async (_name, c) => {
    const before = droppedOn(c.route);
    const res = await post(c.path, await c.body(), c.headers);
    expect(res.status).toBe(202);
    expect(exporter.points()).toEqual(c.exported);
    const after = droppedOn(c.route);
    const added = Object.fromEntries(
      Object.entries(after)
        .map(([reason, n]) => [reason, n - (before[reason] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
    expect(added).toEqual(c.dropped);
  });

  it('check_run: a check whose timestamp is 0 or not finite happened when it arrived, not in 1970', async () => {
    const sent = Math.floor(Date.now() / 1000);
    const res = await post(
      '/api/v1/check_run',
      withInfinity([
        { check: 'at.zero', status: 0, timestamp: 0 },
        { check: 'at.inf', status: 1, timestamp: 'INF' },
      ]),
    );
    expect(res.status).toBe(202);
    const times = exporter.points().map((p) => Number(/@(\d+)/.exec(p)![1]));
    expect(times).toHaveLength(2);
    for (const t of times) expect(t).toBeGreaterThanOrEqual(sent);
    const infiniteStatus = await post('/api/v1/check_run', withInfinity({ check: 'c', status: 'INF' }));
    expect(infiniteStatus.status).toBe(400);
    expect(await infiniteStatus.text()).toContain('.status');
  });

  it('v2 protobuf: the direct reader and the generic path drop and count the same points', () => {
    const body = encodeMetricPayload({
      series: [
        {
          metric: 'g',
          type: 3,
          points: [
            { value: 1, timestamp: T },
            { value: 1, timestamp: 0 },
            { value: Infinity, timestamp: T + 1 },
            { value: -Infinity, timestamp: T + 2 },
          ],
        },
        { metric: 'r', type: 2, interval: 10, points: [{ value: 1e308, timestamp: T }] },
      ],
    });
    let direct: MetricsPayload | undefined;
    const gaveUp = fastElseGeneral(
      (progress): string | undefined => {
        readMetricPayloadPieces(body, Infinity, (piece) => (direct = piece), progress);
        return undefined;
      },
      () => 'gave up',
      BODY_START,
    );
    expect(gaveUp).toBeUndefined();
    const results = [direct!, decodeMetricPayloadGeneric(body)].map((payload) => translateMetricsToModel(payload, translationContext(createTranslatorCaches(), 0n)));
    expect(results[0]!.dropped).toEqual({ invalid_timestamp: 1, invalid_value: 3 });
    expect(results[1]).toEqual(results[0]);
    expect(results[0]!.resources.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.name)))).toEqual(['g']);
  });
});
