/**
 * Builds the OTLP ExponentialHistogram (Delta) shared by agent sketches and API distribution
 * points: both are Datadog "distribution" metrics, so whichever way one arrives it lands in the
 * same ClickHouse table with the same scale and zero threshold. Windows come from the stream's
 * history: neither payload states its interval.
 */
import { AggregationTemporality, type ExponentialBuckets, type ExponentialHistogramDataPoint, type Metric } from '../../core/otlp/model';
import type { MetricContext } from './context';
import { bigCount } from './exponential';
import type { MetricOrigin } from './resource';
import { ZERO_THRESHOLD } from './sketch-buckets';
import { isFiniteOrCounted, timedPoints } from './time';

/** One point before OTLP encoding: summary plus bucket counts. */
export interface DistributionSummary {
  timestamp: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  scale: number;
  zeroCount: number;
  positive: ExponentialBuckets;
  negative: ExponentialBuckets;
}

export function exponentialHistogram(name: string, origin: MetricOrigin, points: readonly DistributionSummary[], ctx: MetricContext): Metric {
  const { attributes } = origin;
  const stream = ctx.streams.identity('exponential_histogram', name, origin);
  const dataPoints = timedPoints(points, ctx.dropped, (p, timeUnixNano): ExponentialHistogramDataPoint | undefined => {
    // checked before startFor, which remembers the point in its stream's history
    if (!isFiniteOrCounted(ctx.dropped, p.sum, p.min, p.max)) return undefined;
    return {
      attributes,
      startTimeUnixNano: ctx.streams.startFor(stream, timeUnixNano),
      timeUnixNano,
      count: bigCount(p.count),
      sum: p.sum,
      scale: p.scale,
      zeroCount: bigCount(p.zeroCount),
      positive: p.positive,
      negative: p.negative,
      min: p.min,
      max: p.max,
      zeroThreshold: ZERO_THRESHOLD,
    };
  });
  return { name, exponentialHistogram: { dataPoints, aggregationTemporality: AggregationTemporality.Delta } };
}
