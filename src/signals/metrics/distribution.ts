/**
 * Distribution points (raw values from API clients) → exponential histograms. Each value is
 * counted in the scale-5 bucket it falls in, exactly (no sketch error), so sum, min, max and count
 * are exact too. Values below the sketch zero threshold count as zero, like a sketch's key 0. An
 * exponential histogram rather than explicit buckets: the same metric sent through the agent
 * arrives as a sketch, and both must land in the same table with the same layout. A very wide
 * spread of values lowers the scale until at most MAX_BUCKETS buckets are needed per sign.
 */
import type { DistributionSeries, DropCounts } from './datadog';
import type { Metric } from '../../core/otlp/model';
import type { MetricContext } from './context';
import { addTo, bucketIndex, denseBuckets, extent, SCALE } from './exponential';
import { exponentialHistogram, type DistributionSummary } from './exponential-metric';
import type { MetricOrigin } from './resource';
import { ZERO_THRESHOLD } from './sketch-buckets';
import { isFiniteOrCounted } from './time';

/** The agent's cap on sketch bins. */
export const MAX_BUCKETS = 4096;

export function distributionPoints(series: DistributionSeries, origin: MetricOrigin, ctx: MetricContext): Metric {
  const points: DistributionSummary[] = [];
  for (const p of series.points) {
    const values = finiteValues(p.values, ctx.dropped);
    if (values.length > 0) points.push(summarize(p.timestamp, values));
  }
  return exponentialHistogram(series.metric, origin, points, ctx);
}

/**
 * The values that are finite numbers, the others counted as dropped (as `null` values are):
 * an infinite one has no bucket, and its index would never shrink below MAX_BUCKETS in the
 * scale-lowering loop of summarize.
 */
function finiteValues(values: readonly number[], dropped: DropCounts): readonly number[] {
  if (values.every(Number.isFinite)) return values;
  return values.filter((v) => isFiniteOrCounted(dropped, v));
}

function summarize(timestamp: number, values: readonly number[]): DistributionSummary {
  let positive = new Map<number, number>();
  let negative = new Map<number, number>();
  let zeroCount = 0;
  for (const value of values) {
    if (Math.abs(value) < ZERO_THRESHOLD) zeroCount++;
    else addTo(value < 0 ? negative : positive, bucketIndex(Math.abs(value)), 1);
  }
  let scale = SCALE;
  while (span(positive) > MAX_BUCKETS || span(negative) > MAX_BUCKETS) {
    [positive, negative, scale] = [halve(positive), halve(negative), scale - 1];
  }
  const [min, max] = extent(values);
  return { timestamp, count: values.length, sum: values.reduce((a, b) => a + b, 0), min, max, scale, zeroCount, positive: denseBuckets(positive), negative: denseBuckets(negative) };
}

function span(counts: ReadonlyMap<number, number>): number {
  if (counts.size === 0) return 0;
  const [first, last] = extent(counts.keys());
  return last - first + 1;
}

/** One scale down merges bucket pairs: index i becomes floor(i / 2). */
function halve(counts: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [index, count] of counts) addTo(out, Math.floor(index / 2), count);
  return out;
}
