/**
 * The metric translator chain. THE ORDER LIVES HERE. Each input item (series, sketch,
 * distribution series, service check) becomes one draft (draft.ts) that goes through the steps in
 * order: where it comes from (origin.ts: the resource and the points' attributes), then its points
 * (points.ts: ns timestamps, delta windows, values). Each item then goes straight to its resource
 * and metric in the sink (group.ts), so no translated item outlives its own translation. The
 * payload's items are taken series first, then sketches, distributions and service checks, so the
 * output follows the input. Last, `kubernetes` reads the series HyperDX's Kubernetes views are made
 * from (kubernetes/mapping.ts); what it makes of several series is emitted at the translation's
 * end, once the request's last piece was taken.
 */
import { addDrops, type DropCounts, type MetricsPayload } from './datadog';
import type { MetricSink, ResourceMetrics } from '../../core/otlp/model';
import type { TranslatorCaches } from '../caches';
import type { Translation, TranslationContext } from '../shared/chain';
import { ModelMetricSink } from '../shared/model-sink';
import { runSteps, type NamedStep } from '../shared/step';
import type { MetricContext } from './context';
import { metricDraft, type MetricDraft, type MetricInputs, type MetricKind } from './draft';
import { MetricGrouper } from './group';
import { origin } from './origin';
import { points } from './points';
import { newOriginMemo } from './resource';
import { kubernetesMapping } from './kubernetes/mapping';
import { kubernetes } from './kubernetes/step';

export const METRIC_STEPS: readonly NamedStep<MetricDraft, MetricContext>[] = [
  { name: 'origin', step: origin },
  { name: 'points', step: points },
  { name: 'kubernetes', step: kubernetes },
];

export const runMetricSteps = (draft: MetricDraft, ctx: MetricContext): MetricDraft => runSteps(METRIC_STEPS, draft, ctx);

/** The process caches the metrics chain reads. */
export type MetricCaches = Pick<TranslatorCaches, 'metricStreams' | 'internedOrigins' | 'enrichment' | 'hosts' | 'kubernetesMetrics' | 'kubernetesNodes'>;

/** A payload's items of each kind, in the order they are translated. */
const ITEMS: readonly { [K in MetricKind]: [K, (payload: MetricsPayload) => readonly MetricInputs[K][]] }[MetricKind][] = [
  ['series', (p) => p.series],
  ['sketch', (p) => p.sketches],
  ['distribution', (p) => p.distributions],
  ['service_check', (p) => p.serviceChecks],
];

/**
 * A request's metrics translation, fed one payload or the pieces of one (a large body is parsed
 * and translated a piece at a time, route-common.ts): origins are memoized and drops tallied
 * across pieces, and every translated metric goes to `sink`, merged by resource and name.
 */
export function translateMetrics<G, M>(ctx: TranslationContext<MetricCaches>, sink: MetricSink<G, M>): Translation<MetricsPayload> {
  const { caches, receivedAtNs, tally } = ctx;
  const grouper = new MetricGrouper(sink, caches.enrichment);
  const kubernetes = kubernetesMapping(caches.kubernetesMetrics, caches.hosts, caches.kubernetesNodes, (item) => grouper.add(item));
  const stepCtx: MetricContext = { streams: caches.metricStreams, internedOrigins: caches.internedOrigins, receivedAtNs, dropped: tally, origins: newOriginMemo(), kubernetes };
  const translate: Translation<MetricsPayload> = (payload) => {
    addDrops(tally, payload.dropped);
    for (const [kind, items] of ITEMS) {
      for (const item of items(payload)) {
        const { origin, metric } = runMetricSteps(metricDraft(kind, item) as MetricDraft, stepCtx);
        grouper.add({ resource: origin.resource, resourceKey: origin.resourceKey, metric });
      }
    }
  };
  if (kubernetes) translate.end = () => kubernetes.finish();
  return translate;
}

export interface TranslatedMetrics {
  resources: ResourceMetrics[];
  /** what the payload held that is not in `resources`, by reason */
  dropped: DropCounts;
}

/** The translated model itself, for golden files and tests (the routes stream into the encoder). */
export function translateMetricsToModel(payload: MetricsPayload, ctx: TranslationContext<MetricCaches>): TranslatedMetrics {
  const sink = new ModelMetricSink();
  const translate = translateMetrics(ctx, sink);
  translate(payload);
  translate.end?.();
  return { resources: sink.resources, dropped: ctx.tally };
}
