/**
 * The points step: an item's values as an OTLP metric of the kind its type asks for, with ns
 * timestamps, delta windows (start-times.ts) and values converted (a rate × its interval, sketch
 * bins → exponential buckets, raw values → exponential buckets, a check's status). What cannot
 * be translated is dropped and tallied by reason.
 */
import type { Step } from '../shared/step';
import type { MetricContext } from './context';
import { distributionPoints } from './distribution';
import type { MetricDraft } from './draft';
import { seriesPoints } from './series';
import { serviceCheckPoints } from './service-check';
import { sketchPoints } from './sketch';

export const points: Step<MetricDraft, MetricContext> = (draft, ctx) => {
  switch (draft.kind) {
    case 'series':
      draft.metric = seriesPoints(draft.item, draft.origin, ctx);
      break;
    case 'sketch':
      draft.metric = sketchPoints(draft.item, draft.origin, ctx);
      break;
    case 'distribution':
      draft.metric = distributionPoints(draft.item, draft.origin, ctx);
      break;
    case 'service_check':
      draft.metric = serviceCheckPoints(draft.item, draft.origin, ctx);
  }
  return draft;
};
