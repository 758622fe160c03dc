/**
 * Decodes OTLP bytes with protobufjs from the project's own .proto files, independently of the
 * hand-written encoder, and maps them back onto the model in src/core/otlp/model.ts so tests can
 * compare what was sent (or what a collector received) with what a translator produced.
 *
 * The mapping is canonical: fields holding their proto3 default come back absent when the model
 * marks them optional, and as the default (0, 0n, '', []) when the model requires them.
 */
import path from 'node:path';
import protobuf from 'protobufjs';

import type {
  AnyValue,
  ExponentialBuckets,
  ExponentialHistogramDataPoint,
  HistogramDataPoint,
  InstrumentationScope,
  KeyValue,
  LogRecord,
  Metric,
  NumberDataPoint,
  Resource,
  ResourceLogs,
  ResourceMetrics,
  ResourceSpans,
  Signal,
  SignalBatch,
  Span,
} from '../../src/core/otlp/model';

export const PROTO_DIR = path.resolve(__dirname, '../../proto');

const SERVICE_FILES = ['opentelemetry/proto/collector/logs/v1/logs_service.proto', 'opentelemetry/proto/collector/trace/v1/trace_service.proto', 'opentelemetry/proto/collector/metrics/v1/metrics_service.proto'];

export const REQUEST_TYPE: Record<Signal, string> = {
  logs: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest',
  traces: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  metrics: 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest',
};

export const RESPONSE_TYPE: Record<Signal, string> = {
  logs: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse',
  traces: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
  metrics: 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse',
};

let root: protobuf.Root | undefined;

/** All OTLP service definitions (and, through imports, every data message), resolved. */
export function loadOtlpRoot(): protobuf.Root {
  if (root === undefined) {
    const fresh = new protobuf.Root();
    fresh.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_DIR, target));
    fresh.loadSync(SERVICE_FILES);
    fresh.resolveAll();
    root = fresh;
  }
  return root;
}

export const lookupType = (name: string): protobuf.Type => loadOtlpRoot().lookupType(name);

/** 64-bit integers as bigint, oneof names as virtual properties, repeated fields always arrays. */
export const CONVERSION: protobuf.IConversionOptions = { longs: BigInt, arrays: true, oneofs: true };

/** The request as protobufjs sees it (camelCase plain object), for ad-hoc assertions. */
export function decodeRequestObject(signal: Signal, body: Uint8Array): Record<string, any> {
  const type = lookupType(REQUEST_TYPE[signal]);
  return type.toObject(type.decode(body), CONVERSION);
}

/** Decodes an Export*ServiceRequest body back into the output model. */
export function decodeExportRequest(signal: Signal, body: Uint8Array): SignalBatch {
  const request = decodeRequestObject(signal, body);
  switch (signal) {
    case 'logs':
      return { signal, resources: request.resourceLogs.map(toResourceLogs) };
    case 'traces':
      return { signal, resources: request.resourceSpans.map(toResourceSpans) };
    case 'metrics':
      return { signal, resources: request.resourceMetrics.map(toResourceMetrics) };
  }
}

// ---------------------------------------------------------------- proto object → model
type Obj = Record<string, any>;

const orUndefined = <T>(value: T | null | undefined | '' | 0): T | undefined => (value ? value : undefined);
const optionalNumber = (value: number | null | undefined): number | undefined => value ?? undefined;
const u64 = (value: bigint | null | undefined): bigint => value ?? 0n;
const bytes = (value: Uint8Array | null | undefined): Uint8Array => new Uint8Array(value ?? []);
const optionalBytes = (value: Uint8Array | null | undefined): Uint8Array | undefined => (value && value.length > 0 ? new Uint8Array(value) : undefined);

export function toAnyValue(o: Obj | null | undefined): AnyValue {
  switch (o?.value) {
    case 'stringValue':
      return { string: o.stringValue };
    case 'boolValue':
      return { bool: o.boolValue };
    case 'intValue':
      return { int: o.intValue };
    case 'doubleValue':
      return { double: o.doubleValue };
    case 'bytesValue':
      return { bytes: bytes(o.bytesValue) };
    case 'arrayValue':
      return { array: (o.arrayValue.values ?? []).map(toAnyValue) };
    case 'kvlistValue':
      return { kvlist: toAttributes(o.kvlistValue.values) };
    default:
      throw new Error(`AnyValue without a value: ${JSON.stringify(o)}`);
  }
}

export const toAttributes = (list: Obj[] | undefined): KeyValue[] => (list ?? []).map((kv) => ({ key: kv.key ?? '', value: toAnyValue(kv.value) }));

const toResource = (o: Obj | undefined): Resource => ({ attributes: toAttributes(o?.attributes) });

function toScope(o: Obj | undefined): InstrumentationScope {
  const attributes = toAttributes(o?.attributes);
  return {
    name: o?.name ?? '',
    version: orUndefined(o?.version),
    attributes: attributes.length > 0 ? attributes : undefined,
  };
}

const toResourceLogs = (o: Obj): ResourceLogs => ({
  resource: toResource(o.resource),
  scopeLogs: o.scopeLogs.map((s: Obj) => ({
    scope: toScope(s.scope),
    logRecords: s.logRecords.map(toLogRecord),
    schemaUrl: orUndefined(s.schemaUrl),
  })),
  schemaUrl: orUndefined(o.schemaUrl),
});

