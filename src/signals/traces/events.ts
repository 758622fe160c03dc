/**
 * Span events: the native `span_events` field when present, else the `events` JSON tag
 * (docs/translation.md, Span translation) — dd-trace-js's `span.addEvent` and `recordException` end
 * up in one or the other. `_dd.span_events.has_exception` only tells Datadog's backend what the
 * events hold.
 */
import type { DdAttributeValue } from './datadog';
import type { AnyValue, SpanEvent } from '../../core/otlp/model';
import { parseSpanEventsTag } from './parse/tag-json';
import type { SpanStep } from './draft';

const EVENTS_TAG = 'events';
const HAS_EXCEPTION = '_dd.span_events.has_exception';

function attributeAnyValue(v: DdAttributeValue): AnyValue {
  if (typeof v === 'string') return { string: v };
  if (typeof v === 'boolean') return { bool: v };
  if (typeof v === 'bigint') return { int: v };
  if (typeof v === 'number') return { double: v };
  if (v instanceof Uint8Array) return { bytes: v };
  if (Array.isArray(v)) return { array: v.map(attributeAnyValue) };
  return { kvlist: Array.from(v, ([key, value]) => ({ key, value: attributeAnyValue(value) })) };
}

export const events: SpanStep = (draft) => {
  const tag = draft.meta.get(EVENTS_TAG);
  const parsed = draft.span.events.length > 0 ? draft.span.events : tag !== undefined ? parseSpanEventsTag(tag) : undefined;
  draft.meta.consume(HAS_EXCEPTION);
  if (parsed === undefined) return draft;
  draft.meta.consume(EVENTS_TAG);
  draft.events = parsed.map(
    (e): SpanEvent => ({
      timeUnixNano: e.timeUnixNano,
      name: e.name,
      attributes: Array.from(e.attributes, ([key, value]) => ({ key, value: attributeAnyValue(value) })),
    }),
  );
  return draft;
};
