/**
 * Agent sketches (DDSketch, one per flush interval) → exponential histograms: count, sum, min and
 * max as sent, bins mapped by sketch-buckets.ts. A point with a bin outside the mapping, or a
 * negative count or bin count (histogram counts are unsigned), is dropped (counted), not the whole
 * sketch.
 */
import { countDrop, type DropCounts, type Sketch, type SketchPoint } from './datadog';
import type { Metric } from '../../core/otlp/model';
import type { MetricContext } from './context';
import { SCALE } from './exponential';
import { exponentialHistogram, type DistributionSummary } from './exponential-metric';
import type { MetricOrigin } from './resource';
import { sketchBuckets } from './sketch-buckets';

export function sketchPoints(sketch: Sketch, origin: MetricOrigin, ctx: MetricContext): Metric {
  const points: DistributionSummary[] = [];
  for (const p of sketch.points) {
    const summary = summarize(p, ctx.dropped);
    if (summary) points.push(summary);
  }
  return exponentialHistogram(sketch.metric, origin, points, ctx);
}

function summarize(p: SketchPoint, dropped: DropCounts): DistributionSummary | undefined {
  if (p.count < 0 || p.counts.some(isNegative)) {
    countDrop(dropped, 'negative_count');
    return undefined;
  }
  const buckets = sketchBuckets(p.keys, p.counts);
  if (!buckets) {
    countDrop(dropped, 'sketch_key_out_of_range');
    return undefined;
  }
  return { timestamp: p.timestamp, count: p.count, sum: p.sum, min: p.min, max: p.max, scale: SCALE, zeroCount: buckets.zeroCount, positive: buckets.positive, negative: buckets.negative };
}

const isNegative = (n: number): boolean => n < 0;
