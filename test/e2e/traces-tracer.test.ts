/**
 * Traces end to end from the real dd-trace npm tracer: a traced program in its own node process
 * sends to the sidecar with dd-trace's exporter (v0.4 and v0.5, 128-bit ids on and off), the
 * sidecar forwards to the real collector, and the test reads what the collector's file exporter
 * wrote. Also the replies tracers read, and a log that must land on the same TraceId as its span.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { logRecords, waitFor } from '../helpers/sink';
import { sinkSpans, type SinkSpan } from '../helpers/sink-traces';
import { answered } from '../helpers/prom';
import { startStack, type TestStack } from '../helpers/stack';
import { encodeMsgpack } from '../fixtures/traces/msgpack-writer';

interface AppIds {
  traceId: string;
  traceIdLow: string;
  spanId: string;
}
type AppOutput = Record<'enqueue' | 'root' | 'db' | 'payment', AppIds>;

const APP = join(__dirname, '..', 'fixtures', 'traces', 'app', 'traced-app.js');

function runTracedApp(stack: TestStack, service: string, env: Record<string, string>): Promise<AppOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [APP], {
      env: {
        PATH: process.env.PATH,
        TRACED_APP_URL: stack.intakeUrl,
        TRACED_APP_SERVICE: service,
        DD_TRACE_TELEMETRY_ENABLED: 'false',
        DD_INSTRUMENTATION_TELEMETRY_ENABLED: 'false',
        DD_REMOTE_CONFIGURATION_ENABLED: 'false',
        DD_RUNTIME_METRICS_ENABLED: 'false',
        DD_TRACE_STARTUP_LOGS: 'false',
        DD_PROFILING_ENABLED: 'false',
        DD_TRACE_DEBUG: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`traced app exited with ${code}:\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() as string) as AppOutput);
    });
  });
}

const hex16 = (decimal: string): string => BigInt(decimal).toString(16).padStart(16, '0');
const spansOf = (stack: TestStack, service: string): SinkSpan[] => sinkSpans(stack.sinkDir).filter((s) => s.resource['service.name'] === service);

describe('dd-trace → sidecar → real collector', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  // native span events exist on v0.4 only; v0.5 always sends them in the `events` tag
  it.each([
    ['0.4', true, true],
    ['0.4', false, false],
    ['0.5', true, false],
    ['0.5', false, false],
  ])('v%s with 128-bit ids %s (native span events %s): nested spans, an error span, tags, a link, an event, ids, kinds, status and resource', async (version, wide, nativeEvents) => {
    const service = `e2e-shop-${version.replace('.', '')}-${wide ? 'wide' : 'narrow'}`;
    const before = await answered(stack.adminUrl, `traces_v${version}`);
    const app = await runTracedApp(stack, service, {
      DD_TRACE_AGENT_PROTOCOL_VERSION: version,
      DD_TRACE_128_BIT_TRACEID_GENERATION_ENABLED: String(wide),
      DD_TRACE_NATIVE_SPAN_EVENTS: String(nativeEvents),
    });
    // the tracer really spoke this protocol version
    expect(await answered(stack.adminUrl, `traces_v${version}`)).toBeGreaterThan(before);

    const traceId = app.root.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    if (wide) expect(traceId.slice(0, 16)).not.toBe('0000000000000000');
    else expect(traceId.slice(0, 16)).toBe('0000000000000000');
    // TraceId = _dd.p.tid (the tracer's high half) followed by the 64-bit id it sends in trace_id
    expect(traceId.slice(16)).toBe(hex16(app.root.traceIdLow));

    const spans = await waitFor(
      () => spansOf(stack, service).filter((s) => s.span.traceId === traceId),
      (s) => s.length >= 3,
    );
    expect(spans).toHaveLength(3);
    for (const s of spans) {
      expect(s.span.traceId).toBe(traceId);
      expect(s.resource).toMatchObject({ 'service.name': service, 'deployment.environment.name': 'e2e', 'service.version': '1.2.3', 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.name': 'datadog' });
      expect(s.attributes.team).toBe('checkout-squad');
      expect(s.attributes['_dd.p.tid']).toBeUndefined();
    }
    const byId = new Map(spans.map((s) => [s.span.spanId as string, s]));
    const root = byId.get(app.root.spanId);
    const db = byId.get(app.db.spanId);
    const payment = byId.get(app.payment.spanId);

    expect(root?.span).toMatchObject({ name: 'GET /orders/:id', kind: 2 });
    expect(root?.span.parentSpanId ?? '').toBe('');
    expect(root?.span.status?.code ?? 0).toBe(0);
    expect(root?.attributes).toMatchObject({ 'datadog.span.name': 'web.request', 'dd.span.Resource': 'GET /orders/:id', 'http.route': '/orders/:id', 'http.method': 'GET', 'http.status_code': '200', 'sampling.priority': '1' });

    expect(db?.span).toMatchObject({ name: 'SELECT orders', kind: 3, parentSpanId: app.root.spanId });
    expect(db?.attributes).toMatchObject({ 'db.system': 'postgres', 'db.statement': 'SELECT * FROM orders WHERE id = ?', 'dd.span.Resource': 'SELECT * FROM orders WHERE id = ?' });
    const fetched = db?.events.find((e) => e.name === 'rows.fetched');
    expect(fetched?.attributes).toEqual({ rows: expect.anything(), cached: false });
    expect(String(fetched?.attributes.rows)).toBe('3');
    expect(BigInt(fetched?.timeUnixNano ?? 0)).toBeGreaterThanOrEqual(BigInt(db?.span.startTimeUnixNano));

    expect(root?.span.links).toEqual([{ traceId: app.enqueue.traceId, spanId: app.enqueue.spanId, attributes: [{ key: 'link.kind', value: { stringValue: 'follows_from' } }], flags: 1 }]);
    expect(root?.attributes['_dd.span_links']).toBeUndefined();

    expect(payment?.span).toMatchObject({ name: 'payment.charge', kind: 1, parentSpanId: app.root.spanId, status: { code: 2, message: 'card declined' } });
    expect(payment?.attributes).toMatchObject({ 'order.id': 'o-42', 'exception.type': 'TypeError' });
    // the message is the status message and the event's: not written a third time
    expect(payment?.attributes['exception.message']).toBeUndefined();
    const exception = payment?.events.find((e) => e.name === 'exception');
    expect(exception?.attributes).toMatchObject({ 'exception.type': 'TypeError', 'exception.message': 'card declined' });
    expect(exception?.attributes['exception.stacktrace']).toContain('TypeError: card declined');

    expect(BigInt(root?.span.endTimeUnixNano) - BigInt(root?.span.startTimeUnixNano)).toBeGreaterThan(0n);
  });

  it("puts a log carrying the decimal dd.trace_id of a span on that span's 128-bit TraceId", async () => {
    const service = 'e2e-log-correlation';
    const app = await runTracedApp(stack, service, { DD_TRACE_128_BIT_TRACEID_GENERATION_ENABLED: 'true' });
    const [span] = await waitFor(
      () => spansOf(stack, service).filter((s) => s.span.spanId === app.payment.spanId),
      (s) => s.length === 1,
    );
    expect(span?.span.traceId).toBe(app.payment.traceId);

    const id = randomUUID();
    // what pino/winston write under dd-trace log injection when 128-bit logging is off: decimal low half only
    const log = { message: JSON.stringify({ msg: 'charge failed', level: 'error', dd: { trace_id: app.payment.traceIdLow, span_id: BigInt('0x' + app.payment.spanId).toString() } }), service, ddtags: `test_id:${id}` };
    const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify([log]), headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(202);
    const [record] = await waitFor(
      () => logRecords(stack.sinkDir).filter((r) => r.attributes.test_id === id),
      (r) => r.length === 1,
    );
    expect(record?.record.traceId).toBe(span?.span.traceId);
    expect(record?.record.spanId).toBe(app.payment.spanId);
  });

  describe('replies tracers read', () => {
    const put = (path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<Response> => fetch(stack.intakeUrl + path, { method: 'PUT', body, headers: { 'Content-Type': 'application/msgpack', ...headers } });

    it('v0.4/v0.5/v0.7/v1.0 answer rate_by_service, honouring Datadog-Rates-Payload-Version', async () => {
      for (const [path, body] of [
        ['/v0.4/traces', encodeMsgpack([])],
        ['/v0.5/traces', encodeMsgpack([[''], []])],
        ['/v0.7/traces', encodeMsgpack({ chunks: [] })],
        ['/v1.0/traces', encodeMsgpack({})],
      ] as const) {
        const res = await put(path, body);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('datadog-agent-version')).toMatch(/^7\./);
        expect(res.headers.get('datadog-agent-state')).toMatch(/^[0-9a-f]{64}$/);
        const text = await res.text();
        expect(text.endsWith('\n')).toBe(true);
        expect(JSON.parse(text)).toEqual({ rate_by_service: { 'service:,env:': 1 } });
      }
      const first = await put('/v0.4/traces', encodeMsgpack([]), { 'Datadog-Rates-Payload-Version': 'stale' });
      const version = first.headers.get('datadog-rates-payload-version');
      expect(version).toBeTruthy();
      expect(JSON.parse(await first.text())).toHaveProperty('rate_by_service');
      const again = await put('/v0.4/traces', encodeMsgpack([]), { 'Datadog-Rates-Payload-Version': version as string });
      expect(again.headers.get('datadog-rates-payload-version')).toBe(version);
      expect(await again.text()).toBe('{}');
      const v1 = await put('/v1.0/traces', encodeMsgpack({}), { 'Datadog-Rates-Payload-Version': version as string });
      expect(v1.headers.get('datadog-rates-payload-version')).toBe(version);
      expect(await v1.text()).toBe('{}');
    });

    it('v0.3 answers OK; POST works as PUT does', async () => {
      const res = await fetch(`${stack.intakeUrl}/v0.3/traces`, { method: 'POST', body: '[]', headers: { 'Content-Type': 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('OK\n');
    });

    it('answers a hostile msgpack length with 400 naming the problem, and stays up', async () => {
      const res = await put('/v0.4/traces', Buffer.from('ddffffffff', 'hex'));
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/array header claims 4294967295 elements/);
      const bad = await put('/v0.4/traces', encodeMsgpack([[{ meta: { k: 1 } }]]));
      expect(bad.status).toBe(400);
      expect(await bad.text()).toBe('v0.4 traces: [0][0].meta.k: expected a string, got a number\n');
      expect((await put('/v0.4/traces', encodeMsgpack([]))).status).toBe(200);
    });

    it('GET /info lists exactly the tracer endpoints served, the telemetry proxy as the agent spells it', async () => {
      const info = (await (await fetch(`${stack.intakeUrl}/info`)).json()) as { endpoints: string[]; client_drop_p0s: boolean };
      expect([...info.endpoints].sort()).toEqual(['/v0.3/traces', '/v0.4/traces', '/v0.5/traces', '/v0.6/stats', '/v0.7/traces', '/v1.0/traces', '/telemetry/proxy/'].sort());
      expect(info.client_drop_p0s).toBe(false);
    });
  });
});
