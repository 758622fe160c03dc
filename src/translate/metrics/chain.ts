/**
 * The metric translator chain. THE ORDER LIVES HERE. Each input item (series, sketch,
 * distribution series, service check) goes through the same steps inside its translator:
 * resource promotion (resource.ts) → data points with ns timestamps and start times
 * (start-times.ts) → values (rate × interval, sketch bins → buckets); then each item goes
 * straight to its resource and metric in the sink (group.ts), so no translated item outlives
 * its own translation. Items are translated in payload order, series first, so the output
 * follows the input.
 */
import { addDrops, type DropCounts, type MetricsPayload } from '../../datadog/metrics';
import type { MetricSink, ResourceMetrics } from '../../otlp/model';
import { ModelMetricSink } from '../model-sink';
import type { MetricContext } from './context';
import { distributionMetric } from './distribution';
import { MetricGrouper } from './group';
import { seriesMetric } from './series';
import { serviceCheckMetric } from './service-check';
import { sketchMetric } from './sketch';
import type { StreamStartTimes } from './start-times';

/**
 * One request's translation, fed one payload or several pieces of one (a large body is parsed
 * and translated a piece at a time, metrics-route.ts): origins are memoized and drops counted
 * across pieces, and every translated metric goes to `sink`.
 */
export class MetricTranslation<G, M> {
  private readonly ctx: MetricContext;
  private readonly grouper: MetricGrouper<G, M>;

  constructor(streams: StreamStartTimes, receivedAtNs: bigint, sink: MetricSink<G, M>) {
    this.ctx = { streams, receivedAtNs, dropped: {}, origins: new Map() };
    this.grouper = new MetricGrouper(sink);
  }

  add(payload: MetricsPayload): void {
    const { ctx, grouper } = this;
    addDrops(ctx.dropped, payload.dropped);
    for (const s of payload.series) grouper.add(seriesMetric(s, ctx));
    for (const s of payload.sketches) grouper.add(sketchMetric(s, ctx));
    for (const d of payload.distributions) grouper.add(distributionMetric(d, ctx));
    for (const c of payload.serviceChecks) grouper.add(serviceCheckMetric(c, ctx));
  }

  /** What the payloads held that the sink did not get, by reason. */
  get dropped(): DropCounts {
    return this.ctx.dropped;
  }
}

/** Hands every translated metric of `payload` to `sink`; returns what it did not get, by reason. */
export function translateMetrics<G, M>(payload: MetricsPayload, streams: StreamStartTimes, receivedAtNs: bigint, sink: MetricSink<G, M>): DropCounts {
  const translation = new MetricTranslation(streams, receivedAtNs, sink);
  translation.add(payload);
  return translation.dropped;
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
