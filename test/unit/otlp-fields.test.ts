/**
 * The encoder's named field numbers (src/core/otlp/fields/) against the project's .proto files: each
 * constant's keys must be fields of its message, with those numbers. Goldens catch a wrong number
 * that is in use; this also catches a name that says one field and a number that is another's.
 */
import { ANY_VALUE, ARRAY_VALUE, EXPORT_REQUEST, INSTRUMENTATION_SCOPE, KEY_VALUE, KEY_VALUE_LIST, RESOURCE, RESOURCE_ENTRY, SCOPE_ENTRY } from '../../src/core/otlp/fields/common';
import { LOG_RECORD } from '../../src/core/otlp/fields/logs';
import { AGGREGATION, BUCKETS, EXPONENTIAL_HISTOGRAM_DATA_POINT, HISTOGRAM_DATA_POINT, METRIC, NUMBER_DATA_POINT } from '../../src/core/otlp/fields/metrics';
import { SPAN, SPAN_EVENT, SPAN_LINK, STATUS } from '../../src/core/otlp/fields/traces';
import { lookupType } from '../helpers/otlp-proto';

const COMMON = 'opentelemetry.proto.common.v1';
const METRICS = 'opentelemetry.proto.metrics.v1';
const TRACE = 'opentelemetry.proto.trace.v1';

/** The number of each `.proto` field named like a key of `named` (undefined where there is none). */
function protoNumbers(message: string, named: Record<string, number>): Record<string, number | undefined> {
  const type = lookupType(message);
  return Object.fromEntries(Object.keys(named).map((name) => [name, type.fields[name]?.id]));
}

describe('named OTLP field numbers', () => {
  test.each<[string, Record<string, number>]>([
    [`${COMMON}.AnyValue`, ANY_VALUE],
    [`${COMMON}.ArrayValue`, ARRAY_VALUE],
    [`${COMMON}.KeyValueList`, KEY_VALUE_LIST],
    [`${COMMON}.KeyValue`, KEY_VALUE],
    [`${COMMON}.InstrumentationScope`, INSTRUMENTATION_SCOPE],
    ['opentelemetry.proto.resource.v1.Resource', RESOURCE],
    ['opentelemetry.proto.logs.v1.LogRecord', LOG_RECORD],
    [`${TRACE}.Span`, SPAN],
    [`${TRACE}.Span.Event`, SPAN_EVENT],
    [`${TRACE}.Span.Link`, SPAN_LINK],
    [`${TRACE}.Status`, STATUS],
    [`${METRICS}.Metric`, METRIC],
    [`${METRICS}.NumberDataPoint`, NUMBER_DATA_POINT],
    [`${METRICS}.HistogramDataPoint`, HISTOGRAM_DATA_POINT],
    [`${METRICS}.ExponentialHistogramDataPoint`, EXPONENTIAL_HISTOGRAM_DATA_POINT],
    [`${METRICS}.ExponentialHistogramDataPoint.Buckets`, BUCKETS],
    // Gauge has only data_points, Histogram and ExponentialHistogram no is_monotonic
    [`${METRICS}.Sum`, AGGREGATION],
    [`${METRICS}.Gauge`, { dataPoints: AGGREGATION.dataPoints }],
    [`${METRICS}.Histogram`, { dataPoints: AGGREGATION.dataPoints, aggregationTemporality: AGGREGATION.aggregationTemporality }],
    [`${METRICS}.ExponentialHistogram`, { dataPoints: AGGREGATION.dataPoints, aggregationTemporality: AGGREGATION.aggregationTemporality }],
  ])('%s', (message, named) => {
    expect(protoNumbers(message, named)).toEqual(named);
  });

  // The envelopes are shared by the three signals, whose .proto files name their repeated fields per signal.
  test.each([
    ['opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest', 'opentelemetry.proto.logs.v1', 'Logs', 'logRecords'],
    ['opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest', TRACE, 'Spans', 'spans'],
    ['opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest', METRICS, 'Metrics', 'metrics'],
  ])('%s and its Resource and Scope entries', (request, pkg, suffix, contents) => {
    expect(protoNumbers(request, { [`resource${suffix}`]: 0 })).toEqual({ [`resource${suffix}`]: EXPORT_REQUEST.resourceEntries });
    expect(protoNumbers(`${pkg}.Resource${suffix}`, { resource: 0, [`scope${suffix}`]: 0, schemaUrl: 0 })).toEqual({
      resource: RESOURCE_ENTRY.resource,
      [`scope${suffix}`]: RESOURCE_ENTRY.scopeEntries,
      schemaUrl: RESOURCE_ENTRY.schemaUrl,
    });
    expect(protoNumbers(`${pkg}.Scope${suffix}`, { scope: 0, [contents]: 0, schemaUrl: 0 })).toEqual({
      scope: SCOPE_ENTRY.scope,
      [contents]: SCOPE_ENTRY.contents,
      schemaUrl: SCOPE_ENTRY.schemaUrl,
    });
  });
});
