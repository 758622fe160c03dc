/**
 * Issue 25's one-service rule on the metrics side, judged in ClickHouse: a real tracer's APM stats
 * (Node dd-trace 5.132.0 with stats computation on, test/fixtures/captured/node-dd-trace-5.132.0-stats/)
 * and the spans it sent with them, replayed through the sidecar and the collector. HyperDX filters
 * traces by the ServiceName column and metrics by their resource's service.name
 * (docs/translation.md, Service identity), so `dd.trace.*` rows must name the
 * service the spans sit under, the integration service (`node-shop-postgres`) kept as
 * `datadog.service` on both.
 */
import { capturedDir, non2xx, replayCaptured } from '../helpers/captured';
import type { TestClickHouse } from '../helpers/clickhouse';
import { useClickHouseStack } from '../helpers/clickhouse-stack';

/** Any key: the stack runs without an auth token. */
const KEY = 'stats-clickhouse-key';
/** The spans and the stats; remote config, telemetry and the dogstatsd proxy are other tests' concern. */
const NOT_TRACES_OR_STATS = /^(?!\/(v0\.4\/traces|v0\.6\/stats)$)/;
/** Spans in the capture (its README), and the stats groups of its one 10 s bucket. */
const SPANS = 13;
const STATS_GROUPS = 13;
const WAIT_MS = 60_000;

interface ServicePair {
  ServiceName: string;
  integration: string;
}

describe('APM stats in ClickHouse under the service of their spans', () => {
  const running = useClickHouseStack();
  const ch = (): TestClickHouse => running.ch;
  beforeAll(async () => {
    // capture order: the spans teach the bridge each integration's base service before the stats arrive
    expect(non2xx(await replayCaptured(capturedDir('node-dd-trace-5.132.0-stats'), running.stack.intakeUrl, KEY, NOT_TRACES_OR_STATS))).toEqual([]);
    await ch().waitForRows('SELECT SpanId FROM otel_traces', SPANS, WAIT_MS);
    await ch().waitForRows(`SELECT Value FROM otel_metrics_sum WHERE MetricName = 'dd.trace.hits'`, STATS_GROUPS, WAIT_MS);
  });

  it('dd.trace.hits rows carry the ServiceName of the spans, the integration service as datadog.service', async () => {
    const spans = await ch().query<ServicePair>(`SELECT DISTINCT ServiceName, SpanAttributes['datadog.service'] AS integration FROM otel_traces ORDER BY ServiceName, integration`);
    const hits = await ch().query<ServicePair>(`SELECT DISTINCT ServiceName, Attributes['datadog.service'] AS integration FROM otel_metrics_sum WHERE MetricName = 'dd.trace.hits' ORDER BY ServiceName, integration`);
    expect(spans).toEqual([
      { ServiceName: 'node-shop', integration: '' },
      { ServiceName: 'node-shop', integration: 'node-shop-postgres' },
    ]);
    expect(hits).toEqual(spans);
  });

  it("each query's hits sit where its spans do: same ServiceName, integration service and resource", async () => {
    const bySpans = await ch().query<{ ServiceName: string; integration: string; resource: string; n: string }>(
      `SELECT ServiceName, SpanAttributes['datadog.service'] AS integration, SpanAttributes['dd.span.Resource'] AS resource, toString(count()) AS n
       FROM otel_traces WHERE SpanAttributes['datadog.span.name'] = 'pg.query' GROUP BY ServiceName, integration, resource ORDER BY resource`,
    );
    const byHits = await ch().query<{ ServiceName: string; integration: string; resource: string; n: string }>(
      `SELECT ServiceName, Attributes['datadog.service'] AS integration, Attributes['dd.span.Resource'] AS resource, toString(sum(Value)) AS n
       FROM otel_metrics_sum WHERE MetricName = 'dd.trace.hits' AND Attributes['datadog.span.name'] = 'pg.query' GROUP BY ServiceName, integration, resource ORDER BY resource`,
    );
    expect(bySpans.map((r) => r.resource)).toEqual(expect.arrayContaining(['SELECT id, item, quantity FROM orders WHERE id = $1', 'UPDATE orders SET quantity = quantity - 1 WHERE id = $1']));
    expect(byHits).toEqual(bySpans);
  });

  it('the hits count every span the tracer sent', async () => {
    const [hits] = await ch().query<{ n: string }>(`SELECT toString(sum(Value)) AS n FROM otel_metrics_sum WHERE MetricName = 'dd.trace.hits'`);
    expect(hits?.n).toBe(String(SPANS));
  });
});
