/**
 * Sinks that keep the model: groups in first-seen order, records in arrival order. The routes
 * stream records into the encoder instead; these are for golden files, tests and the small
 * payloads of the events and trace stats routes.
 */
import { dataPointsOf, type InstrumentationScope, type Metric, type MetricSink, type RecordSink, type Resource, type ResourceMetrics } from '../../core/otlp/model';

export interface ModelGroup<R> {
  resource: Resource;
  scope: InstrumentationScope;
  records: R[];
}

export class ModelSink<R> implements RecordSink<R, R[]> {
  readonly groups: ModelGroup<R>[] = [];

  group(resource: Resource, scope: InstrumentationScope): R[] {
    const records: R[] = [];
    this.groups.push({ resource, scope, records });
    return records;
  }

  add(records: R[], record: R): void {
    records.push(record);
  }
}

/** The metric sink that keeps the model: each opened metric is the first one handed over, and takes the later ones' points. */
export class ModelMetricSink implements MetricSink<ResourceMetrics, Metric> {
  readonly resources: ResourceMetrics[] = [];

  group(resource: Resource, scope: InstrumentationScope): ResourceMetrics {
    const group: ResourceMetrics = { resource, scopeMetrics: [{ scope, metrics: [] }] };
    this.resources.push(group);
    return group;
  }

  metric(group: ResourceMetrics, metric: Metric): Metric {
    group.scopeMetrics[0]!.metrics.push(metric);
    return metric;
  }

  addPoints(into: Metric, metric: Metric): void {
    // same kind, so the same point type
    const points = dataPointsOf(into);
    for (const point of dataPointsOf(metric)) points.push(point);
  }
}
