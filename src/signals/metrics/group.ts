/**
 * Items sharing a resource share one group of the sink (first-seen order, one scope); within it,
 * items naming the same metric with the same kind and unit share one metric, so a payload of
 * many series of one metric becomes one metric with many points, as OTLP expects.
 */
import { dataPointsOf, type Metric, type MetricSink, type ResourceMetrics } from '../../core/otlp/model';
import { ModelMetricSink } from '../shared/model-sink';
import { ResourceGrouper, type ResourceEnricher } from '../shared/group';
import type { MetricItem } from './context';

type MetricKind = 'gauge' | 'sum' | 'histogram' | 'exponentialHistogram';

const kindOf = (m: Metric): MetricKind => ('gauge' in m ? 'gauge' : 'sum' in m ? 'sum' : 'histogram' in m ? 'histogram' : 'exponentialHistogram');

interface OpenMetric<M> {
  handle: M;
  kind: MetricKind;
  unit: string;
}

interface ResourceGroup<G, M> {
  handle: G;
  /** by name: the metrics of that name (one per kind and unit, nearly always just one) */
  metrics: Map<string, OpenMetric<M>[]>;
}

/** Resources grouped by the one grouper (group.ts); metrics of one name merged within each. */
export class MetricGrouper<G, M> {
  private readonly groups: ResourceGrouper<ResourceGroup<G, M>>;

  constructor(
    private readonly sink: MetricSink<G, M>,
    enricher: ResourceEnricher,
  ) {
    this.groups = new ResourceGrouper((resource, scope) => ({ handle: sink.group(resource, scope), metrics: new Map() }), enricher);
  }

  add({ resource, resourceKey, metric }: MetricItem): void {
    if (dataPointsOf(metric).length === 0) return;
    const group = this.groups.ofKey(resource, resourceKey);
    // looked up by name, then kind and unit compared: no identity string built for every item
    const kind = kindOf(metric);
    const unit = metric.unit ?? '';
    const named = group.metrics.get(metric.name);
    const existing = named?.find((m) => m.kind === kind && m.unit === unit);
    if (existing) {
      this.sink.addPoints(existing.handle, metric);
      return;
    }
    const opened: OpenMetric<M> = { handle: this.sink.metric(group.handle, metric), kind, unit };
    if (named) named.push(opened);
    else group.metrics.set(metric.name, [opened]);
  }
}

/** The grouped model of `items`, for routes whose output is small (trace stats) and for tests. */
export function groupByResource(items: readonly MetricItem[], enricher: ResourceEnricher): ResourceMetrics[] {
  const sink = new ModelMetricSink();
  const grouper = new MetricGrouper(sink, enricher);
  for (const item of items) grouper.add(item);
  return sink.resources;
}
