/**
 * Items sharing a resource share one ResourceMetrics (first-seen order, one scope); within it,
 * items naming the same metric with the same kind and unit share one Metric, so a payload of
 * many series of one metric becomes one metric with many points, as OTLP expects.
 */
import type { Metric, ResourceMetrics } from '../../otlp/model';
import { SCOPE } from '../scope';
import type { MetricItem } from './context';

const kindOf = (m: Metric): string => ('gauge' in m ? 'gauge' : 'sum' in m ? 'sum' : 'histogram' in m ? 'histogram' : 'exponentialHistogram');

function dataPoints(m: Metric): unknown[] {
  if ('gauge' in m) return m.gauge.dataPoints;
  if ('sum' in m) return m.sum.dataPoints;
  if ('histogram' in m) return m.histogram.dataPoints;
  return m.exponentialHistogram.dataPoints;
}

export function groupByResource(items: readonly MetricItem[]): ResourceMetrics[] {
  const groups = new Map<string, { resource: ResourceMetrics; metrics: Map<string, Metric> }>();
  for (const { resource, resourceKey, metric } of items) {
    if (dataPoints(metric).length === 0) continue;
    let group = groups.get(resourceKey);
    if (!group) {
      group = { resource: { resource: { attributes: resource }, scopeMetrics: [{ scope: SCOPE, metrics: [] }] }, metrics: new Map() };
      groups.set(resourceKey, group);
    }
    const identity = [metric.name, kindOf(metric), metric.unit ?? ''].join('\0');
    const existing = group.metrics.get(identity);
    if (existing) {
      // same kind, so the same point type
      const into = dataPoints(existing);
      for (const point of dataPoints(metric)) into.push(point);
    } else {
      group.metrics.set(identity, metric);
      group.resource.scopeMetrics[0]!.metrics.push(metric);
    }
  }
  return [...groups.values()].map((g) => g.resource);
}
