/**
 * Bucket arithmetic: the sketch key → scale-5 bucket mapping against the worked
 * example (upstream TestDatadogSketches_EndToEnd), the index function, and the raw-value
 * distribution histogram.
 */
import { AggregationTemporality, type ExponentialBuckets, type ExponentialHistogramDataPoint } from '../../src/core/otlp/model';
import { MAX_BUCKETS } from '../../src/signals/metrics/distribution';
import { bucketIndex, bucketLowerBound, denseBuckets } from '../../src/signals/metrics/exponential';
import { sketchBuckets, ZERO_THRESHOLD } from '../../src/signals/metrics/sketch-buckets';
import { runMetricSteps } from '../../src/signals/metrics/chain';
import { metricDraft } from '../../src/signals/metrics/draft';
import type { DistributionSeries, Sketch } from '../../src/signals/metrics/datadog';
import { newInternedOrigins, newOriginMemo } from '../../src/signals/metrics/resource';
import { StreamStartTimes } from '../../src/signals/metrics/start-times';
import type { MetricContext } from '../../src/signals/metrics/context';

const ctx = (): MetricContext => ({ streams: new StreamStartTimes(), internedOrigins: newInternedOrigins(), receivedAtNs: 0n, dropped: {}, origins: newOriginMemo() });

/** One item through the metric steps (chain.ts): its draft, whose `metric` is what the chain hands on. */
const sketchMetric = (sketch: Sketch, c: MetricContext) => runMetricSteps(metricDraft('sketch', sketch), c);
const distributionMetric = (series: DistributionSeries, c: MetricContext) => runMetricSteps(metricDraft('distribution', series), c);

/** Position → count of the non-zero entries, the way upstream's test states its expectations. */
const nonZero = (counts: number[]): Record<number, number> => Object.fromEntries(counts.flatMap((c, i) => (c === 0 ? [] : [[i, c]])));

describe('sketch bins → exponential buckets: the worked example', () => {
  const K = [-1442, -1427, -1409, -1383, -1338, 0, 1338, 1383, 1409, 1427, 1442, 1454, 1464];
  const N = [152, 124, 68, 231, 97, 55, 101, 239, 66, 43, 167, 209, 154];
  const point = (): ExponentialHistogramDataPoint => {
    const item = sketchMetric({ metric: 'Test1', tags: ['env:tag1', 'version:tag2'], resources: [{ type: 'host', name: 'Host1' }], points: [{ timestamp: 400, count: 13, sum: 11, min: -6, max: 6, keys: K, counts: N }] }, ctx());
    if (!('exponentialHistogram' in item.metric)) throw new Error('not an exponential histogram');
    expect(item.metric.exponentialHistogram.aggregationTemporality).toBe(AggregationTemporality.Delta);
    return item.metric.exponentialHistogram.dataPoints[0]!;
  };

  it('keeps count, sum, min, max and the timestamp, at scale 5', () => {
    const p = point();
    expect([p.timeUnixNano, p.count, p.sum, p.min, p.max, p.scale, p.zeroCount]).toEqual([400_000_000_000n, 13n, 11, -6, 6, 5, 55n]);
    // bit for bit what upstream writes (Go's math.Exp; V8's is one ulp higher)
    expect(p.zeroThreshold).toBe(9.941854089121418e-10);
  });

  it('gives 91 positive buckets with exactly upstream counts', () => {
    const { positive } = point();
    expect(positive.offset).toBe(0);
    expect(positive.bucketCounts).toHaveLength(91);
    expect(nonZero(positive.bucketCounts)).toEqual({ 0: 101, 32: 239, 50: 16, 51: 50, 63: 17, 64: 26, 74: 131, 75: 36, 83: 209, 90: 154 });
  });

  it('gives 76 negative buckets with exactly upstream counts', () => {
    const { negative } = point();
    expect(negative.offset).toBe(0);
    expect(negative.bucketCounts).toHaveLength(76);
    expect(nonZero(negative.bucketCounts)).toEqual({ 0: 97, 32: 231, 50: 17, 51: 51, 63: 51, 64: 73, 74: 119, 75: 33 });
  });

  it('conserves every bin count', () => {
    const b = sketchBuckets(K, N)!;
    const total = (b: ExponentialBuckets) => b.bucketCounts.reduce((a, c) => a + c, 0);
    expect(b.zeroCount + total(b.positive) + total(b.negative)).toBe(N.reduce((a, c) => a + c, 0));
  });

  it('refuses keys at or past ±32767 (the agent’s infinity) and drops only that point', () => {
    expect(sketchBuckets([32767], [1])).toBeUndefined();
    expect(sketchBuckets([-32767], [1])).toBeUndefined();
    const c = ctx();
    const item = sketchMetric(
      {
        metric: 'm',
        tags: [],
        resources: [],
        points: [
          { timestamp: 1, count: 1, sum: 1, min: 1, max: 1, keys: [32767], counts: [1] },
          { timestamp: 2, count: 1, sum: 1, min: 1, max: 1, keys: [1338], counts: [1] },
        ],
      },
      c,
    );
    expect('exponentialHistogram' in item.metric && item.metric.exponentialHistogram.dataPoints.map((p) => p.timeUnixNano)).toEqual([2_000_000_000n]);
    expect(c.dropped).toEqual({ sketch_key_out_of_range: 1 });
  });
});

