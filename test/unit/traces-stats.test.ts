/**
 * APM stats → RED metrics: hits, errors and top-level hits as Delta Sums, durations as a Histogram
 * built from the tracer's DDSketches, per service/operation/resource and stats bucket.
 */
import { AggregationTemporality, type Metric } from '../../src/core/otlp/model';
import { parseAgentStats, parseClientStats } from '../../src/signals/traces/parse/stats';
import { translateStats } from '../../src/signals/traces/stats';
import { createTranslatorCaches } from '../../src/signals/caches';
import { attributesOf } from '../helpers/sink';
import { keyValueJson } from '../helpers/otlp-json';
import { encodeMsgpack } from '../fixtures/traces/msgpack-writer';
import { clientStatsPayload, ddSketch, statsGroup, STATS_START } from '../fixtures/traces/stats-payloads';

const group = (extra: Record<string, unknown> = {}): Record<string, unknown> => statsGroup({ TopLevelHits: 2, Duration: 7_000_000, ErrorSummary: ddSketch(4e6), ...extra });
const client = (groups: Record<string, unknown>[]): Record<string, unknown> => clientStatsPayload(groups);
const plainAttributes = (kvs: Parameters<typeof keyValueJson>[0][]): Record<string, unknown> => attributesOf(kvs.map(keyValueJson));
const byName = (metrics: Metric[], name: string): Metric => metrics.find((m) => m.name === name) as Metric;

const hitsPointOf = (resources: ReturnType<typeof translateStats>): Record<string, unknown> => {
  const hits = byName(resources[0]!.scopeMetrics[0]!.metrics, 'dd.trace.hits');
  return plainAttributes('sum' in hits ? hits.sum.dataPoints[0]!.attributes : []);
};

