/**
 * The kubernetes step: a series HyperDX's Kubernetes views are made from is read by the request's
 * mapping (mapping.ts), after the origin and points steps; with its Datadog name switched off
 * (--k8s-datadog-metrics=false) it is then left out, its metric emptied (the grouper exports no
 * metric without points).
 */
import type { Step } from '../../shared/step';
import type { MetricContext } from '../context';
import type { MetricDraft } from '../draft';

export const kubernetes: Step<MetricDraft, MetricContext> = (draft, ctx) => {
  if (draft.kind === 'series' && ctx.kubernetes?.read(draft.item, draft.origin)) draft.metric = { name: draft.metric.name, gauge: { dataPoints: [] } };
  return draft;
};
