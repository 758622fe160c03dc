/**
 * Count, rate and gauge series → OTLP Sum and Gauge (translation-rules §3.2–3.3). Datadog counts
 * are per-interval deltas that can go down, so Sum/Delta/non-monotonic (ClickStack stores delta
 * sums as sent; it has no delta-to-cumulative step). A rate is a per-second value over `interval`
 * seconds: × interval turns it back into the count it came from (DogStatsD counters arrive as
 * rates with interval 10); without an interval it is kept as sent. Gauges are instantaneous and
 * carry no start time (0 means "none" in OTLP).
 */
import type { Series } from '../../datadog/metrics';
import { AggregationTemporality, type Metric, type NumberDataPoint } from '../../otlp/model';
import type { MetricContext, MetricItem } from './context';
import { memoizedOrigin } from './resource';
import { streamIdentity, windowStarts } from './start-times';
import { timedPoints } from './time';

export function seriesMetric(series: Series, ctx: MetricContext): MetricItem {
  const origin = memoizedOrigin(ctx.origins, series.tags, series.resources, series.sourceTypeName);
  const { resource, resourceKey, attributes } = origin;
  const name = series.metric;
  let metric: Metric;
  if (series.type === 'gauge') {
    const dataPoints = timedPoints(series.points, ctx.dropped, (p, timeUnixNano): NumberDataPoint => ({ attributes, startTimeUnixNano: 0n, timeUnixNano, value: { double: p.value } }));
    metric = { name, gauge: { dataPoints } };
  } else {
    const startOf = windowStarts(ctx.streams, () => streamIdentity('sum', name, origin), series.interval);
    const factor = series.type === 'rate' && series.interval > 0 ? series.interval : 1;
    const dataPoints = timedPoints(series.points, ctx.dropped, (p, timeUnixNano): NumberDataPoint => ({ attributes, startTimeUnixNano: startOf(timeUnixNano), timeUnixNano, value: { double: p.value * factor } }));
    metric = { name, sum: { dataPoints, aggregationTemporality: AggregationTemporality.Delta, isMonotonic: false } };
  }
  if (series.unit) metric.unit = series.unit;
  return { resource, resourceKey, metric };
}