describe('APM stats → metrics', () => {
  it('turns one stats group into hits, errors, top-level hits and a duration histogram', () => {
    const [resource, ...others] = translateStats(parseClientStats(encodeMsgpack(client([group()]) as never), 'v0.6 stats'), createTranslatorCaches());
    expect(others).toEqual([]);
    expect(plainAttributes(resource!.resource.attributes)).toEqual({ 'service.name': 'checkout', 'deployment.environment.name': 'prod', 'service.version': '1.0', 'host.name': 'h', 'telemetry.sdk.language': 'nodejs' });
    const metrics = resource!.scopeMetrics[0]!.metrics;
    expect(metrics.map((m) => m.name)).toEqual(['dd.trace.hits', 'dd.trace.errors', 'dd.trace.top_level_hits', 'dd.trace.duration']);
    const hits = byName(metrics, 'dd.trace.hits');
    expect(hits).toMatchObject({ unit: '{span}', sum: { aggregationTemporality: AggregationTemporality.Delta, isMonotonic: true } });
    const point = 'sum' in hits ? hits.sum.dataPoints[0] : undefined;
    expect(point).toMatchObject({ startTimeUnixNano: STATS_START, timeUnixNano: STATS_START + 10_000_000_000n, value: { int: 3n } });
    expect(plainAttributes(point!.attributes)).toEqual({
      'datadog.span.name': 'express.request',
      'dd.span.Resource': 'GET /cart/:id',
      'datadog.span.type': 'web',
      'span.kind': 'server',
      'http.method': 'GET',
      'http.route': '/cart/:id',
      'http.status_code': '200',
    });
    const errors = byName(metrics, 'dd.trace.errors');
    expect('sum' in errors && errors.sum.dataPoints[0]?.value).toEqual({ int: 1n });
    const topLevel = byName(metrics, 'dd.trace.top_level_hits');
    expect('sum' in topLevel && topLevel.sum.dataPoints[0]?.value).toEqual({ int: 2n });

    const duration = byName(metrics, 'dd.trace.duration');
    expect(duration.unit).toBe('s');
    const h = 'histogram' in duration ? duration.histogram.dataPoints[0] : undefined;
    expect(h).toMatchObject({ count: 3n, sum: 0.007, bucketCounts: [1n, 1n, 1n] });
    // bounds are the upper bounds of the 1 ms and 2 ms bins (1 % relative accuracy), in seconds
    expect(h!.explicitBounds).toHaveLength(2);
    expect(h!.explicitBounds[0]).toBeGreaterThanOrEqual(0.001);
    expect(h!.explicitBounds[0]).toBeLessThan(0.00102);
    expect(h!.explicitBounds[1]).toBeGreaterThanOrEqual(0.002);
    expect(h!.explicitBounds[1]).toBeLessThan(0.00204);
  });

  it('merges equal bins of the ok and error sketches and leaves out a sum the buckets do not describe', () => {
    const [resource] = translateStats(parseClientStats(encodeMsgpack(client([group({ Hits: 5, OkSummary: ddSketch(2e6), ErrorSummary: ddSketch(2e6) })]) as never), 'v0.6 stats'), createTranslatorCaches());
    const duration = byName(resource!.scopeMetrics[0]!.metrics, 'dd.trace.duration');
    const h = 'histogram' in duration ? duration.histogram.dataPoints[0] : undefined;
    expect(h).toMatchObject({ count: 2n, bucketCounts: [2n], explicitBounds: [] });
    expect(h).not.toHaveProperty('sum');
  });

  it('groups the agent payload by service, with the agent host and env as defaults', () => {
    // stats the trace-agent computed itself name no service of their own
    const body = encodeMsgpack({ AgentHostname: 'agent-h', AgentEnv: 'staging', Stats: [{ ...client([group(), group({ Service: 'worker', OkSummary: new Uint8Array(), ErrorSummary: new Uint8Array() })]), Hostname: '', Env: '', Service: '' }] } as never);
    const resources = translateStats(parseAgentStats(body, 'agent stats'), createTranslatorCaches());
    expect(resources.map((r) => plainAttributes(r.resource.attributes)['service.name'])).toEqual(['checkout', 'worker']);
    expect(plainAttributes(resources[1]!.resource.attributes)).toMatchObject({ 'host.name': 'agent-h', 'deployment.environment.name': 'staging' });
    // no sketch, no histogram: a count without a distribution would chart as a lie
    expect(resources[1]!.scopeMetrics[0]!.metrics.map((m) => m.name)).toEqual(['dd.trace.hits', 'dd.trace.errors', 'dd.trace.top_level_hits']);
  });

  it('groups an integration service under the tracer service its payload names, before any span taught it (dd-trace-go after a restart)', () => {
    const resources = translateStats(parseClientStats(encodeMsgpack(clientStatsPayload([group({ Service: 'go-shop-postgres' })], { Service: 'go-shop' }) as never), 'v0.6 stats'), createTranslatorCaches());
    expect(resources.map((r) => plainAttributes(r.resource.attributes)['service.name'])).toEqual(['go-shop']);
    expect(hitsPointOf(resources)).toMatchObject({ 'datadog.service': 'go-shop-postgres' });
  });

  it('groups an integration service of agent-computed stats under the base service its spans taught, and keeps it as datadog.service', () => {
    const caches = createTranslatorCaches();
    const stats = () => translateStats(parseClientStats(encodeMsgpack(clientStatsPayload([group({ Service: 'checkout-postgres' })], { Service: '' }) as never), 'v0.6 stats'), caches);
    expect(plainAttributes(stats()[0]!.resource.attributes)['service.name']).toBe('checkout-postgres');
    caches.serviceIdentities.learn('prod', 'checkout-postgres', 'checkout');
    const [resource] = stats();
    expect(plainAttributes(resource!.resource.attributes)['service.name']).toBe('checkout');
    expect(hitsPointOf([resource!])).toMatchObject({ 'datadog.service': 'checkout-postgres' });
    // a second base service for the same integration service makes the answer unknown: its own service again
    caches.serviceIdentities.learn('prod', 'checkout-postgres', 'billing');
    expect(plainAttributes(stats()[0]!.resource.attributes)['service.name']).toBe('checkout-postgres');
  });

  it('names HTTP and database attributes as spans do under the semantic-convention opt-in', () => {
    const caches = createTranslatorCaches({ semconv: { http: 'dup', database: 'stable' } });
    const resources = translateStats(parseClientStats(encodeMsgpack(client([group({ DBType: 'postgresql' })]) as never), 'v0.6 stats'), caches);
    expect(hitsPointOf(resources)).toMatchObject({ 'http.method': 'GET', 'http.request.method': 'GET', 'http.status_code': '200', 'http.response.status_code': '200', 'db.system.name': 'postgresql' });
    expect(hitsPointOf(resources)).not.toHaveProperty('db.system');
  });
});