describe('bucket index (OpenTelemetry data model, scale 5)', () => {
  it('puts exact powers of two at the top of their bucket (upper bound inclusive)', () => {
    expect(bucketIndex(1)).toBe(-1);
    expect(bucketIndex(2)).toBe(31);
    expect(bucketIndex(0.5)).toBe(-33);
    expect(bucketIndex(1024)).toBe(319);
  });

  it('puts other values in the bucket whose bounds hold them', () => {
    for (const v of [1.01, 1.5, 3, 1e-9, 123456.789, 9.99e300]) {
      const i = bucketIndex(v);
      expect(bucketLowerBound(i)).toBeLessThanOrEqual(v * (1 + 1e-12));
      expect(bucketLowerBound(i + 1)).toBeGreaterThan(v);
    }
  });

  it('lays sparse counts out densely from the lowest index', () => {
    expect(
      denseBuckets(
        new Map([
          [-2, 1],
          [1, 3],
        ]),
      ),
    ).toEqual({ offset: -2, bucketCounts: [1, 0, 0, 3] });
    expect(denseBuckets(new Map())).toEqual({ offset: 0, bucketCounts: [] });
  });
});

describe('distribution points → exponential histogram of the raw values', () => {
  const pointOf = (values: number[]): ExponentialHistogramDataPoint => {
    const item = distributionMetric({ metric: 'd', tags: [], resources: [], points: [{ timestamp: 10, values }] }, ctx());
    if (!('exponentialHistogram' in item.metric)) throw new Error('not an exponential histogram');
    return item.metric.exponentialHistogram.dataPoints[0]!;
  };

  it('counts every value exactly, with exact summary', () => {
    const p = pointOf([1, 2, 2, 3, -4, 0, 1e-12]);
    expect([p.count, p.sum, p.min, p.max, p.zeroCount, p.scale]).toEqual([7n, 4 + 1e-12, -4, 3, 2n, 5]);
    expect(p.zeroThreshold).toBe(ZERO_THRESHOLD);
    expect(p.positive.offset).toBe(bucketIndex(1));
    expect(nonZero(p.positive.bucketCounts)).toEqual({ 0: 1, [bucketIndex(2) - bucketIndex(1)]: 2, [bucketIndex(3) - bucketIndex(1)]: 1 });
    expect(p.negative).toEqual({ offset: bucketIndex(4), bucketCounts: [1] });
  });

  it('lowers the scale when values spread over more than MAX_BUCKETS buckets', () => {
    const p = pointOf([1e-8, 1e300]);
    expect(p.scale).toBeLessThan(5);
    expect(p.positive.bucketCounts.length).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(p.positive.bucketCounts.reduce((a, c) => a + c, 0)).toBe(2);
  });

  it('skips points without values', () => {
    const item = distributionMetric({ metric: 'd', tags: [], resources: [], points: [{ timestamp: 10, values: [] }] }, ctx());
    expect('exponentialHistogram' in item.metric && item.metric.exponentialHistogram.dataPoints).toEqual([]);
  });
});
