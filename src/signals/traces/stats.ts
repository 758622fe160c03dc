/**
 * APM stats → OTLP metrics: RED metrics per service/operation/resource, which ClickStack can chart
 * directly. Upstream stores each stats payload as one opaque bytes attribute (docs/translation.md,
 * APM stats → RED metrics). Per stats group and 10 s bucket (Delta, start = bucket start, time =
 * bucket end):
 *
 * - `dd.trace.hits`, `dd.trace.errors`, `dd.trace.top_level_hits`: monotonic Sums;
 * - `dd.trace.duration`: a Histogram in seconds whose buckets are the bins of the tracer's ok and
 *   error DDSketches (relative accuracy ~1 %), with the exact total duration as its sum.
 *
 * The resource is the service the group's spans were grouped under (serviceOf) with the
 * payload's env, version, host and language; the data points carry the same names spans do
 * (`datadog.span.name`, `dd.span.Resource`, `datadog.service`, the HTTP and database names of the
 * semantic-convention opt-in, …) so a chart and a span search speak the same language.
 */
import type { DdClientStatsPayload, DdGroupedStats, DdSketch, DdStatsPayload } from './datadog';
import { AggregationTemporality, type AnyValue, type HistogramDataPoint, type KeyValue, type Metric, type NumberDataPoint, type ResourceMetrics } from '../../core/otlp/model';
import type { MetricItem } from '../metrics/context';
import { groupByResource } from '../metrics/group';
import { resourceKey } from '../shared/resource-promotion';
import type { TranslatorCaches } from '../caches';
import type { AttributeNames } from './finish';
import { DATADOG_SERVICE, language } from './resource';
import type { ServiceIdentities } from './service-identity';

const NS_PER_S = 1e9;
const U64_MAX = (1n << 64n) - 1n;

/** Bucket times are uint64 on the wire; their sum may not be. */
const capped = (ns: bigint): bigint => (ns > U64_MAX ? U64_MAX : ns);

const strings = (pairs: [string, string][]): KeyValue[] => pairs.filter(([, v]) => v !== '').map(([key, value]) => ({ key, value: { string: value } }));

/**
 * The service this group's spans were grouped under. A tracer's stats payload names the tracer's
 * own service (dd-trace-go sets it to its configured service at every flush), and a span of
 * another service in that process carries it as `_dd.base_service`, under which the span is
 * grouped: so the payload's service says it with no span seen yet, as after every restart, when
 * the stats of the first seconds arrive before the first trace. Stats the trace-agent computed
 * name no service: then the base service spans taught (service-identity.ts), else the group's own.
 */
const serviceOf = (group: DdGroupedStats, client: DdClientStatsPayload, env: string, services: ServiceIdentities): string => client.service || services.baseOf(env, group.service) || group.service;

function resourceOf(client: DdClientStatsPayload, payload: DdStatsPayload, service: string, env: string, senderHost: string): KeyValue[] {
  return strings([
    ['service.name', service],
    ['deployment.environment.name', env],
    ['service.version', client.version],
    ['host.name', client.hostname || payload.agentHostname || senderHost],
    ['container.id', client.containerId],
    ['telemetry.sdk.language', language(client.lang)],
  ]);
}

/** The metrics' names and the two attributes naming what they count: `migrate` builds APM tiles on them. */
export const STATS_METRICS = { hits: 'dd.trace.hits', errors: 'dd.trace.errors', topLevelHits: 'dd.trace.top_level_hits', duration: 'dd.trace.duration' } as const;
export const OPERATION_ATTRIBUTE = 'datadog.span.name';
export const RESOURCE_ATTRIBUTE = 'dd.span.Resource';

/** `value` under every name spans give the Datadog key `key` (semantic-convention opt-in included). */
const named = (names: AttributeNames, key: string, value: AnyValue): KeyValue[] => names.of(key).names.map((name) => ({ key: name, value }));

