/**
 * Agent sketches (DDSketch, one per flush interval) → exponential histograms: count, sum, min and
 * max as sent, bins mapped by sketch-buckets.ts. A point with a bin outside the mapping, or a
 * negative count or bin count (histogram counts are unsigned), is dropped (counted), not the whole
 * sketch.
 */
import { countDrop, type Sketch } from '../../datadog/metrics';
import type { MetricContext, MetricItem } from './context';
import { SCALE } from './exponential';
import { exponentialHistogramMetric, type DistributionSummary } from './exponential-metric';
import { sketchBuckets } from './sketch-buckets';

export function sketchMetric(sketch: Sketch, ctx: MetricContext): MetricItem {
  const points = sketch.points.flatMap((p): DistributionSummary[] => {
    if (p.count < 0 || p.counts.some((n) => n < 0)) {
      countDrop(ctx.dropped, 'negative_count');
      return [];
    }
    const buckets = sketchBuckets(p.keys, p.counts);
    if (!buckets) {
      countDrop(ctx.dropped, 'sketch_key_out_of_range');
      return [];
    }
    return [{ timestamp: p.timestamp, count: p.count, sum: p.sum, min: p.min, max: p.max, scale: SCALE, ...buckets }];
  });
  return exponentialHistogramMetric(sketch.metric, sketch.tags, sketch.resources, points, ctx);
}
