/**
 * Issue 25, items 1-7, judged where HyperDX reads: real clients' captured trace bytes (Python
 * ddtrace 4.16.0, Node dd-trace 5.132.0, Go dd-trace-go 2.12.0 over v0.4, the collector's datadog
 * exporter 0.155.0; see each fixture's README) sent through the sidecar and the collector into a
 * real ClickHouse, and the rows read with the SQL shapes of HyperDX's views
 * (docs/hyperdx-ui.md, What HyperDX reads): the HTTP panel's keys on HTTP spans, the
 * Database tab's query text, the exception event's stack, endpoints, integration spans under
 * their process's service, the datadog exporter's 128-bit ids, scope and Ok status, and SampleRate;
 * and the exporter's trace-id lookup table, filled by its materialized view as the `collector` user.
 * The `dd.trace.*` side of the one-service rule, from a real tracer's APM stats, is
 * test/e2e/stats-clickhouse.test.ts.
 */
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { capturedDir, non2xx, replayCaptured } from '../helpers/captured';

const KEY = 'spans-clickhouse-key';
const CLIENTS = ['python-ddtrace-4.16.0', 'node-dd-trace-5.132.0', 'go-dd-trace-go-2.12.0-v0.4', 'datadog-exporter-0.155.0'];
/** Everything but the trace routes: the logs, metrics and control requests are other tests' concern. */
const NOT_TRACES = /^(?!\/(v0\.[345]\/traces|api\/v0\.2\/traces)$)/;
const WAIT_MS = 60_000;

