/**
 * Builds the OTLP ExponentialHistogram (Delta) shared by agent sketches and API distribution
 * points: both are Datadog "distribution" metrics, so whichever way one arrives it lands in the
 * same ClickHouse table with the same scale and zero threshold. Windows come from the stream's
 * history: neither payload states its interval.
 */
import type { MetricResource } from '../../datadog/metrics';
import { AggregationTemporality, type ExponentialHistogramDataPoint } from '../../otlp/model';
import type { MetricContext, MetricItem } from './context';
import { denseBuckets } from './exponential';
import { memoizedOrigin } from './resource';
import { ZERO_THRESHOLD } from './sketch-buckets';
import { streamIdentity } from './start-times';
import { timedPoints } from './time';

/** One point before OTLP encoding: summary plus sparse bucket counts. */
export interface DistributionSummary {
  timestamp: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  scale: number;
  zeroCount: number;
  positive: ReadonlyMap<number, number>;
  negative: ReadonlyMap<number, number>;
}

export function exponentialHistogramMetric(name: string, tags: readonly string[], resources: readonly MetricResource[], points: readonly DistributionSummary[], ctx: MetricContext): MetricItem {
  const origin = memoizedOrigin(ctx.origins, tags, resources);
  const { resource, resourceKey, attributes } = origin;
  const stream = streamIdentity('exponential_histogram', name, origin);
  const dataPoints = timedPoints(points, ctx.dropped).map(([p, timeUnixNano]): ExponentialHistogramDataPoint => {
    return {
      attributes,
      startTimeUnixNano: ctx.streams.startFor(stream, timeUnixNano),
      timeUnixNano,
      count: BigInt(p.count),
      sum: p.sum,
      scale: p.scale,
      zeroCount: BigInt(p.zeroCount),
      positive: denseBuckets(p.positive),
      negative: denseBuckets(p.negative),
      min: p.min,
      max: p.max,
      zeroThreshold: ZERO_THRESHOLD,
    };
  });
  return { resource, resourceKey, metric: { name, exponentialHistogram: { dataPoints, aggregationTemporality: AggregationTemporality.Delta } } };
}
