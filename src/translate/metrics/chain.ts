/**
 * The metric translator chain. THE ORDER LIVES HERE. Each input item (series, sketch,
 * distribution series, service check) goes through the same steps inside its translator:
 * resource promotion (resource.ts) → data points with ns timestamps and start times
 * (start-times.ts) → values (rate × interval, sketch bins → buckets); then every item is grouped
 * by resource and metric (group.ts). Items are translated in payload order, series first, so the
 * output follows the input.
 */
import type { DropCounts, MetricsPayload } from '../../datadog/metrics';
import type { ResourceMetrics } from '../../otlp/model';
import type { MetricContext, MetricItem } from './context';
import { distributionMetric } from './distribution';
import { groupByResource } from './group';
import { seriesMetric } from './series';
import { serviceCheckMetric } from './service-check';
import { sketchMetric } from './sketch';
import type { StreamStartTimes } from './start-times';

export interface TranslatedMetrics {
  resources: ResourceMetrics[];
  /** what the payload held that is not in `resources`, by reason */
  dropped: DropCounts;
}

export function translateMetrics(payload: MetricsPayload, streams: StreamStartTimes, receivedAtNs: bigint): TranslatedMetrics {
  const ctx: MetricContext = { streams, receivedAtNs, dropped: { ...payload.dropped }, origins: new Map() };
  // one array filled in order, not four mapped and spread into a fifth
  const items: MetricItem[] = [];
  for (const s of payload.series) items.push(seriesMetric(s, ctx));
  for (const s of payload.sketches) items.push(sketchMetric(s, ctx));
  for (const d of payload.distributions) items.push(distributionMetric(d, ctx));
  for (const c of payload.serviceChecks) items.push(serviceCheckMetric(c, ctx));
  return { resources: groupByResource(items), dropped: ctx.dropped };
}
