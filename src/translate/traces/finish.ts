/**
 * Last: the draft becomes an OTLP span. Meta left over becomes string attributes and metrics
 * numeric ones, renamed through the known-key table (`http.method` → `http.request.method`); a
 * metric wins over a meta key of the same name, as upstream. `_dd.*` tags not consumed by a step
 * (`_dd.p.dm`, `_dd.origin`, `_dd.top_level`, `_dd.agent_psr`, …) are kept under their own
 * names: they are what a Datadog user looks at to debug sampling, and they cost little.
 */
import type { Span } from '../../otlp/model';
import { attributeName } from '../known-keys';
import { toKeyValues } from '../resource-promotion';
import type { SpanDraft } from './draft';

export function toSpan(draft: SpanDraft): Span {
  // the draft's own map: the chain is done with it, so it is completed rather than copied
  const { attributes } = draft;
  draft.meta.forEach((value, key) => attributes.set(attributeName(key), { string: value }));
  draft.metrics.forEach((value, key) => attributes.set(attributeName(key), { double: value }));
  const span: Span = {
    traceId: draft.traceId,
    spanId: draft.spanId,
    name: draft.name,
    kind: draft.kind,
    startTimeUnixNano: draft.startTimeUnixNano,
    endTimeUnixNano: draft.endTimeUnixNano,
    attributes: toKeyValues(attributes),
    events: draft.events,
    links: draft.links,
  };
  if (draft.parentSpanId) span.parentSpanId = draft.parentSpanId;
  if (draft.status) span.status = draft.status;
  return span;
}
