/**
 * Last: the draft becomes an OTLP span. Meta left over becomes string attributes and metrics
 * numeric ones, renamed through the known-key table (`http.method` → `http.request.method`); a
 * metric wins over a meta key of the same name, as upstream. `_dd.*` tags not consumed by a step
 * (`_dd.p.dm`, `_dd.origin`, `_dd.top_level`, `_dd.agent_psr`, …) are kept under their own
 * names: they are what a Datadog user looks at to debug sampling, and they cost little.
 */
import type { Span } from '../../otlp/model';
import { attributeName } from '../known-keys';
import { toKeyValues, type AttributeMap } from '../resource-promotion';
import type { SpanDraft } from './draft';

export function toSpan(draft: SpanDraft): Span {
  const attributes: AttributeMap = new Map(draft.attributes);
  for (const [key, value] of draft.meta) attributes.set(attributeName(key), { string: value });
  for (const [key, value] of draft.metrics) attributes.set(attributeName(key), { double: value });
  return {
    traceId: draft.traceId,
    spanId: draft.spanId,
    ...(draft.parentSpanId ? { parentSpanId: draft.parentSpanId } : {}),
    name: draft.name,
    kind: draft.kind,
    startTimeUnixNano: draft.startTimeUnixNano,
    endTimeUnixNano: draft.endTimeUnixNano,
    attributes: toKeyValues(attributes),
    events: draft.events,
    links: draft.links,
    ...(draft.status ? { status: draft.status } : {}),
  };
}
