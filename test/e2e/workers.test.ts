/**
 * `--workers 2` end to end: the sidecar from dist/ as a primary and two worker processes sharing
 * the intake port, in front of the real collector (file sink). node:cluster hands each new
 * connection to one worker, so each test opens keep-alive connections one socket each and keeps
 * those whose replies (DD-Bridge-Worker) name the worker it wants; every reply is checked again.
 *
 * The proof of issue 26 item 2: dd-trace's own v0.4 bytes (test/fixtures/captured/node-dd-trace-5.132.0,
 * 128-bit trace ids) reach one worker, and a log carrying only the decimal low half of one of
 * those ids — what dd-trace's log injection writes with 128-bit logging off — reaches the other:
 * the log lands with the span's full 128-bit TraceId.
 */
import { Agent, request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capturedDir, capturedRequests } from '../helpers/captured';
import { answered } from '../helpers/prom';
import { logRecords, waitFor } from '../helpers/sink';
import { metricPoints, type SinkPoint } from '../helpers/sink-metrics';
import { sinkSpans } from '../helpers/sink-traces';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { eventually, startStack, type TestStack } from '../helpers/stack';

const NODE = capturedDir('node-dd-trace-5.132.0');

interface Reply {
  status: number;
  worker: string | undefined;
  body: string;
}

/** One keep-alive connection: every request it sends goes to the worker that took the connection. */
class Connection {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  worker: string | undefined;

  constructor(private readonly url: string) {}

