/**
 * Last: the draft becomes an OTLP span. Meta left over becomes string attributes and metrics
 * numeric ones, renamed through the known-key table (`http.method` → `http.request.method`); a
 * metric wins over a meta key of the same name, as upstream. `_dd.*` tags not consumed by a step
 * (`_dd.p.dm`, `_dd.origin`, `_dd.top_level`, `_dd.agent_psr`, …) are kept under their own
 * names: they are what a Datadog user looks at to debug sampling, and they cost little.
 */
import type { KeyValue, Span } from '../../core/otlp/model';
import { attributeName } from '../shared/known-keys';
import type { AttributeMap } from '../shared/resource-promotion';
import type { SpanDraft } from './draft';

/**
 * attributeName per meta/metrics key, remembered: every span repeats the same few dozen keys, and
 * the miss path lower-cases the key. Bounded in keys and key length, since senders choose keys.
 * One per process (caches.ts).
 */
const MAX_NAMES = 4096;
const MAX_REMEMBERED_KEY = 64;

export class AttributeNames {
  private readonly names = new Map<string, string>();

  of(key: string): string {
    let name = this.names.get(key);
    if (name !== undefined) return name;
    name = attributeName(key);
    if (key.length <= MAX_REMEMBERED_KEY) {
      if (this.names.size >= MAX_NAMES) this.names.clear();
      this.names.set(key, name);
    }
    return name;
  }
}

/** toKeyValues without the [key, value] pair per entry that iterating a Map allocates. */
function keyValues(map: AttributeMap): KeyValue[] {
  const out: KeyValue[] = [];
  map.forEach((value, key) => {
    out.push({ key, value });
  });
  return out;
}

export function toSpan(draft: SpanDraft, names: AttributeNames): Span {
  // the draft's own map: the chain is done with it, so it is completed rather than copied
  const { attributes } = draft;
  draft.meta.forEach((value, key) => {
    attributes.set(names.of(key), { string: value });
  });
  draft.metrics.forEach((value, key) => {
    attributes.set(names.of(key), { double: value });
  });
  const span: Span = {
    traceId: draft.traceId,
    spanId: draft.spanId,
    name: draft.name,
    kind: draft.kind,
    startTimeUnixNano: draft.startTimeUnixNano,
    endTimeUnixNano: draft.endTimeUnixNano,
    attributes: keyValues(attributes),
    events: draft.events,
    links: draft.links,
  };
  if (draft.parentSpanId) span.parentSpanId = draft.parentSpanId;
  if (draft.status) span.status = draft.status;
  return span;
}
