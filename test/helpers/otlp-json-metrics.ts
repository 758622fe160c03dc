/**
 * The metrics half of the OTLP model as OTLP/JSON, the way the collector's file exporter writes it
 * (protojson: int64 as strings, fields holding their default left out), so a metrics golden file
 * reads exactly like a metrics line of `otlp.jsonl`.
 */
import type { ExponentialBuckets, ExponentialHistogramDataPoint, Metric, NumberDataPoint, ResourceMetrics } from '../../src/core/otlp/model';
import { keyValueJson } from './otlp-json';

type Json = Record<string, unknown>;

const nonZeroNs = (key: string, ns: bigint): Json => (ns === 0n ? {} : { [key]: ns.toString() });

function numberPointJson(p: NumberDataPoint): Json {
  return {
    attributes: p.attributes.map(keyValueJson),
    ...nonZeroNs('startTimeUnixNano', p.startTimeUnixNano),
    timeUnixNano: p.timeUnixNano.toString(),
    ...('double' in p.value ? { asDouble: p.value.double } : { asInt: p.value.int.toString() }),
  };
}

const bucketsJson = (b: ExponentialBuckets): Json => ({ ...(b.offset === 0 ? {} : { offset: b.offset }), ...(b.bucketCounts.length === 0 ? {} : { bucketCounts: b.bucketCounts.map(String) }) });

function exponentialPointJson(p: ExponentialHistogramDataPoint): Json {
  return {
    attributes: p.attributes.map(keyValueJson),
    ...nonZeroNs('startTimeUnixNano', p.startTimeUnixNano),
    timeUnixNano: p.timeUnixNano.toString(),
    count: p.count.toString(),
    ...(p.sum === undefined ? {} : { sum: p.sum }),
    scale: p.scale,
    zeroCount: p.zeroCount.toString(),
    positive: bucketsJson(p.positive),
    negative: bucketsJson(p.negative),
    ...(p.min === undefined ? {} : { min: p.min }),
    ...(p.max === undefined ? {} : { max: p.max }),
    ...(p.zeroThreshold === undefined ? {} : { zeroThreshold: p.zeroThreshold }),
  };
}

export function metricJson(m: Metric): Json {
  const head = { name: m.name, ...(m.unit ? { unit: m.unit } : {}) };
  if ('gauge' in m) return { ...head, gauge: { dataPoints: m.gauge.dataPoints.map(numberPointJson) } };
  if ('sum' in m) return { ...head, sum: { dataPoints: m.sum.dataPoints.map(numberPointJson), aggregationTemporality: m.sum.aggregationTemporality, ...(m.sum.isMonotonic ? { isMonotonic: true } : {}) } };
  if ('exponentialHistogram' in m) return { ...head, exponentialHistogram: { dataPoints: m.exponentialHistogram.dataPoints.map(exponentialPointJson), aggregationTemporality: m.exponentialHistogram.aggregationTemporality } };
  throw new Error(`metric ${m.name}: explicit histograms are not emitted by the metrics translator`);
}

export function resourceMetricsJson(resources: ResourceMetrics[]): Json {
  return {
    resourceMetrics: resources.map((rm) => ({
      resource: { attributes: rm.resource.attributes.map(keyValueJson) },
      scopeMetrics: rm.scopeMetrics.map((sm) => ({ scope: { name: sm.scope.name, version: sm.scope.version }, metrics: sm.metrics.map(metricJson) })),
    })),
  };
}
