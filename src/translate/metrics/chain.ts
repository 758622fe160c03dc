/**
 * The metric translator chain. THE ORDER LIVES HERE. Each input item (series, sketch,
 * distribution series, service check) goes through the same steps inside its translator:
 * resource promotion (resource.ts) → data points with ns timestamps and start times
 * (start-times.ts) → values (rate × interval, sketch bins → buckets); then each item goes
 * straight to its resource and metric in the sink (group.ts), so no translated item outlives
 * its own translation. Items are translated in payload order, series first, so the output
 * follows the input.
 */
import type { DropCounts, MetricsPayload } from '../../datadog/metrics';
import type { MetricSink, ResourceMetrics } from '../../otlp/model';
import { ModelMetricSink } from '../model-sink';
import type { MetricContext } from './context';
import { distributionMetric } from './distribution';
import { MetricGrouper } from './group';
import { seriesMetric } from './series';
import { serviceCheckMetric } from './service-check';
import { sketchMetric } from './sketch';
import type { StreamStartTimes } from './start-times';

/** Hands every translated metric to `sink`; returns what the payload held that `sink` did not get, by reason. */
export function translateMetrics<G, M>(payload: MetricsPayload, streams: StreamStartTimes, receivedAtNs: bigint, sink: MetricSink<G, M>): DropCounts {
  const ctx: MetricContext = { streams, receivedAtNs, dropped: { ...payload.dropped }, origins: new Map() };
  const grouper = new MetricGrouper(sink);
  for (const s of payload.series) grouper.add(seriesMetric(s, ctx));
  for (const s of payload.sketches) grouper.add(sketchMetric(s, ctx));
  for (const d of payload.distributions) grouper.add(distributionMetric(d, ctx));
  for (const c of payload.serviceChecks) grouper.add(serviceCheckMetric(c, ctx));
  return ctx.dropped;
}

export interface TranslatedMetrics {
  resources: ResourceMetrics[];
  /** what the payload held that is not in `resources`, by reason */
  dropped: DropCounts;
}

/** The translated model itself, for golden files and tests (the routes stream into the encoder). */
export function translateMetricsToModel(payload: MetricsPayload, streams: StreamStartTimes, receivedAtNs: bigint): TranslatedMetrics {
  const sink = new ModelMetricSink();
  const dropped = translateMetrics(payload, streams, receivedAtNs, sink);
  return { resources: sink.resources, dropped };
}
