/**
 * The metric translator chain. THE ORDER LIVES HERE. Each input item (series, sketch,
 * distribution series, service check) goes through the same steps inside its translator:
 * resource promotion (resource.ts) → data points with ns timestamps and start times
 * (start-times.ts) → values (rate × interval, sketch bins → buckets); then each item goes
 * straight to its resource and metric in the sink (group.ts), so no translated item outlives
 * its own translation. METRIC_STEPS lists the kinds of item in the order they are translated,
 * series first, so the output follows the input; before them, `kubernetes` reads the series
 * HyperDX's Kubernetes views are made from (kubernetes/mapping.ts), whose metrics made of several
 * series are emitted when the request's translation finishes.
 */
import { addDrops, type DropCounts, type MetricsPayload } from './datadog';
import type { MetricSink, ResourceMetrics } from '../../core/otlp/model';
import type { TranslatorCaches } from '../caches';
import { ModelMetricSink } from '../shared/model-sink';
import { runSteps, type NamedStep, type Step } from '../shared/step';
import type { MetricContext, MetricItem } from './context';
import { distributionMetric } from './distribution';
import { KubernetesMapping } from './kubernetes/mapping';
import { MetricGrouper } from './group';
import { seriesMetric } from './series';
import { newOriginMemo } from './resource';
import { serviceCheckMetric } from './service-check';
import { sketchMetric } from './sketch';

/** A metric translation's context: the items' (MetricContext) and where translated items go. */
interface MetricChainContext extends MetricContext {
  grouper: { add(item: MetricItem): void };
  /** this request's Kubernetes mapping; undefined when it neither adds nor leaves out anything */
  kubernetes: KubernetesMapping | undefined;
}

/** A metrics step translates one kind of item of the payload (piece) it is given. */
type MetricStep = Step<MetricsPayload, MetricChainContext>;

/** The step that translates each of `items(payload)` with `translate`, handing the result to the grouper. */
const eachItem =
  <T>(items: (payload: MetricsPayload) => readonly T[], translate: (item: T, ctx: MetricContext) => MetricItem): MetricStep =>
  (payload, ctx) => {
    for (const item of items(payload)) ctx.grouper.add(translate(item, ctx));
    return payload;
  };

/** The Kubernetes inputs of the payload, read (and left out when their Datadog names are off) before the series are translated. */
const kubernetes: MetricStep = (payload, ctx) => {
  ctx.kubernetes?.collect(payload, ctx);
  return payload;
};

export const METRIC_STEPS: readonly NamedStep<MetricsPayload, MetricChainContext>[] = [
  { name: 'kubernetes', step: kubernetes },
  { name: 'series', step: eachItem((p) => p.series, seriesMetric) },
  { name: 'sketches', step: eachItem((p) => p.sketches, sketchMetric) },
  { name: 'distributions', step: eachItem((p) => p.distributions, distributionMetric) },
  { name: 'service_checks', step: eachItem((p) => p.serviceChecks, serviceCheckMetric) },
];

/**
 * One request's translation, fed one payload or several pieces of one (a large body is parsed
 * and translated a piece at a time, route-common.ts): origins are memoized and drops counted
 * across pieces, and every translated metric goes to `sink`.
 */
export class MetricTranslation<G, M> {
  private readonly ctx: MetricChainContext;

  constructor(caches: TranslatorCaches, receivedAtNs: bigint, sink: MetricSink<G, M>) {
    const grouper = new MetricGrouper(sink, caches.enrichment);
    const options = caches.kubernetesMetrics;
    const kubernetes = options.otelNames || !options.datadogNames ? new KubernetesMapping(options, caches.hosts, (item) => grouper.add(item)) : undefined;
    this.ctx = { streams: caches.metricStreams, internedOrigins: caches.internedOrigins, receivedAtNs, dropped: {}, origins: newOriginMemo(), grouper, kubernetes };
  }

  add(payload: MetricsPayload): void {
    addDrops(this.ctx.dropped, payload.dropped);
    runSteps(METRIC_STEPS, payload, this.ctx);
  }

  /** Emits what was made of several series of the request (kubernetes/mapping.ts): call once every piece was added. */
  finish(): void {
    this.ctx.kubernetes?.finish();
  }

  /** What the payloads held that the sink did not get, by reason. */
  get dropped(): DropCounts {
    return this.ctx.dropped;
  }
}

/** Hands every translated metric of `payload` to `sink`; returns what it did not get, by reason. */
export function translateMetrics<G, M>(payload: MetricsPayload, caches: TranslatorCaches, receivedAtNs: bigint, sink: MetricSink<G, M>): DropCounts {
  const translation = new MetricTranslation(caches, receivedAtNs, sink);
  translation.add(payload);
  translation.finish();
  return translation.dropped;
}

export interface TranslatedMetrics {
  resources: ResourceMetrics[];
  /** what the payload held that is not in `resources`, by reason */
  dropped: DropCounts;
}

/** The translated model itself, for golden files and tests (the routes stream into the encoder). */
export function translateMetricsToModel(payload: MetricsPayload, caches: TranslatorCaches, receivedAtNs: bigint): TranslatedMetrics {
  const sink = new ModelMetricSink();
  const dropped = translateMetrics(payload, caches, receivedAtNs, sink);
  return { resources: sink.resources, dropped };
}
