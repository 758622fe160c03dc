/**
 * Hostile or odd input that must not cost data or leak secrets: a log message that is JSON nested
 * far too deep, API keys spelled in the path in unusual ways, collector credentials in the
 * endpoint URL, and metric points whose time is 0 or whose rate interval is infinite.
 */
import { exchange } from '../../helpers/key-leaks';
import { logRecords, waitFor } from '../../helpers/sink';
import { pointsNamed } from '../../helpers/sink-metrics';
import { sampleSum, scrapeMetrics } from '../../helpers/prom';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_TEST_TIMEOUT_MS } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

const KEY = 'hostileinputkey7c2e9b41d0';

/** A JSON POST; the API key goes in the header unless the path carries it (`keyInHeader` false). */
const post = async (stack: TestStack, path: string, body: string, keyInHeader = true): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${stack.intakeUrl}${path}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...(keyInHeader ? { 'DD-API-KEY': KEY } : {}) } });
  return { status: res.status, text: await res.text() };
};

const recordsOfRun = (stack: TestStack, run: string): ReturnType<typeof logRecords> => logRecords(stack.sinkDir).filter((r) => r.attributes.run === run);

describe('hostile input', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_API_KEYS: KEY } });
  });
  afterAll(async () => stack?.stop());

  it.each([6_000, 100_000])('a log message that is JSON nested %i deep: 202, all 100 lines delivered, that one as the original string', async (depth) => {
    const run = `deep-json-${depth}-${Date.now()}`;
    const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const lines = Array.from({ length: 100 }, (_, i) => ({ message: i === 50 ? deep : `line ${i}`, service: 'deep', ddtags: `run:${run},id:${i}` }));
    const reply = await post(stack, '/api/v2/logs', JSON.stringify(lines)).then(
      (r) => r,
      (err: Error) => ({ status: 0, text: err.message }),
    );
    const delivered = await waitFor(
      () => recordsOfRun(stack, run),
      (r) => r.length >= 100,
      reply.status === 202 ? 15_000 : 1000,
    );
    const deepRecord = delivered.find((r) => r.attributes.id === '50');
    process.stderr.write(`[fault] deep JSON message ${depth}: status=${reply.status} delivered=${delivered.length}/100 deep-body-intact=${deepRecord?.body === deep}\n`);
    expect(reply.status).toBe(202);
    expect(new Set(delivered.map((r) => r.attributes.id)).size).toBe(100);
    expect(deepRecord?.body).toBe(deep);
  });

  it('API keys in unusual path spellings never appear in output or replies; /V1/INPUT/<key> is accepted and delivered; %ZZ is a 4xx', async () => {
    const run = `key-spellings-${Date.now()}`;
    const spellings = [`/V1/INPUT/${KEY}`, `//v1/input/${KEY}`, `/v1/input//${KEY}`, '/v1/input/%ZZ'];
    // issue 33: the first three were logged, the last three echoed; sent as written (fetch would normalise them), refused as unknown routes
    const rawSpellings = [`/v1/%69nput/${KEY}`, `/v1/input%2F${KEY}`, `/v1/input/x/${KEY}`, `/./v1/input/${KEY}`, `/v1/input/../input/${KEY}`, `/v1/input\\${KEY}`];
    const internalBefore = sampleSum(await scrapeMetrics(stack.adminUrl), 'ddbridge_internal_errors_total');
    const replies = new Map<string, { status: number; text: string }>();
    // the bodies name the spelling by number: the key must not reach the sidecar any other way than through the path
    for (const [i, path] of spellings.entries()) replies.set(path, await post(stack, path, JSON.stringify([{ message: `via spelling ${i}`, service: 'keys', ddtags: `run:${run}` }]), false));
    for (const target of rawSpellings) {
      const text = await exchange(Number(new URL(stack.intakeUrl).port), { method: 'POST', target });
      replies.set(target, { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), text });
    }
    const accepted = spellings.filter((p) => (replies.get(p)?.status ?? 0) < 300);
    const delivered = await waitFor(
      () => recordsOfRun(stack, run),
      (r) => r.length >= accepted.length,
    );
    const metrics = await scrapeMetrics(stack.adminUrl);
    const internalAfter = sampleSum(metrics, 'ddbridge_internal_errors_total');
    const hidden = (p: string): string => p.replace(KEY, '<key>');
    const leaks = [...[...replies].filter(([, r]) => r.text.includes(KEY)).map(([p]) => `reply to ${hidden(p)}`), ...(stack.sidecarOutput().includes(KEY) ? ['sidecar output'] : []), ...(metrics.includes(KEY) ? ['/metrics'] : [])];
    process.stderr.write(`[fault] key spellings: ${[...replies].map(([p, r]) => `${hidden(p)}=${r.status}`).join(' ')} delivered=${delivered.length} leaks=[${leaks.join('; ')}] internal-errors=${internalBefore}->${internalAfter}\n`);
    expect(leaks).toEqual([]);
    expect(replies.get(`/V1/INPUT/${KEY}`)?.status).toBe(202);
    for (const target of rawSpellings) expect(replies.get(target)?.status).toBe(400);
    const badEscape = replies.get('/v1/input/%ZZ')?.status ?? 0;
    expect(badEscape).toBeGreaterThanOrEqual(400);
    expect(badEscape).toBeLessThan(500);
    // every 2xx means "safe": each accepted spelling's line is in the collector
    expect(delivered.map((r) => r.body).sort()).toEqual(accepted.map((p) => `via spelling ${spellings.indexOf(p)}`).sort());
    expect((internalAfter ?? 0) - (internalBefore ?? 0)).toBe(0);
  });

  it('metric points at time 0 and a rate with interval 1e400 are dropped and counted, never forwarded', async () => {
    const prefix = `fault_times_${Date.now()}`;
    const now = Math.floor(Date.now() / 1000);
    const droppedBefore = sampleSum(await scrapeMetrics(stack.adminUrl), 'ddbridge_metric_points_dropped_total') ?? 0;
    // written by hand: JSON.stringify cannot produce the literal 1e400 (it parses to Infinity)
    const v1 = `{"series":[{"metric":"${prefix}.v1.zero","points":[[0,1]],"type":"gauge","host":"h"},{"metric":"${prefix}.v1.rate","points":[[${now},5]],"type":"rate","interval":1e400,"host":"h"},{"metric":"${prefix}.v1.ok","points":[[${now},1]],"type":"gauge","host":"h"}]}`;
    const v2 = `{"series":[{"metric":"${prefix}.v2.zero","type":3,"points":[{"timestamp":0,"value":1}]},{"metric":"${prefix}.v2.rate","type":2,"interval":1e400,"points":[{"timestamp":${now},"value":5}]},{"metric":"${prefix}.v2.ok","type":3,"points":[{"timestamp":${now},"value":1}]}]}`;
    const headers = { 'Content-Type': 'application/json', 'DD-API-KEY': KEY };
    const statuses = await Promise.all(
      [
        ['/api/v1/series', v1],
        ['/api/v2/series', v2],
      ].map(async ([path, body]) => (await fetch(`${stack.intakeUrl}${path}`, { method: 'POST', body, headers })).status),
    );
    const points = await waitFor(
      () => pointsNamed(stack.sinkDir, prefix),
      (p) => p.filter((x) => x.name.endsWith('.ok')).length >= 2,
    );
    await new Promise((r) => setTimeout(r, 500)); // anything forwarded with the good points is flushed by now
    const forwarded = pointsNamed(stack.sinkDir, prefix)
      .map((p) => p.name)
      .sort();
    const droppedAfter = sampleSum(await scrapeMetrics(stack.adminUrl), 'ddbridge_metric_points_dropped_total') ?? 0;
    process.stderr.write(`[fault] metric times: statuses=${statuses.join(',')} forwarded=${forwarded.map((n) => n.slice(prefix.length + 1)).join(',')} dropped-counted=${droppedAfter - droppedBefore}\n`);
    expect(statuses).toEqual([202, 202]);
    expect(points.length).toBeGreaterThanOrEqual(2);
    expect(forwarded).toEqual([`${prefix}.v1.ok`, `${prefix}.v2.ok`]);
    expect(droppedAfter - droppedBefore).toBeGreaterThanOrEqual(4);
  });
});

describe('collector credentials in the endpoint URL', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ otlpEndpoint: 'http://fault-user:fault-secret-91@127.0.0.1:{port}' });
  });
  afterAll(async () => stack?.stop());

  it('/health and the start-up log never show user:pass@', async () => {
    const health = await (await fetch(`${stack.adminUrl}/health`)).text();
    process.stderr.write(`[fault] endpoint credentials: in /health=${health.includes('fault-secret-91')} in log=${stack.sidecarOutput().includes('fault-secret-91')}\n`);
    for (const text of [health, stack.sidecarOutput()]) {
      expect(text).not.toContain('fault-secret-91');
      expect(text).not.toContain('fault-user:');
    }
  });
});
