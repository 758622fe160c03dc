/**
 * The origin step: where an item comes from. Tags and the agent's resources (host, device) are
 * promoted to the resource or kept as point attributes (resource.ts), memoized by tag list within
 * the request and, for the tag lists the direct series reader interned, across requests. A service
 * check's message becomes a point attribute.
 */
import type { Step } from '../shared/step';
import type { MetricContext } from './context';
import type { MetricDraft } from './draft';
import { memoizedOrigin } from './resource';
import { serviceCheckOrigin } from './service-check';

export const origin: Step<MetricDraft, MetricContext> = (draft, ctx) => {
  switch (draft.kind) {
    case 'series':
      draft.origin = memoizedOrigin(ctx.origins, ctx.internedOrigins, draft.item.tags, draft.item.resources, draft.item.sourceTypeName);
      break;
    case 'sketch':
    case 'distribution':
      draft.origin = memoizedOrigin(ctx.origins, ctx.internedOrigins, draft.item.tags, draft.item.resources);
      break;
    case 'service_check':
      draft.origin = serviceCheckOrigin(draft.item);
  }
  return draft;
};
