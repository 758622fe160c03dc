/**
 * Agent-format metrics end to end: payloads built from our .proto files the way the Datadog agent
 * writes them, compressed and labelled as its forwarder sends them, through the sidecar process
 * and the real collector; assertions on what the collector's file exporter wrote.
 */
import { randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { pointNamed, waitForPoints } from '../helpers/sink-metrics';
import { startStack, type TestStack } from '../helpers/stack';
import { AGENT_PROTOBUF_HEADERS, agentV3Body, agentZstd, encodeMetricPayload, encodeSketchPayload } from '../fixtures/metrics/agent-payloads';

const S = 1_000_000_000n;
const now = (): number => Math.floor(Date.now() / 1000);

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, body: Buffer, headers: Record<string, string> = AGENT_PROTOBUF_HEADERS) => fetch(stack.intakeUrl + path, { method: 'POST', body, headers: { 'DD-Api-Key': 'agent-key', ...headers } });

const arrived = (prefix: string, count: number) => waitForPoints(stack.sinkDir, prefix, count);

describe('agent metrics → real collector', () => {
  it('v2 series (protobuf MetricPayload, zstd): rate × interval, count and gauge with the right types, windows and resources', async () => {
    const p = `agent.v2.${randomUUID().slice(0, 8)}.`;
    const t = now();
    const body = encodeMetricPayload({
      series: [
        { resources: [{ type: 'host', name: 'node-7' }], metric: `${p}hits`, tags: ['service:web', 'env:prod', 'kube_namespace:shop', 'endpoint:/cart'], points: [{ value: 0.5, timestamp: t }], type: 2, interval: 10 },
        { resources: [{ type: 'host', name: 'node-7' }], metric: `${p}commits`, tags: ['service:web', 'env:prod', 'kube_namespace:shop'], points: [{ value: 42, timestamp: t }], type: 1, interval: 15, sourceTypeName: 'postgres' },
        {
          resources: [
            { type: 'host', name: 'node-7' },
            { type: 'device', name: '/dev/sda1' },
          ],
          metric: `${p}disk`,
          tags: ['env:prod'],
          points: [{ value: 1024, timestamp: t }],
          type: 3,
          unit: 'byte',
        },
      ],
    });
    const res = await post('/api/v2/series', await agentZstd(body));
    expect(res.status).toBe(202);
    const points = await arrived(p, 3);

    const hits = pointNamed(points, `${p}hits`);
    expect([hits.kind, hits.temporality, hits.isMonotonic, hits.value]).toEqual(['sum', 1, false, 5]);
    expect([hits.timeUnixNano, hits.startTimeUnixNano]).toEqual([BigInt(t) * S, BigInt(t - 10) * S]);
    expect(hits.resource).toEqual({ 'service.name': 'web', 'deployment.environment.name': 'prod', 'k8s.namespace.name': 'shop', 'host.name': 'node-7' });
    expect(hits.attributes).toEqual({ endpoint: '/cart' });
    expect(hits.scope.name).toBe('dd-otlp-bridge');

    const commits = pointNamed(points, `${p}commits`);
    expect([commits.kind, commits.temporality, commits.value, commits.startTimeUnixNano]).toEqual(['sum', 1, 42, BigInt(t - 15) * S]);
    expect(commits.resource).toMatchObject({ 'host.name': 'node-7', source: 'postgres' });

    const disk = pointNamed(points, `${p}disk`);
    expect([disk.kind, disk.temporality, disk.value, disk.unit, disk.timeUnixNano]).toEqual(['gauge', undefined, 1024, 'byte', BigInt(t) * S]);
    expect(disk.resource).toEqual({ 'deployment.environment.name': 'prod', 'host.name': 'node-7', device: '/dev/sda1' });
  });

  it('v2 series from agents before 7.62 (zlib, sent as deflate)', async () => {
    const p = `agent.v2zlib.${randomUUID().slice(0, 8)}.`;
    const body = encodeMetricPayload({ series: [{ resources: [{ type: 'host', name: 'old' }], metric: `${p}g`, points: [{ value: 7, timestamp: now() }], type: 3 }] });
    const res = await post('/api/v2/series', deflateSync(body), { ...AGENT_PROTOBUF_HEADERS, 'Content-Encoding': 'deflate' });
    expect(res.status).toBe(202);
    expect((await arrived(p, 1))[0]!.value).toBe(7);
  });

  it('sketches (SketchPayload, zstd): the reference worked example survives the collector bucket for bucket', async () => {
    const p = `agent.sketch.${randomUUID().slice(0, 8)}.`;
    const t = now();
    const body = encodeSketchPayload({
      sketches: [
        {
          metric: `${p}latency`,
          host: 'Host1',
          tags: ['env:tag1', 'version:tag2', 'route:/a'],
          dogsketches: [{ ts: t, cnt: 13, min: -6, max: 6, avg: 1, sum: 11, k: [-1442, -1427, -1409, -1383, -1338, 0, 1338, 1383, 1409, 1427, 1442, 1454, 1464], n: [152, 124, 68, 231, 97, 55, 101, 239, 66, 43, 167, 209, 154] }],
        },
      ],
      metadata: {},
    });
    const res = await post('/api/beta/sketches', await agentZstd(body));
    expect(res.status).toBe(202);
    const [sketch] = await arrived(p, 1);
    expect([sketch!.kind, sketch!.temporality]).toEqual(['exponentialHistogram', 1]);
    expect(sketch!.resource).toEqual({ 'deployment.environment.name': 'tag1', 'service.version': 'tag2', 'host.name': 'Host1' });
    expect(sketch!.attributes).toEqual({ route: '/a' });
    const point = sketch!.point;
    expect([point.timeUnixNano, point.count, point.sum, point.min, point.max, point.scale, point.zeroCount]).toEqual([String(BigInt(t) * S), '13', 11, -6, 6, 5, '55']);
    const nonZero = (counts: string[]) => Object.fromEntries(counts.flatMap((c, i) => (c === '0' ? [] : [[i, Number(c)]])));
    expect(point.positive.bucketCounts).toHaveLength(91);
    expect(nonZero(point.positive.bucketCounts)).toEqual({ 0: 101, 32: 239, 50: 16, 51: 50, 63: 17, 64: 26, 74: 131, 75: 36, 83: 209, 90: 154 });
    expect(point.negative.bucketCounts).toHaveLength(76);
    expect(nonZero(point.negative.bucketCounts)).toEqual({ 0: 97, 32: 231, 50: 17, 51: 51, 63: 51, 64: 73, 74: 119, 75: 33 });
  });

  it('v3 series and sketches (columnar, header and columns as separate zstd streams) on both v3 paths', async () => {
    const p = `agent.v3.${randomUUID().slice(0, 8)}.`;
    const t = now();
    const seriesBody = await agentV3Body([
      {
        name: `${p}rate`,
        type: 'rate',
        interval: 10,
        tags: ['env:prod', 'service:shop', 'code:200'],
        resources: [['host', 'v3-host']],
        points: [
          { ts: t - 10, value: 0.2 },
          { ts: t, value: 1.5 },
        ],
      },
      { name: `${p}gauge`, type: 'gauge', tags: ['env:prod', 'service:shop'], resources: [['host', 'v3-host']], unit: 'percent', points: [{ ts: t, value: 0.25 }] },
      { name: `${p}count`, type: 'count', interval: 15, tags: ['env:prod', 'service:shop'], resources: [['host', 'v3-host']], points: [{ ts: t, value: 3 }] },
    ]);
    const sketchBody = await agentV3Body([{ name: `${p}latency`, type: 'sketch', tags: ['env:prod', 'service:shop'], resources: [['host', 'v3-host']], points: [{ ts: t, sketch: { sum: 3, min: 1, max: 2, cnt: 2, k: [1338, 1383], n: [1, 1] } }] }]);
    expect((await post('/api/intake/metrics/v3/series', seriesBody)).status).toBe(202);
    expect((await post('/api/intake/metrics/v3/sketches', sketchBody)).status).toBe(202);
    const points = await arrived(p, 5);

    const rates = points.filter((x) => x.name === `${p}rate`).sort((a, b) => Number(a.timeUnixNano - b.timeUnixNano));
    expect(rates.map((r) => [r.kind, r.temporality, r.value, r.timeUnixNano, r.startTimeUnixNano])).toEqual([
      ['sum', 1, 2, BigInt(t - 10) * S, BigInt(t - 20) * S],
      ['sum', 1, 15, BigInt(t) * S, BigInt(t - 10) * S],
    ]);
    expect(rates[0]!.resource).toEqual({ 'deployment.environment.name': 'prod', 'service.name': 'shop', 'host.name': 'v3-host' });
    expect(rates[0]!.attributes).toEqual({ code: '200' });
    const gauge = pointNamed(points, `${p}gauge`);
    expect([gauge.kind, gauge.value, gauge.unit]).toEqual(['gauge', 0.25, 'percent']);
    const count = pointNamed(points, `${p}count`);
    expect([count.kind, count.value, count.startTimeUnixNano]).toEqual(['sum', 3, BigInt(t - 15) * S]);
    const sketch = pointNamed(points, `${p}latency`);
    expect(sketch.kind).toBe('exponentialHistogram');
    expect([sketch.point.count, sketch.point.sum, sketch.point.min, sketch.point.max]).toEqual(['2', 3, 1, 2]);
  });

  it('acknowledges `agent diagnose` probes ({} on every metric route) without writing anything', async () => {
    for (const path of ['/api/v1/series', '/api/v2/series', '/api/beta/sketches', '/api/intake/metrics/v3/series']) {
      const res = await post(path, Buffer.from('{}'), { 'Content-Type': 'application/json' });
      expect(res.status).toBe(202);
    }
  });
});
