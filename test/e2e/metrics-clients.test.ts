/**
 * Public API clients end to end: the official `@datadog/datadog-api-client` pointed at the sidecar
 * (its documented `baseServer` option), every compression it offers for each metrics call, through
 * the real collector; assertions on what the collector wrote.
 *
 * The client compresses `zstd1` bodies only through a synchronous `zstdCompressorCallback` it
 * leaves to the application; Node 20 has no synchronous zstd, so the callback runs
 * @mongodb-js/zstd (level 1) in a short-lived child process.
 */
import { client, v1, v2 } from '@datadog/datadog-api-client';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { pointNamed, waitForPoints } from '../helpers/sink-metrics';
import { startStack, type TestStack } from '../helpers/stack';

const S = 1_000_000_000n;
const now = (): number => Math.floor(Date.now() / 1000);

const ZSTD_CHILD = `const z=require('@mongodb-js/zstd');const c=[];process.stdin.on('data',d=>c.push(d)).on('end',async()=>process.stdout.write(await z.compress(Buffer.concat(c),1)));`;
const zstdSync = (body: string): Buffer => execFileSync(process.execPath, ['-e', ZSTD_CHILD], { input: body, cwd: REPO_ROOT });

let stack: TestStack;
let configuration: client.Configuration;
beforeAll(async () => {
  stack = await startStack();
  configuration = client.createConfiguration({
    authMethods: { apiKeyAuth: 'api-client-key' },
    baseServer: new client.BaseServerConfiguration(stack.intakeUrl, {}),
    zstdCompressorCallback: zstdSync,
  });
});
afterAll(async () => {
  await stack?.stop();
});