  send(method: string, path: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(`${this.url}${path}`, { method, agent: this.agent, headers: body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, worker: res.headers['dd-bridge-worker'] as string | undefined, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Sends, and fails unless the connection's own worker answered. */
  async sendHere(method: string, path: string, body?: Buffer | string, headers?: Record<string, string>): Promise<Reply> {
    const reply = await this.send(method, path, body, headers);
    expect(reply.worker).toBe(this.worker);
    return reply;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A connection to a worker other than `others`'; new connections go round the workers, so a few tries find one. */
async function connectionTo(stack: TestStack, others: readonly Connection[] = []): Promise<Connection> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const c = new Connection(stack.intakeUrl);
    const reply = await c.send('GET', '/info');
    expect(reply.status).toBe(200);
    if (reply.worker !== undefined && !others.some((o) => o.worker === reply.worker)) {
      c.worker = reply.worker;
      return c;
    }
    c.close();
  }
  throw new Error('no connection reached another worker');
}

/**
 * dd-trace's captured v0.4 request on `spans`' worker; right after its 2xx, on `logs`' worker, a
 * pino line of the same capture whose trace id is the decimal low half, as dd-trace writes it
 * with 128-bit logging off. Returns the span's full id (as hex) and the log's test id.
 */
async function spanThenLog(spans: Connection, logs: Connection): Promise<{ traceId: string; testId: string }> {
  const traces = capturedRequests(NODE).find((r) => r.path === '/v0.4/traces' && r.body);
  expect(traces).toBeDefined();
  const sent = await spans.sendHere('PUT', '/v0.4/traces', readFileSync(join(NODE, traces?.body as string)), { 'Content-Type': traces?.contentType ?? 'application/msgpack', ...pick(traces?.headers ?? {}, /^datadog-meta-|^x-datadog-trace-count$/) });
  expect(sent.status).toBe(200);
  const pino = JSON.parse(readFileSync(join(NODE, 'pino.json.log'), 'utf8').split('\n')[0] as string) as { dd: { trace_id: string } };
  const traceId = pino.dd.trace_id;
  expect(traceId.slice(0, 16)).not.toBe('0000000000000000');
  pino.dd.trace_id = BigInt(`0x${traceId.slice(16)}`).toString();
  const testId = randomUUID();
  const logged = await logs.sendHere('POST', '/api/v2/logs', logBody(JSON.stringify(pino), testId), { 'Content-Type': 'application/json' });
  expect(logged.status).toBe(202);
  return { traceId, testId };
}

const logBody = (message: string, testId: string): string => JSON.stringify([{ message, service: 'node-shop', ddsource: 'nodejs', hostname: 'vm', ddtags: `test_id:${testId}` }]);

/** A v1 series body: one count point per [metric, time], all from one host and tag set. */
const countSeries = (points: readonly (readonly [string, number])[]): string => JSON.stringify({ series: points.map(([metric, t]) => ({ metric, type: 'count', points: [[t, 1]], host: 'e2e-host', tags: ['env:e2e'] })) });

/**
 * `metricA` to connection `a`, `metricB` to `b`, then to `a` two points of `metricA` with one of
 * `metricB`, which `b`'s worker carries: `a`'s worker asks the primary for it and translates that
 * request again.
 */
async function sendTranslatedTwice(a: Connection, b: Connection, [metricA, metricB]: readonly [string, string], t0: number): Promise<void> {
  const requests: [Connection, [string, number][]][] = [
    [a, [[metricA, t0]]],
    [b, [[metricB, t0]]],
    [
      a,
      [
        [metricA, t0 + 10],
        [metricA, t0 + 20],
        [metricB, t0 + 20],
      ],
    ],
  ];
  for (const [connection, points] of requests) {
    expect((await connection.sendHere('POST', '/api/v1/series', countSeries(points), { 'Content-Type': 'application/json' })).status).toBe(202);
  }
}

/** [start, end] of each point of `metric`, in seconds after `t0`, by end. */
const windowsOf = (points: readonly SinkPoint[], metric: string, t0: number): bigint[][] =>
  points
    .filter((p) => p.name === metric)
    .map((p) => [p.startTimeUnixNano / 1_000_000_000n - BigInt(t0), p.timeUnixNano / 1_000_000_000n - BigInt(t0)])
    .sort((x, y) => Number((x[1] as bigint) - (y[1] as bigint)));

describe('--workers 2', () => {
  let stack: TestStack;
  let a: Connection;
  let b: Connection;
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_WORKERS: '2', DD_BRIDGE_SHUTDOWN_GRACE_MS: '5000', DD_BRIDGE_EXPORT_RETRY_MAX_ELAPSED_MS: '4000' } });
    a = await connectionTo(stack);
    b = await connectionTo(stack, [a]);
  });
  afterAll(async () => {
    a?.close();
    b?.close();
    await stack?.stop();
  });

  it('says how many workers it runs, and each one starting', () => {
    const out = stack.sidecarOutput();
    expect(out).toMatch(/"msg":"starting workers"[^\n]*"workers":2/);
    expect(out.match(/"msg":"worker started"/g)).toHaveLength(2);
    expect([a.worker, b.worker].sort()).toEqual(['0', '1']);
  });

  it('a log with a 64-bit trace id on one worker gets the 128-bit TraceId of its span, which dd-trace sent to the other', async () => {
    const { traceId, testId } = await spanThenLog(a, b);
    const spans = await waitFor(
      () => sinkSpans(stack.sinkDir).filter((s) => s.span.traceId === traceId),
      (s) => s.length > 0,
    );
    expect(spans.length).toBeGreaterThan(0);
    const [record] = await waitFor(
      () => logRecords(stack.sinkDir).filter((r) => r.attributes.test_id === testId),
      (r) => r.length === 1,
    );
    expect(record?.record.traceId).toBe(traceId);
  });

  it("a metric stream's points keep one history across workers: each window starts where the last one, on the other worker, ended", async () => {
    const metric = `e2e.workers.count.${randomUUID().slice(0, 8)}`;
    const t0 = Math.floor(Date.now() / 1000) - 60;
    for (const [connection, t] of [
      [a, t0],
      [b, t0 + 10],
      [a, t0 + 20],
    ] as const) {
      const reply = await connection.sendHere('POST', '/api/v1/series', countSeries([[metric, t]]), { 'Content-Type': 'application/json' });
      expect(reply.status).toBe(202);
    }
    const points = await waitFor(
      () => metricPoints(stack.sinkDir).filter((p) => p.name === metric),
      (p) => p.length === 3,
    );
    expect(windowsOf(points, metric, t0)).toEqual([
      [0n, 0n],
      [0n, 10n],
      [10n, 20n],
    ]);
  });

  it('a request translated twice, for a stream the other worker carried, keeps the windows of the streams this one carried', async () => {
    const [metricA, metricB] = ['a', 'b'].map((x) => `e2e.workers.${x}.${randomUUID().slice(0, 8)}`) as [string, string];
    const t0 = Math.floor(Date.now() / 1000) - 60;
    await sendTranslatedTwice(a, b, [metricA, metricB], t0);
    const points = await waitFor(
      () => metricPoints(stack.sinkDir).filter((p) => p.name === metricA || p.name === metricB),
      (p) => p.length === 5,
    );
    expect(windowsOf(points, metricA, t0)).toEqual([
      [0n, 0n],
      [0n, 10n],
      [10n, 20n],
    ]);
    expect(windowsOf(points, metricB, t0)).toEqual([
      [0n, 0n],
      [0n, 20n],
    ]);
  });

  it("/metrics sums both workers' counters, and /health reports both", async () => {
    const before = await answered(stack.adminUrl, 'info');
    for (let i = 0; i < 3; i++) await a.sendHere('GET', '/info');
    for (let i = 0; i < 2; i++) await b.sendHere('GET', '/info');
    expect((await answered(stack.adminUrl, 'info')) - before).toBe(5);
    const health = await fetch(`${stack.adminUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', workers: { configured: 2, ok: 2 } });
  });

  it('restarts a worker that dies, and is healthy again', async () => {
    const pids = [...stack.sidecarOutput().matchAll(/"msg":"worker started"[^\n]*"worker":(\d)[^\n]*"pid":(\d+)/g)].map((m) => Number(m[2]));
    process.kill(pids[0] as number, 'SIGKILL');
    await waitFor(
      () => stack.sidecarOutput(),
      (out) => /worker exited unexpectedly; restarting it/.test(out) && (out.match(/"msg":"worker started"/g) ?? []).length === 3,
    );
    expect(await eventually(async () => (await fetch(`${stack.adminUrl}/health`)).status === 200, 15_000)).toBe(true);
    // the connections of the worker that died are gone; new ones find both workers again
    a.close();
    b.close();
    a = await connectionTo(stack);
    b = await connectionTo(stack, [a]);
  });

  it('SIGTERM lets the requests in flight on both workers finish with 2xx, and exits 0', async () => {
    await stack.stopCollector(); // requests now wait in the exporters' retries
    const id = randomUUID();
    const counted = async (): Promise<number> => {
      const text = await (await fetch(`${stack.adminUrl}/metrics`)).text();
      return Number(/^ddbridge_export_failures_total\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const inflight = [a.sendHere('POST', '/api/v2/logs', logBody('in flight on a', id), { 'Content-Type': 'application/json' }), b.sendHere('POST', '/api/v2/logs', logBody('in flight on b', id), { 'Content-Type': 'application/json' })];
    // both workers are waiting on the collector once each has failed an export at least once
    expect(await eventually(async () => (await counted()) >= 2, 15_000)).toBe(true);
    const collectorBack = stack.startCollector();
    const code = await stack.stopSidecar('SIGTERM');
    expect((await Promise.all(inflight)).map((r) => r.status)).toEqual([202, 202]);
    expect(code).toBe(0);
    await collectorBack;
    expect(stack.sidecarOutput().match(/"msg":"worker exited"[^\n]*"code":0/g)).toHaveLength(2);
    const delivered = await waitFor(
      () => logRecords(stack.sinkDir).filter((r) => r.attributes.test_id === id),
      (r) => r.length === 2,
    );
    expect(delivered).toHaveLength(2);
  });
});

describe('--workers 2 with --spool-dir', () => {
  it('spools per worker, and a restart with one worker delivers both spools', async () => {
    const spool = mkdtempSync(join(tmpdir(), 'dd-otlp-bridge-workers-spool-'));
    const stack = await startStack({ collector: false, sidecarEnv: { DD_BRIDGE_WORKERS: '2', DD_BRIDGE_SPOOL_DIR: spool } });
    const id = randomUUID();
    try {
      const a = await connectionTo(stack);
      const b = await connectionTo(stack, [a]);
      for (const c of [a, b]) {
        const reply = await c.sendHere('POST', '/api/v2/logs', logBody(`spooled by worker ${c.worker}`, id), { 'Content-Type': 'application/json' });
        expect(reply.status).toBe(202);
        c.close();
      }
      for (const w of ['worker-0', 'worker-1']) {
        const dir = join(spool, w);
        expect(existsSync(dir)).toBe(true);
        expect(
          readdirSync(dir)
            .filter((f) => f.endsWith('.seg'))
            .reduce((n, f) => n + statSync(join(dir, f)).size, 0),
        ).toBeGreaterThan(0);
      }
      expect(await stack.stopSidecar('SIGTERM')).toBe(0);

      await stack.restartSidecar({ DD_BRIDGE_WORKERS: '1' });
      await stack.startCollector();
      const delivered = await waitFor(
        () => logRecords(stack.sinkDir).filter((r) => r.attributes.test_id === id),
        (r) => r.length === 2,
      );
      expect(delivered.map((r) => r.body).sort()).toEqual(['spooled by worker 0', 'spooled by worker 1']);
      expect(stack.sidecarOutput()).toMatch(/delivering the spool of a former worker/);
    } finally {
      await stack.stop();
    }
  });
});

describe('--workers 2 into ClickHouse', () => {
  const running = useClickHouseStack({ sidecarEnv: { DD_BRIDGE_WORKERS: '2' } });

  it("the log row carries its span's 128-bit TraceId, which HyperDX joins on, though a different worker wrote each", async () => {
    const a = await connectionTo(running.stack);
    const b = await connectionTo(running.stack, [a]);
    try {
      const { traceId, testId } = await spanThenLog(a, b);
      const [log] = await running.ch.waitForRows<{ TraceId: string }>("SELECT TraceId FROM otel_logs WHERE LogAttributes['test_id'] = {id:String}", 1, 30_000, { id: testId });
      expect(log?.TraceId).toBe(traceId);
      const spans = await running.ch.waitForRows<{ n: string }>('SELECT count() AS n FROM otel_traces WHERE TraceId = {t:String} HAVING n > 0', 1, 30_000, { t: traceId });
      expect(Number(spans[0]?.n)).toBeGreaterThan(0);
    } finally {
      a.close();
      b.close();
    }
  });

  it('a request translated twice keeps the windows of the streams its worker carried, in otel_metrics_sum', async () => {
    const a = await connectionTo(running.stack);
    const b = await connectionTo(running.stack, [a]);
    const [metricA, metricB] = ['a', 'b'].map((x) => `e2e.workers.ch.${x}.${randomUUID().slice(0, 8)}`) as [string, string];
    const t0 = Math.floor(Date.now() / 1000) - 60;
    try {
      await sendTranslatedTwice(a, b, [metricA, metricB], t0);
      const rows = await running.ch.waitForRows<{ name: string; start: number; end: number }>(
        'SELECT MetricName AS name, toUnixTimestamp(StartTimeUnix) - {t0:UInt32} AS start, toUnixTimestamp(TimeUnix) - {t0:UInt32} AS end FROM otel_metrics_sum WHERE MetricName IN ({a:String}, {b:String}) ORDER BY name, end',
        5,
        30_000,
        { t0, a: metricA, b: metricB },
      );
      expect(rows.map((r) => [r.name === metricA ? 'a' : 'b', Number(r.start), Number(r.end)])).toEqual([
        ['a', 0, 0],
        ['a', 0, 10],
        ['a', 10, 20],
        ['b', 0, 0],
        ['b', 0, 20],
      ]);
    } finally {
      a.close();
      b.close();
    }
  });
});

const pick = (headers: Record<string, string>, names: RegExp): Record<string, string> => Object.fromEntries(Object.entries(headers).filter(([k]) => names.test(k)));
