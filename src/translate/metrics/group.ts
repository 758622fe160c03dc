/**
 * Items sharing a resource share one ResourceMetrics (first-seen order, one scope); within it,
 * items naming the same metric with the same kind and unit share one Metric, so a payload of
 * many series of one metric becomes one metric with many points, as OTLP expects.
 */
import type { Metric, ResourceMetrics } from '../../otlp/model';
import { SCOPE } from '../scope';
import type { MetricItem } from './context';

interface ResourceGroup {
  resource: ResourceMetrics;
  /** by name: the metrics of that name (one per kind and unit, nearly always just one) */
  metrics: Map<string, Metric[]>;
}

const kindOf = (m: Metric): string => ('gauge' in m ? 'gauge' : 'sum' in m ? 'sum' : 'histogram' in m ? 'histogram' : 'exponentialHistogram');

function dataPoints(m: Metric): unknown[] {
  if ('gauge' in m) return m.gauge.dataPoints;
  if ('sum' in m) return m.sum.dataPoints;
  if ('histogram' in m) return m.histogram.dataPoints;
  return m.exponentialHistogram.dataPoints;
}

const sameKindAndUnit = (a: Metric, b: Metric): boolean => kindOf(a) === kindOf(b) && (a.unit ?? '') === (b.unit ?? '');

export function groupByResource(items: readonly MetricItem[]): ResourceMetrics[] {
  const groups = new Map<string, ResourceGroup>();
  const out: ResourceMetrics[] = [];
  for (const { resource, resourceKey, metric } of items) {
    const points = dataPoints(metric);
    if (points.length === 0) continue;
    let group = groups.get(resourceKey);
    if (!group) {
      group = { resource: { resource: { attributes: resource }, scopeMetrics: [{ scope: SCOPE, metrics: [] }] }, metrics: new Map() };
      groups.set(resourceKey, group);
      out.push(group.resource);
    }
    // looked up by name, then kind and unit compared: no identity string built for every item
    const named = group.metrics.get(metric.name);
    const existing = named?.find((m) => sameKindAndUnit(m, metric));
    if (existing) {
      // same kind, so the same point type
      const into = dataPoints(existing);
      for (const point of points) into.push(point);
    } else {
      if (named) named.push(metric);
      else group.metrics.set(metric.name, [metric]);
      group.resource.scopeMetrics[0]!.metrics.push(metric);
    }
  }
  return out;
}