/** Bytes the sidecar received for a route, as sent and after decompression (from its /metrics). */
async function routeBytes(route: string): Promise<{ wire: number; decoded: number }> {
  const text = await (await fetch(`${stack.adminUrl}/metrics`)).text();
  const read = (family: string): number => Number(new RegExp(`^${family}\\{route="${route}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { wire: read('ddbridge_http_request_bytes_total'), decoded: read('ddbridge_http_decoded_bytes_total') };
}

/** Runs `send` and tells whether the body went over the wire compressed (fewer bytes than decoded). */
async function sentCompressed(route: string, send: () => Promise<unknown>): Promise<boolean> {
  const before = await routeBytes(route);
  await send();
  const after = await routeBytes(route);
  return after.wire - before.wire < after.decoded - before.decoded;
}

const arrived = (prefix: string, count: number) => waitForPoints(stack.sinkDir, prefix, count);

describe('datadog-api-client v1 MetricsApi.submitMetrics → real collector', () => {
  it.each<[string, 'gzip' | 'deflate' | undefined]>([
    ['plain', undefined],
    ['gzip', 'gzip'],
    ['deflate', 'deflate'],
  ])('%s: gauge without type, count, rate × interval; host and tags placed', async (_label, contentEncoding) => {
    const p = `client.v1.${randomUUID().slice(0, 8)}.`;
    const t = now();
    let reply: v1.IntakePayloadAccepted | undefined;
    const compressed = await sentCompressed('series_v1', async () => {
      reply = await new v1.MetricsApi(configuration).submitMetrics({
        body: {
          series: [
            { metric: `${p}gauge`, points: [[t, 21.5]], host: 'api-host', tags: ['env:prod', 'service:billing', 'customer:acme'] },
            { metric: `${p}count`, type: 'count', points: [[t, 3]], host: 'api-host', tags: ['env:prod', 'service:billing'] },
            { metric: `${p}rate`, type: 'rate', interval: 20, points: [[t, 0.5]], host: 'api-host', tags: ['env:prod', 'service:billing'] },
          ],
        },
        ...(contentEncoding ? { contentEncoding } : {}),
      });
    });
    expect(reply?.status).toBe('ok');
    expect(compressed).toBe(contentEncoding !== undefined);
    const points = await arrived(p, 3);

    const gauge = pointNamed(points, `${p}gauge`);
    expect([gauge.kind, gauge.temporality, gauge.value, gauge.timeUnixNano]).toEqual(['gauge', undefined, 21.5, BigInt(t) * S]);
    expect(gauge.resource).toEqual({ 'deployment.environment.name': 'prod', 'service.name': 'billing', 'host.name': 'api-host' });
    expect(gauge.attributes).toEqual({ customer: 'acme' });

    const count = pointNamed(points, `${p}count`);
    expect([count.kind, count.temporality, count.isMonotonic, count.value, count.timeUnixNano]).toEqual(['sum', 1, false, 3, BigInt(t) * S]);
    expect(count.startTimeUnixNano).toBe(BigInt(t) * S); // first point of a stream without interval: its own time, never the epoch

    const rate = pointNamed(points, `${p}rate`);
    expect([rate.kind, rate.temporality, rate.value, rate.startTimeUnixNano]).toEqual(['sum', 1, 10, BigInt(t - 20) * S]);
  });
});

describe('datadog-api-client v2 MetricsApi.submitMetrics → real collector', () => {
  it.each<[string, 'zstd1' | 'gzip' | 'deflate' | undefined]>([
    ['JSON', undefined],
    ['zstd1', 'zstd1'],
    ['gzip', 'gzip'],
    ['deflate', 'deflate'],
  ])('%s: integer types, resources, unit', async (_label, contentEncoding) => {
    const p = `client.v2.${randomUUID().slice(0, 8)}.`;
    const t = now();
    let reply: v2.IntakePayloadAccepted | undefined;
    const compressed = await sentCompressed('series_v2', async () => {
      reply = await new v2.MetricsApi(configuration).submitMetrics({
        body: {
          series: [
            { metric: `${p}gauge`, type: 3, points: [{ timestamp: t, value: 1.25 }], resources: [{ type: 'host', name: 'v2-host' }], tags: ['env:staging'], unit: 'second' },
            { metric: `${p}count`, type: 1, interval: 60, points: [{ timestamp: t, value: 12 }], resources: [{ type: 'host', name: 'v2-host' }], tags: ['env:staging'] },
            { metric: `${p}rate`, type: 2, interval: 10, points: [{ timestamp: t, value: 0.3 }], resources: [{ type: 'host', name: 'v2-host' }], tags: ['env:staging', 'path:/x'] },
            { metric: `${p}unspecified`, type: 0, points: [{ timestamp: t, value: 4 }], resources: [{ type: 'host', name: 'v2-host' }], tags: ['env:staging'] },
          ],
        },
        ...(contentEncoding ? { contentEncoding } : {}),
      });
    });
    expect(reply?.errors).toEqual([]);
    expect(compressed).toBe(contentEncoding !== undefined);
    const points = await arrived(p, 4);

    const gauge = pointNamed(points, `${p}gauge`);
    expect([gauge.kind, gauge.value, gauge.unit, gauge.timeUnixNano]).toEqual(['gauge', 1.25, 'second', BigInt(t) * S]);
    expect(gauge.resource).toEqual({ 'deployment.environment.name': 'staging', 'host.name': 'v2-host' });
    const count = pointNamed(points, `${p}count`);
    expect([count.kind, count.temporality, count.value, count.startTimeUnixNano]).toEqual(['sum', 1, 12, BigInt(t - 60) * S]);
    const rate = pointNamed(points, `${p}rate`);
    expect([rate.kind, rate.temporality, rate.value]).toEqual(['sum', 1, 3]);
    expect(rate.attributes).toEqual({ path: '/x' });
    expect(pointNamed(points, `${p}unspecified`).kind).toBe('gauge');
  });
});

describe('datadog-api-client v1 distribution points and service checks → real collector', () => {
  it('submitDistributionPoints (plain and deflate): exponential histograms of the raw values', async () => {
    const p = `client.dist.${randomUUID().slice(0, 8)}.`;
    const t = now();
    const api = new v1.MetricsApi(configuration);
    await api.submitDistributionPoints({ body: { series: [{ metric: `${p}plain`, points: [[t, [1, 2, 2, 4]]], host: 'dist-host', tags: ['service:upload'] }] } });
    const compressed = await sentCompressed('distribution_points', () =>
      api.submitDistributionPoints({ body: { series: [{ metric: `${p}deflate`, points: [[t, [0.5, -3]]], tags: ['service:upload', 'padding:'.padEnd(200, 'x')] }] }, contentEncoding: 'deflate' }),
    );
    expect(compressed).toBe(true);
    const points = await arrived(p, 2);

    const plain = pointNamed(points, `${p}plain`);
    expect([plain.kind, plain.temporality, plain.timeUnixNano]).toEqual(['exponentialHistogram', 1, BigInt(t) * S]);
    expect([plain.point.count, plain.point.sum, plain.point.min, plain.point.max, plain.point.scale]).toEqual(['4', 9, 1, 4, 5]);
    expect(plain.point.positive).toEqual({ offset: -1, bucketCounts: ['1', ...Array(31).fill('0'), '2', ...Array(31).fill('0'), '1'] });
    expect(plain.resource).toEqual({ 'service.name': 'upload', 'host.name': 'dist-host' });

    const deflate = pointNamed(points, `${p}deflate`);
    expect([deflate.point.count, deflate.point.sum, deflate.point.min, deflate.point.max]).toEqual(['2', -2.5, -3, 0.5]);
    expect(deflate.point.negative.bucketCounts).toEqual(['1']);
  });

  it('submitServiceCheck: a gauge named after the check, status as value, message kept', async () => {
    const check = `client.check.${randomUUID().slice(0, 8)}`;
    const t = now();
    const reply = await new v1.ServiceChecksApi(configuration).submitServiceCheck({
      body: [{ check, hostName: 'checked-host', status: 2, message: 'disk full', tags: ['env:prod', 'mount:/data'], timestamp: t }],
    });
    expect(reply.status).toBe('ok');
    const [point] = await arrived(check, 1);
    expect([point!.kind, point!.point.asInt, point!.timeUnixNano]).toEqual(['gauge', '2', BigInt(t) * S]);
    expect(point!.resource).toEqual({ 'deployment.environment.name': 'prod', 'host.name': 'checked-host' });
    expect(point!.attributes).toEqual({ mount: '/data', message: 'disk full' });
  });
});