const toLogRecord = (o: Obj): LogRecord => ({
  timeUnixNano: u64(o.timeUnixNano),
  observedTimeUnixNano: u64(o.observedTimeUnixNano),
  severityNumber: o.severityNumber ?? 0,
  severityText: o.severityText ?? '',
  body: o.body ? toAnyValue(o.body) : undefined,
  attributes: toAttributes(o.attributes),
  traceId: optionalBytes(o.traceId),
  spanId: optionalBytes(o.spanId),
  flags: orUndefined(o.flags),
  eventName: orUndefined(o.eventName),
});

const toResourceSpans = (o: Obj): ResourceSpans => ({
  resource: toResource(o.resource),
  scopeSpans: o.scopeSpans.map((s: Obj) => ({
    scope: toScope(s.scope),
    spans: s.spans.map(toSpan),
    schemaUrl: orUndefined(s.schemaUrl),
  })),
  schemaUrl: orUndefined(o.schemaUrl),
});

const toSpan = (o: Obj): Span => ({
  traceId: bytes(o.traceId),
  spanId: bytes(o.spanId),
  traceState: orUndefined(o.traceState),
  parentSpanId: optionalBytes(o.parentSpanId),
  flags: orUndefined(o.flags),
  name: o.name ?? '',
  kind: o.kind ?? 0,
  startTimeUnixNano: u64(o.startTimeUnixNano),
  endTimeUnixNano: u64(o.endTimeUnixNano),
  attributes: toAttributes(o.attributes),
  events: o.events.map((e: Obj) => ({
    timeUnixNano: u64(e.timeUnixNano),
    name: e.name ?? '',
    attributes: toAttributes(e.attributes),
  })),
  links: o.links.map((l: Obj) => ({
    traceId: bytes(l.traceId),
    spanId: bytes(l.spanId),
    traceState: orUndefined(l.traceState),
    attributes: toAttributes(l.attributes),
    flags: orUndefined(l.flags),
  })),
  status: o.status ? { code: o.status.code ?? 0, message: orUndefined(o.status.message) } : undefined,
});

const toResourceMetrics = (o: Obj): ResourceMetrics => ({
  resource: toResource(o.resource),
  scopeMetrics: o.scopeMetrics.map((s: Obj) => ({
    scope: toScope(s.scope),
    metrics: s.metrics.map(toMetric),
    schemaUrl: orUndefined(s.schemaUrl),
  })),
  schemaUrl: orUndefined(o.schemaUrl),
});

function toMetric(o: Obj): Metric {
  const header = { name: o.name ?? '', description: orUndefined(o.description), unit: orUndefined(o.unit) };
  switch (o.data) {
    case 'gauge':
      return { ...header, gauge: { dataPoints: o.gauge.dataPoints.map(toNumberPoint) } };
    case 'sum':
      return {
        ...header,
        sum: {
          dataPoints: o.sum.dataPoints.map(toNumberPoint),
          aggregationTemporality: o.sum.aggregationTemporality ?? 0,
          isMonotonic: o.sum.isMonotonic ?? false,
        },
      };
    case 'histogram':
      return {
        ...header,
        histogram: {
          dataPoints: o.histogram.dataPoints.map(toHistogramPoint),
          aggregationTemporality: o.histogram.aggregationTemporality ?? 0,
        },
      };
    case 'exponentialHistogram':
      return {
        ...header,
        exponentialHistogram: {
          dataPoints: o.exponentialHistogram.dataPoints.map(toExponentialPoint),
          aggregationTemporality: o.exponentialHistogram.aggregationTemporality ?? 0,
        },
      };
    default:
      throw new Error(`metric ${header.name} has no data (${String(o.data)})`);
  }
}

function toNumberPoint(o: Obj): NumberDataPoint {
  if (o.value !== 'asDouble' && o.value !== 'asInt') throw new Error(`number point without a value: ${String(o.value)}`);
  return {
    attributes: toAttributes(o.attributes),
    startTimeUnixNano: u64(o.startTimeUnixNano),
    timeUnixNano: u64(o.timeUnixNano),
    value: o.value === 'asDouble' ? { double: o.asDouble } : { int: o.asInt },
    flags: orUndefined(o.flags),
  };
}

const toHistogramPoint = (o: Obj): HistogramDataPoint => ({
  attributes: toAttributes(o.attributes),
  startTimeUnixNano: u64(o.startTimeUnixNano),
  timeUnixNano: u64(o.timeUnixNano),
  count: u64(o.count),
  sum: optionalNumber(o.sum),
  bucketCounts: o.bucketCounts,
  explicitBounds: o.explicitBounds,
  min: optionalNumber(o.min),
  max: optionalNumber(o.max),
  flags: orUndefined(o.flags),
});

const toBuckets = (o: Obj | undefined): ExponentialBuckets => ({
  offset: o?.offset ?? 0,
  // numbers in our model (see ExponentialBuckets); exact below 2^53
  bucketCounts: ((o?.bucketCounts ?? []) as unknown[]).map(Number),
});

const toExponentialPoint = (o: Obj): ExponentialHistogramDataPoint => ({
  attributes: toAttributes(o.attributes),
  startTimeUnixNano: u64(o.startTimeUnixNano),
  timeUnixNano: u64(o.timeUnixNano),
  count: u64(o.count),
  sum: optionalNumber(o.sum),
  scale: o.scale ?? 0,
  zeroCount: u64(o.zeroCount),
  positive: toBuckets(o.positive),
  negative: toBuckets(o.negative),
  min: optionalNumber(o.min),
  max: optionalNumber(o.max),
  zeroThreshold: orUndefined(o.zeroThreshold),
  flags: orUndefined(o.flags),
});
