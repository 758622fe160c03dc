/**
 * The Metric writers (proto/opentelemetry/proto/metrics/v1/metrics.proto). A metric is written in
 * three parts so that its points can be split over bodies (src/core/otlp/layout.ts): the header
 * (name, description, unit), each data point, and the aggregation fields of its kind.
 */
import type { ExponentialBuckets, ExponentialHistogramDataPoint, HistogramDataPoint, Metric, NumberDataPoint } from '../model';
import type { ProtoWriter } from '../../wire/proto-writer';
import { writeAttributes, writeMessage, writeOptionalDouble } from './common';

export const METRIC = { name: 1, description: 2, unit: 3, gauge: 5, sum: 7, histogram: 9, exponentialHistogram: 10 } as const;
/**
 * Gauge, Sum, Histogram and ExponentialHistogram number alike: data_points = 1, then
 * aggregation_temporality = 2 (not in Gauge) and is_monotonic = 3 (Sum only).
 */
export const AGGREGATION = { dataPoints: 1, aggregationTemporality: 2, isMonotonic: 3 } as const;
export const NUMBER_DATA_POINT = { startTimeUnixNano: 2, timeUnixNano: 3, asDouble: 4, asInt: 6, attributes: 7, flags: 8 } as const;
export const HISTOGRAM_DATA_POINT = {
  startTimeUnixNano: 2,
  timeUnixNano: 3,
  count: 4,
  sum: 5,
  bucketCounts: 6,
  explicitBounds: 7,
  attributes: 9,
  flags: 10,
  min: 11,
  max: 12,
} as const;
export const EXPONENTIAL_HISTOGRAM_DATA_POINT = {
  attributes: 1,
  startTimeUnixNano: 2,
  timeUnixNano: 3,
  count: 4,
  sum: 5,
  scale: 6,
  zeroCount: 7,
  positive: 8,
  negative: 9,
  flags: 10,
  min: 12,
  max: 13,
  zeroThreshold: 14,
} as const;
/** ExponentialHistogramDataPoint.Buckets */
export const BUCKETS = { offset: 1, bucketCounts: 2 } as const;

export function writeMetricHeader(w: ProtoWriter, metric: Metric): void {
  if (metric.name) w.stringField(METRIC.name, metric.name);
  if (metric.description) w.stringField(METRIC.description, metric.description);
  if (metric.unit) w.stringField(METRIC.unit, metric.unit);
}

export interface Aggregation {
  temporality: number;
  isMonotonic: boolean;
}

/** The Metric field of the metric's kind, and what that kind's message holds besides its points. */
export function metricKind(metric: Metric): [field: number, aggregation: Aggregation] {
  if ('gauge' in metric) return [METRIC.gauge, { temporality: 0, isMonotonic: false }];
  if ('sum' in metric) return [METRIC.sum, { temporality: metric.sum.aggregationTemporality, isMonotonic: metric.sum.isMonotonic }];
  if ('histogram' in metric) return [METRIC.histogram, { temporality: metric.histogram.aggregationTemporality, isMonotonic: false }];
  return [METRIC.exponentialHistogram, { temporality: metric.exponentialHistogram.aggregationTemporality, isMonotonic: false }];
}

export function writeAggregation(w: ProtoWriter, { temporality, isMonotonic }: Aggregation): void {
  if (temporality) w.int32Field(AGGREGATION.aggregationTemporality, temporality);
  if (isMonotonic) w.boolField(AGGREGATION.isMonotonic, true);
}

/** The three data point messages number their times alike. */
function writePointTimes(w: ProtoWriter, point: { startTimeUnixNano: bigint; timeUnixNano: bigint }): void {
  if (point.startTimeUnixNano) w.fixed64Field(NUMBER_DATA_POINT.startTimeUnixNano, point.startTimeUnixNano);
  if (point.timeUnixNano) w.fixed64Field(NUMBER_DATA_POINT.timeUnixNano, point.timeUnixNano);
}

export function writeNumberDataPoint(w: ProtoWriter, point: NumberDataPoint): void {
  writePointTimes(w, point);
  // The value is a oneof: 0 is a measurement and must be sent.
  if ('double' in point.value) w.doubleField(NUMBER_DATA_POINT.asDouble, point.value.double);
  else w.sfixed64Field(NUMBER_DATA_POINT.asInt, point.value.int);
  writeAttributes(w, NUMBER_DATA_POINT.attributes, point.attributes);
  if (point.flags) w.varintField(NUMBER_DATA_POINT.flags, point.flags);
}

export function writeHistogramDataPoint(w: ProtoWriter, point: HistogramDataPoint): void {
  writePointTimes(w, point);
  if (point.count) w.fixed64Field(HISTOGRAM_DATA_POINT.count, point.count);
  writeOptionalDouble(w, HISTOGRAM_DATA_POINT.sum, point.sum);
  if (point.bucketCounts.length > 0) w.packedFixed64Field(HISTOGRAM_DATA_POINT.bucketCounts, point.bucketCounts);
  if (point.explicitBounds.length > 0) w.packedDoubleField(HISTOGRAM_DATA_POINT.explicitBounds, point.explicitBounds);
  writeAttributes(w, HISTOGRAM_DATA_POINT.attributes, point.attributes);
  if (point.flags) w.varintField(HISTOGRAM_DATA_POINT.flags, point.flags);
  writeOptionalDouble(w, HISTOGRAM_DATA_POINT.min, point.min);
  writeOptionalDouble(w, HISTOGRAM_DATA_POINT.max, point.max);
}

export function writeExponentialHistogramDataPoint(w: ProtoWriter, point: ExponentialHistogramDataPoint): void {
  writeAttributes(w, EXPONENTIAL_HISTOGRAM_DATA_POINT.attributes, point.attributes);
  writePointTimes(w, point);
  if (point.count) w.fixed64Field(EXPONENTIAL_HISTOGRAM_DATA_POINT.count, point.count);
  writeOptionalDouble(w, EXPONENTIAL_HISTOGRAM_DATA_POINT.sum, point.sum);
  if (point.scale) w.sint32Field(EXPONENTIAL_HISTOGRAM_DATA_POINT.scale, point.scale);
  if (point.zeroCount) w.fixed64Field(EXPONENTIAL_HISTOGRAM_DATA_POINT.zeroCount, point.zeroCount);
  writeMessage(w, EXPONENTIAL_HISTOGRAM_DATA_POINT.positive, point.positive, writeBuckets);
  writeMessage(w, EXPONENTIAL_HISTOGRAM_DATA_POINT.negative, point.negative, writeBuckets);
  if (point.flags) w.varintField(EXPONENTIAL_HISTOGRAM_DATA_POINT.flags, point.flags);
  writeOptionalDouble(w, EXPONENTIAL_HISTOGRAM_DATA_POINT.min, point.min);
  writeOptionalDouble(w, EXPONENTIAL_HISTOGRAM_DATA_POINT.max, point.max);
  if (point.zeroThreshold) w.doubleField(EXPONENTIAL_HISTOGRAM_DATA_POINT.zeroThreshold, point.zeroThreshold);
}

function writeBuckets(w: ProtoWriter, buckets: ExponentialBuckets): void {
  if (buckets.offset) w.sint32Field(BUCKETS.offset, buckets.offset);
  if (buckets.bucketCounts.length > 0) w.packedUint64Field(BUCKETS.bucketCounts, buckets.bucketCounts);
}
