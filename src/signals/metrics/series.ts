/**
 * Count, rate and gauge series → OTLP Sum and Gauge (docs/translation.md, Type mapping). Datadog
 * counts are per-interval deltas that can go down, so Sum/Delta/non-monotonic (ClickStack stores
 * delta sums as sent; it has no delta-to-cumulative step). A rate is a per-second value over
 * `interval` seconds: × interval turns it back into the count it came from (DogStatsD counters
 * arrive as rates with interval 10); without an interval it is kept as sent. An interval that
 * cannot be one (not finite, or negative) leaves the count unknown: the series' points are dropped
 * and counted, as is any value that is not finite once scaled. Gauges are instantaneous and carry
 * no start time (0 means "none" in OTLP).
 */
import { countDrop, type Series } from './datadog';
import { AggregationTemporality, type Metric, type NumberDataPoint } from '../../core/otlp/model';
import type { MetricContext } from './context';
import type { MetricOrigin } from './resource';
import { windowStarts } from './start-times';
import { isFiniteOrCounted, timedPoints } from './time';

export function seriesPoints(series: Series, origin: MetricOrigin, ctx: MetricContext): Metric {
  const { attributes } = origin;
  const name = series.metric;
  let metric: Metric;
  const { dropped } = ctx;
  if (series.type === 'gauge') {
    const dataPoints = timedPoints(series.points, dropped, (p, timeUnixNano): NumberDataPoint | undefined => (isFiniteOrCounted(dropped, p.value) ? { attributes, startTimeUnixNano: 0n, timeUnixNano, value: { double: p.value } } : undefined));
    metric = { name, gauge: { dataPoints } };
  } else {
    const factor = valueFactor(series);
    if (factor === undefined) countDrop(dropped, 'invalid_interval', series.points.length);
    const startOf = windowStarts(ctx.streams, () => ctx.streams.identity('sum', name, origin), series.interval);
    // the value is checked before startOf, which remembers the point in its stream's history
    const dataPoints =
      factor === undefined
        ? []
        : timedPoints(series.points, dropped, (p, timeUnixNano): NumberDataPoint | undefined => {
            const value = p.value * factor;
            return isFiniteOrCounted(dropped, value) ? { attributes, startTimeUnixNano: startOf(timeUnixNano), timeUnixNano, value: { double: value } } : undefined;
          });
    metric = { name, sum: { dataPoints, aggregationTemporality: AggregationTemporality.Delta, isMonotonic: false } };
  }
  if (series.unit) metric.unit = series.unit;
  return metric;
}

/**
 * What a series' values are multiplied by: a rate's interval, 1 for counts and for a rate sent
 * without one (0: v2 protobuf cannot tell an unset interval from 0, and JSON clients leave it
 * out); undefined for a rate whose interval is not finite or negative.
 */
function valueFactor(series: Series): number | undefined {
  if (series.type !== 'rate' || series.interval === 0) return 1;
  return Number.isFinite(series.interval) && series.interval > 0 ? series.interval : undefined;
}
