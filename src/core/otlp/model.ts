/**
 * The OTLP output model: what translators produce and the encoder turns into protobuf bytes.
 *
 * It mirrors opentelemetry-proto (see proto/opentelemetry/proto/**) but stays plain data so that
 * translators are pure functions and golden files can show it as JSON. Timestamps are bigint
 * nanoseconds (a double cannot hold ns since the epoch exactly); ids are raw bytes.
 */

export type AnyValue = { string: string } | { bool: boolean } | { int: bigint } | { double: number } | { bytes: Uint8Array } | { array: AnyValue[] } | { kvlist: KeyValue[] };

export interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface Resource {
  attributes: KeyValue[];
}

export interface InstrumentationScope {
  name: string;
  version?: string;
  attributes?: KeyValue[];
}

// ---------------------------------------------------------------- logs

/** opentelemetry.proto.logs.v1.SeverityNumber */
export type SeverityNumber = number;

export interface LogRecord {
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  severityNumber: SeverityNumber;
  severityText: string;
  body?: AnyValue;
  attributes: KeyValue[];
  /** 16 bytes, or absent */
  traceId?: Uint8Array;
  /** 8 bytes, or absent */
  spanId?: Uint8Array;
  flags?: number;
  eventName?: string;
}

export interface ScopeLogs {
  scope: InstrumentationScope;
  logRecords: LogRecord[];
  schemaUrl?: string;
}

export interface ResourceLogs {
  resource: Resource;
  scopeLogs: ScopeLogs[];
  schemaUrl?: string;
}

// ---------------------------------------------------------------- traces

export enum SpanKind {
  Unspecified = 0,
  Internal = 1,
  Server = 2,
  Client = 3,
  Producer = 4,
  Consumer = 5,
}

export enum StatusCode {
  Unset = 0,
  Ok = 1,
  Error = 2,
}

export interface SpanEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: KeyValue[];
}

export interface SpanLink {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState?: string;
  attributes: KeyValue[];
  flags?: number;
}

export interface Span {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState?: string;
  parentSpanId?: Uint8Array;
  flags?: number;
  name: string;
  kind: SpanKind;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: KeyValue[];
  events: SpanEvent[];
  links: SpanLink[];
  status?: { code: StatusCode; message?: string };
}

export interface ScopeSpans {
  scope: InstrumentationScope;
  spans: Span[];
  schemaUrl?: string;
}

export interface ResourceSpans {
  resource: Resource;
  scopeSpans: ScopeSpans[];
  schemaUrl?: string;
}

// ---------------------------------------------------------------- metrics

export enum AggregationTemporality {
  Unspecified = 0,
  Delta = 1,
  Cumulative = 2,
}

export interface NumberDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  value: { double: number } | { int: bigint };
  flags?: number;
}

export interface HistogramDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum?: number;
  bucketCounts: bigint[];
  explicitBounds: number[];
  min?: number;
  max?: number;
  flags?: number;
}

export interface ExponentialBuckets {
  offset: number;
  /**
   * uint64 on the wire, numbers here: every count comes from integer sketch bins or counted
   * values, far below 2^53, and a BigInt per bucket was ~6 % of the sketch path.
   */
  bucketCounts: number[];
}

export interface ExponentialHistogramDataPoint {
  attributes: KeyValue[];
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  count: bigint;
  sum?: number;
  scale: number;
  zeroCount: bigint;
  positive: ExponentialBuckets;
  negative: ExponentialBuckets;
  min?: number;
  max?: number;
  zeroThreshold?: number;
  flags?: number;
}

export type MetricData =
  | { gauge: { dataPoints: NumberDataPoint[] } }
  | {
      sum: {
        dataPoints: NumberDataPoint[];
        aggregationTemporality: AggregationTemporality;
        isMonotonic: boolean;
      };
    }
  | {
      histogram: {
        dataPoints: HistogramDataPoint[];
        aggregationTemporality: AggregationTemporality;
      };
    }
  | {
      exponentialHistogram: {
        dataPoints: ExponentialHistogramDataPoint[];
        aggregationTemporality: AggregationTemporality;
      };
    };

export type Metric = {
  name: string;
  description?: string;
  unit?: string;
} & MetricData;

/** The points of a metric, whatever its kind. */
export function dataPointsOf(metric: Metric): unknown[] {
  if ('gauge' in metric) return metric.gauge.dataPoints;
  if ('sum' in metric) return metric.sum.dataPoints;
  if ('histogram' in metric) return metric.histogram.dataPoints;
  return metric.exponentialHistogram.dataPoints;
}

export interface ScopeMetrics {
  scope: InstrumentationScope;
  metrics: Metric[];
  schemaUrl?: string;
}

export interface ResourceMetrics {
  resource: Resource;
  scopeMetrics: ScopeMetrics[];
  schemaUrl?: string;
}

// ---------------------------------------------------------------- signals

export type Signal = 'logs' | 'traces' | 'metrics';

/** What one intake request turned into, ready to encode and export. */
export type SignalBatch = { signal: 'logs'; resources: ResourceLogs[] } | { signal: 'traces'; resources: ResourceSpans[] } | { signal: 'metrics'; resources: ResourceMetrics[] };

/**
 * Where a translator hands records, one at a time, instead of returning them all: a record's
 * group (its resource and scope) is made when the resource is first met, and records keep their
 * order within it. The encoder's sink writes each record's bytes at once (src/core/otlp/encode.ts), so
 * no record's model outlives its translation; a model sink just collects them.
 */
export interface RecordSink<R, G> {
  group(resource: Resource, scope: InstrumentationScope): G;
  add(group: G, record: R): void;
}

/**
 * Where the metric translator hands each translated metric (translate/metrics/group.ts decides
 * which share a resource and which are one metric). The encoder's sink writes each metric's points
 * at once (src/core/otlp/encode.ts), as RecordSink does for spans and log records; a model sink keeps
 * them as ResourceMetrics.
 */
export interface MetricSink<G, M> {
  group(resource: Resource, scope: InstrumentationScope): G;
  /** Opens a metric in `group` with `metric`'s name, kind, unit and aggregation, and its points. */
  metric(group: G, metric: Metric): M;
  /** Appends the points of `metric`, which has the same name, kind and unit as the one `into` opened. */
  addPoints(into: M, metric: Metric): void;
}