describe('spans in ClickHouse as HyperDX reads them', () => {
  const running = useClickHouseStack({ authToken: KEY });
  beforeAll(async () => {
    for (const client of CLIENTS) expect(non2xx(await replayCaptured(capturedDir(client), running.stack.intakeUrl, KEY, NOT_TRACES))).toEqual([]);
    // 42 Python + 13 Node + 3 exporter spans, and Go's
    await running.ch.waitForRows('SELECT SpanId FROM otel_traces', 70, WAIT_MS);
  });

  it('every trace reaches otel_traces_trace_id_ts through the materialized view, which runs as the collector user', async () => {
    const traces = await running.ch.query<{ TraceId: string }>("SELECT DISTINCT TraceId FROM otel_traces WHERE TraceId != '' ORDER BY TraceId");
    expect(traces.length).toBeGreaterThan(0);
    expect(await running.ch.waitForRows('SELECT DISTINCT TraceId FROM otel_traces_trace_id_ts ORDER BY TraceId', traces.length, WAIT_MS)).toEqual(traces);
  });

  it("HTTP server spans carry the HTTP panel's keys (http.url, http.method, an integer http.status_code)", async () => {
    const rows = await running.ch.query<{ ServiceName: string; url: string; method: string; status: string }>(
      `SELECT ServiceName, SpanAttributes['http.url'] AS url, SpanAttributes['http.method'] AS method, SpanAttributes['http.status_code'] AS status
       FROM otel_traces WHERE SpanKind IN ('Server', 'SPAN_KIND_SERVER') ORDER BY ServiceName`,
    );
    const services = [...new Set(rows.map((r) => r.ServiceName))];
    expect(services).toEqual(expect.arrayContaining(['py-shop', 'node-shop', 'otel-shop']));
    expect(services.length).toBeGreaterThanOrEqual(4);
    for (const r of rows) {
      expect(r.url).toMatch(/^http:\/\//);
      expect(r.method).toMatch(/^(GET|POST)$/);
      expect(r.status).toMatch(/^[1-5]\d\d$/);
    }
  });

  it("the Database tab lists each client's queries (db.query.text, else db.statement)", async () => {
    const rows = await running.ch.query<{ ServiceName: string; query: string; SpanName: string }>(
      `SELECT ServiceName, SpanName, coalesce(nullIf(SpanAttributes['db.query.text'], ''), SpanAttributes['db.statement']) AS query
       FROM otel_traces WHERE query != '' ORDER BY ServiceName, SpanName`,
    );
    const byService = (service: string) => rows.filter((r) => r.ServiceName === service).map((r) => [r.SpanName, r.query]);
    expect(byService('py-shop')).toEqual(expect.arrayContaining([['INSERT orders', 'INSERT INTO orders (item, quantity) VALUES (?, ?)']]));
    expect(byService('node-shop')).toEqual(expect.arrayContaining([['SELECT orders', 'SELECT id, item, quantity FROM orders WHERE id = $1']]));
    expect(byService('otel-shop')).toEqual([['SELECT shop.orders', 'SELECT id, item, quantity FROM orders WHERE id = $1']]);
    expect(rows.filter((r) => !['py-shop', 'node-shop', 'otel-shop'].includes(r.ServiceName)).map((r) => r.SpanName)).toEqual(expect.arrayContaining(['SELECT orders']));
  });

  it('error spans carry an exception event with the stack', async () => {
    const rows = await running.ch.query<{ ServiceName: string; stack: string }>(
      `SELECT ServiceName, Events.Attributes[indexOf(Events.Name, 'exception')]['exception.stacktrace'] AS stack
       FROM otel_traces WHERE StatusCode = 'Error' AND has(Events.Name, 'exception') AND stack != ''`,
    );
    const stackOf = (service: string) => rows.find((r) => r.ServiceName === service)?.stack;
    expect(stackOf('py-shop')).toMatch(/^Traceback \(most recent call last\)/);
    expect(stackOf('node-shop')).toMatch(/^Error: payment service unavailable\n\s+at /);
    expect(stackOf('otel-shop')).toMatch(/^PaymentError: card declined/);
    expect(rows.some((r) => /dd-trace-go/.test(r.stack))).toBe(true);
    expect(rows.every((r) => r.stack.trim() !== '[]')).toBe(true);
  });

  it('endpoints are the server spans route names', async () => {
    const rows = await running.ch.query<{ SpanName: string }>(`SELECT DISTINCT SpanName FROM otel_traces WHERE SpanKind IN ('Server', 'SPAN_KIND_SERVER') AND ServiceName = 'py-shop' ORDER BY SpanName`);
    expect(rows.map((r) => r.SpanName)).toEqual(['GET /orders/<int:order_id>', 'POST /cart/checkout', 'POST /orders']);
  });

  it("the datadog exporter's spans keep their 128-bit trace id, scope and Ok status", async () => {
    const rows = await running.ch.query<{ TraceId: string; SpanName: string; StatusCode: string; ScopeName: string; ScopeVersion: string }>(
      `SELECT TraceId, SpanName, StatusCode, ScopeName, ScopeVersion FROM otel_traces WHERE ServiceName = 'otel-shop' ORDER BY SpanId`,
    );
    expect(rows).toEqual([
      { TraceId: '5b8efff798038103d269b633813fc60c', SpanName: 'GET /orders/{id}', StatusCode: 'Ok', ScopeName: 'capture.shop', ScopeVersion: '0.3.1' },
      { TraceId: '5b8efff798038103d269b633813fc60c', SpanName: 'SELECT shop.orders', StatusCode: 'Unset', ScopeName: 'capture.shop', ScopeVersion: '0.3.1' },
      { TraceId: '5b8efff798038103d269b633813fc60c', SpanName: 'charge payment', StatusCode: 'Error', ScopeName: 'capture.shop', ScopeVersion: '0.3.1' },
    ]);
    const [resource] = await running.ch.query<{ sdk: string; version: string }>(`SELECT DISTINCT ResourceAttributes['telemetry.sdk.name'] AS sdk, ResourceAttributes['telemetry.sdk.version'] AS version FROM otel_traces WHERE ServiceName = 'otel-shop'`);
    expect(resource).toEqual({ sdk: 'opentelemetry', version: '1.38.0' });
  });

  it('every span has a SampleRate ClickStack can read as a weight', async () => {
    const rows = await running.ch.query<{ rate: string; n: string }>(`SELECT SpanAttributes['SampleRate'] AS rate, count() AS n FROM otel_traces GROUP BY rate`);
    expect(rows.map((r) => r.rate)).toEqual(['1']);
  });

  it("integration spans sit under their process's service, their own service kept as datadog.service", async () => {
    const rows = await running.ch.query<{ integration: string; ServiceName: string }>(`SELECT DISTINCT SpanAttributes['datadog.service'] AS integration, ServiceName FROM otel_traces WHERE integration != '' ORDER BY integration`);
    expect(rows).toEqual(
      expect.arrayContaining([
        { integration: 'node-shop-postgres', ServiceName: 'node-shop' },
        { integration: 'sqlite', ServiceName: 'py-shop' },
        { integration: 'requests', ServiceName: 'py-shop' },
      ]),
    );
  });
});
