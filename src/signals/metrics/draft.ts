/**
 * A metric item in translation: one input item of the payload (a series, a sketch, a
 * distribution series or a service check) and what the steps of METRIC_STEPS (chain.ts) have made
 * of it so far. One draft per item, written in place by each step (shared/step.ts).
 */
import type { DistributionSeries, Series, ServiceCheck, Sketch } from './datadog';
import type { Metric } from '../../core/otlp/model';
import type { MetricOrigin } from './resource';

/** The kinds of input item, each with its own reading of origin and points. */
export interface MetricInputs {
  series: Series;
  sketch: Sketch;
  distribution: DistributionSeries;
  service_check: ServiceCheck;
}
export type MetricKind = keyof MetricInputs;

export interface MetricDraftOf<K extends MetricKind> {
  readonly kind: K;
  readonly item: MetricInputs[K];
  /** where the item comes from: its resource and its points' attributes (the origin step) */
  origin: MetricOrigin;
  /** the OTLP metric (the points step); a metric without points is not exported */
  metric: Metric;
}

export type MetricDraft = { [K in MetricKind]: MetricDraftOf<K> }[MetricKind];

/** What a draft holds before the origin step: no resource, no attributes. */
const NO_ORIGIN: MetricOrigin = Object.freeze({ resource: [], resourceKey: '', attributes: [] });
/** What a draft holds before the points step: nothing to export. */
const NO_METRIC: Metric = Object.freeze({ name: '', gauge: Object.freeze({ dataPoints: [] }) });

export const metricDraft = <K extends MetricKind>(kind: K, item: MetricInputs[K]): MetricDraftOf<K> => ({ kind, item, origin: NO_ORIGIN, metric: NO_METRIC });