function pointAttributes(g: DdGroupedStats, service: string, names: AttributeNames): KeyValue[] {
  return [
    ...strings([
      [OPERATION_ATTRIBUTE, g.name],
      [RESOURCE_ATTRIBUTE, g.resource],
      ['datadog.span.type', g.type],
      ['span.kind', g.spanKind],
      ['http.route', g.httpEndpoint],
      ['rpc.grpc.status_code', g.grpcStatusCode],
    ]),
    ...(service !== g.service && g.service !== '' ? [{ key: DATADOG_SERVICE, value: { string: g.service } }] : []),
    ...(g.httpMethod ? named(names, 'http.method', { string: g.httpMethod }) : []),
    ...(g.dbType ? named(names, 'db.type', { string: g.dbType }) : []),
    ...(Number.isSafeInteger(g.httpStatusCode) && g.httpStatusCode !== 0 ? named(names, 'http.status_code', { int: BigInt(g.httpStatusCode) }) : []),
    ...(g.synthetics ? [{ key: 'datadog.synthetics', value: { bool: true } }] : []),
  ];
}

/** ok and error sketches merged into explicit buckets: bounds are the bins' upper bounds, in seconds. */
function durationPoint(g: DdGroupedStats, base: Omit<HistogramDataPoint, 'count' | 'bucketCounts' | 'explicitBounds'>): HistogramDataPoint | undefined {
  const sketches: DdSketch[] = [g.okSummary, g.errorSummary];
  const byUpper = new Map<number, number>();
  for (const bin of sketches.flatMap((s) => s.bins)) byUpper.set(bin.upper, (byUpper.get(bin.upper) ?? 0) + bin.count);
  const bins = [...byUpper].sort(([a], [b]) => a - b);
  const zero = sketches.reduce((n, s) => n + s.zeroCount, 0);
  const bucketCounts = bins.map(([, c]) => BigInt(Math.round(c)));
  if (bucketCounts.length === 0) bucketCounts.push(0n);
  bucketCounts[0] = (bucketCounts[0] as bigint) + BigInt(Math.round(zero));
  const count = bucketCounts.reduce((a, b) => a + b, 0n);
  if (count === 0n) return undefined;
  return {
    ...base,
    count,
    // the total is exact, but only describes these buckets when they count every hit
    ...(count === g.hits ? { sum: Number(g.duration) / NS_PER_S } : {}),
    bucketCounts,
    explicitBounds: bins.slice(0, -1).map(([upper]) => upper / NS_PER_S),
  };
}

const sum = (name: string, description: string, point: NumberDataPoint): Metric => ({
  name,
  description,
  unit: '{span}',
  sum: { dataPoints: [point], aggregationTemporality: AggregationTemporality.Delta, isMonotonic: true },
});

const durationMetric = (point: HistogramDataPoint): Metric => ({
  name: STATS_METRICS.duration,
  description: 'Span duration',
  unit: 's',
  histogram: { dataPoints: [point], aggregationTemporality: AggregationTemporality.Delta },
});

/**
 * One metric per measure and stats group; the metrics translator's grouping merges them per
 * resource. `senderHost`: the host a tracer that names none runs on (HostMetadataTable.hostAt).
 */
export function translateStats(payload: DdStatsPayload, caches: Pick<TranslatorCaches, 'serviceIdentities' | 'spanAttributeNames' | 'enrichment'>, senderHost = ''): ResourceMetrics[] {
  const items: MetricItem[] = [];
  for (const client of payload.stats) {
    for (const bucket of client.buckets) {
      const startTimeUnixNano = bucket.start;
      const timeUnixNano = capped(bucket.start + bucket.duration);
      for (const g of bucket.stats) {
        const env = client.env || payload.agentEnv;
        const service = serviceOf(g, client, env, caches.serviceIdentities);
        const resource = resourceOf(client, payload, service, env, senderHost);
        const key = resourceKey(resource);
        const attributes = pointAttributes(g, service, caches.spanAttributeNames);
        const point = (value: bigint): NumberDataPoint => ({ attributes, startTimeUnixNano, timeUnixNano, value: { int: value } });
        const metrics = [
          sum(STATS_METRICS.hits, 'Spans counted by the tracer', point(g.hits)),
          sum(STATS_METRICS.errors, 'Spans with an error', point(g.errors)),
          sum(STATS_METRICS.topLevelHits, 'Top-level spans (service entry points)', point(g.topLevelHits)),
        ];
        const duration = durationPoint(g, { attributes, startTimeUnixNano, timeUnixNano });
        if (duration) metrics.push(durationMetric(duration));
        for (const metric of metrics) items.push({ resource, resourceKey: key, metric });
      }
    }
  }
  return groupByResource(items, caches.enrichment);
}
