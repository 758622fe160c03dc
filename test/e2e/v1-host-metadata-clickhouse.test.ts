/**
 * Issue 25 items 8–9 end to end, real clients' bytes through bridge → collector → ClickHouse, read
 * back with the columns HyperDX reads (docs/hyperdx-ui.md, What HyperDX reads):
 *
 * - dd-trace-go 2.12.0's /v1.0/traces (test/fixtures/captured/go-dd-trace-go-2.12.0-v1/): its 14
 *   spans in otel_traces with their full 128-bit trace ids, a ServiceName, and parents that are
 *   spans of the same trace;
 * - the collector's datadog exporter 0.155.0 (test/fixtures/captured/datadog-exporter-0.155.0/),
 *   whose host metadata for `capture-host` (host tags `team:shop`, `region:capture-1`) comes before
 *   its gauge, spans and logs: all three carry the host tags on their resource;
 * - a tracer that sends to the bridge directly names no host (dd-trace-go 2.12.0's v0.4 capture):
 *   its spans get the host whose agent sent host metadata from the same address.
 */
import { capturedDir, non2xx, replayCaptured } from '../helpers/captured';
import { useClickHouseStack } from '../helpers/clickhouse-stack';

const TIMEOUT_MS = 60_000;
/** The remote-config poll is a GET with a body, which fetch cannot send (captured-go.test.ts). */
const REMOTE_CONFIG = /^\/v0\.7\/config$/;
/** dd-trace-go's runtime id in the V1 capture: its spans' `service.instance.id`. */
const GO_RUNTIME = '9deb3718-4c11-4951-9275-6e16016fa3cf';

describe('V1 traces and host metadata, into ClickHouse', () => {
  const running = useClickHouseStack();

  it("dd-trace-go 2.12.0's /v1.0/traces: every span in otel_traces, 128-bit trace ids, parents in their trace", async () => {
    const results = await replayCaptured(capturedDir('go-dd-trace-go-2.12.0-v1'), running.stack.intakeUrl, 'unused', REMOTE_CONFIG);
    expect(results.filter((r) => r.request.path === '/v1.0/traces').map((r) => r.status)).toEqual([200, 200]);
    expect(non2xx(results)).toEqual([]);
    const spans = await running.ch.waitForRows<{ TraceId: string; SpanId: string; ParentSpanId: string; ServiceName: string; SpanName: string }>(
      `SELECT TraceId, SpanId, ParentSpanId, ServiceName, SpanName FROM otel_traces WHERE ResourceAttributes['service.instance.id'] = {runtime:String} ORDER BY Timestamp`,
      14,
      TIMEOUT_MS,
      { runtime: GO_RUNTIME },
    );
    expect(spans).toHaveLength(14);
    // 6 traces (two start-up queries, four client calls; the README) in 10 chunks
    expect(new Set(spans.map((s) => s.TraceId)).size).toBe(6);
    for (const s of spans) {
      expect(s.TraceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.TraceId.slice(0, 16)).not.toBe('0000000000000000'); // the chunk's upper half, which V1 carries as bytes
      expect(s.ServiceName).not.toBe('');
      if (s.ParentSpanId !== '') expect(spans.some((p) => p.TraceId === s.TraceId && p.SpanId === s.ParentSpanId)).toBe(true);
    }
    expect(spans.map((s) => s.SpanName)).toEqual(expect.arrayContaining(['POST /orders', 'GET /orders/{id}']));
  });

  it("the datadog exporter's host metadata: its host tags on its gauge, its spans and its logs", async () => {
    const results = await replayCaptured(capturedDir('datadog-exporter-0.155.0'), running.stack.intakeUrl, 'unused');
    expect(results.map((r) => r.request.path)).toEqual(expect.arrayContaining(['/intake', '/api/v2/series', '/api/v0.2/traces', '/api/v2/logs']));
    expect(non2xx(results)).toEqual([]);
    const hostTags = { team: 'shop', region: 'capture-1' };
    const gauge = await running.ch.waitForRows<{ MetricName: string; Value: number; team: string; region: string }>(
      `SELECT MetricName, Value, ResourceAttributes['team'] AS team, ResourceAttributes['cloud.region'] AS region FROM otel_metrics_gauge WHERE MetricName = 'shop.queue.depth' AND ResourceAttributes['host.name'] = 'capture-host'`,
      1,
      TIMEOUT_MS,
    );
    expect(gauge).toEqual([{ MetricName: 'shop.queue.depth', Value: 17, ...hostTags }]);
    const spans = await running.ch.waitForRows<{ team: string; region: string }>(`SELECT ResourceAttributes['team'] AS team, ResourceAttributes['cloud.region'] AS region FROM otel_traces WHERE ServiceName = 'otel-shop'`, 3, TIMEOUT_MS);
    expect(spans).toEqual([hostTags, hostTags, hostTags]);
    const logs = await running.ch.waitForRows<{ team: string; region: string }>(`SELECT ResourceAttributes['team'] AS team, ResourceAttributes['cloud.region'] AS region FROM otel_logs WHERE ServiceName = 'otel-shop'`, 2, TIMEOUT_MS);
    expect(logs).toEqual([hostTags, hostTags]);
  });
});

describe('a tracer sending directly, from where an agent sent host metadata', () => {
  const running = useClickHouseStack();

  it("its spans get that agent's host (and so its host tags), as its logs do", async () => {
    // the exporter's host metadata alone, from this address (loopback, as the tracer's requests)
    const metadata = await replayCaptured(capturedDir('datadog-exporter-0.155.0'), running.stack.intakeUrl, 'unused', /^(?!\/intake$)/);
    expect(metadata.map((r) => `${r.request.path} ${r.status}`)).toEqual(['/intake 202']);
    const traces = await replayCaptured(capturedDir('go-dd-trace-go-2.12.0-v0.4'), running.stack.intakeUrl, 'unused', /^(?!\/v0\.4\/traces$)/);
    expect(non2xx(traces)).toEqual([]);
    const spans = await running.ch.waitForRows<{ host: string; team: string }>(`SELECT DISTINCT ResourceAttributes['host.name'] AS host, ResourceAttributes['team'] AS team FROM otel_traces WHERE ServiceName != 'otel-shop'`, 1, TIMEOUT_MS);
    expect(spans).toEqual([{ host: 'capture-host', team: 'shop' }]);
  });
});
