/**
 * The span as a map with string keys (v0.3, v0.4, v0.7 and the JSON forms),
 * with native span links and span events. `meta_struct` (AppSec payloads, each value its
 * own msgpack document) is skipped like any unknown key: nothing in OTLP can carry it usefully.
 */
import { emptySpan, emptySpanEvent, emptySpanLink, type DdAttributeValue, type DdSpan, type DdSpanEvent, type DdSpanLink } from '../datadog';
import type { MsgValue } from '../../../core/wire/msgpack';
import { bool, each, f64, FieldError, floatMap, i64, int, map, parseFields, setters, str, stringMap, typedMap, u64, type FieldSetters } from './fields';

const LINK_FIELDS: FieldSetters<DdSpanLink> = setters<DdSpanLink>([
  ['trace_id', (l, v) => (l.traceId = u64(v))],
  ['trace_id_high', (l, v) => (l.traceIdHigh = u64(v))],
  ['span_id', (l, v) => (l.spanId = u64(v))],
  ['attributes', (l, v) => (l.attributes = stringMap(v))],
  ['tracestate', (l, v) => (l.tracestate = str(v))],
  ['flags', (l, v) => (l.flags = int(v))],
]);

const parseSpanLink = (v: MsgValue): DdSpanLink => parseFields(v, emptySpanLink(), LINK_FIELDS);

/** AttributeAnyValue / AttributeArrayValue `type` → the key holding the value. */
const VALUE_KEYS = ['string_value', 'bool_value', 'int_value', 'double_value', 'array_value'] as const;

/** A typed attribute `{type, <kind>_value}`; the type decides, an absent value is its zero. */
function parseTypedValue(v: MsgValue): DdAttributeValue {
  const entries = map(v);
  const type = int(entries.get('type') ?? 0);
  const value = entries.get(VALUE_KEYS[type] ?? '') ?? null;
  switch (type) {
    case 0:
      return str(value);
    case 1:
      return bool(value);
    case 2:
      return i64(value);
    case 3:
      return f64(value);
    case 4:
      return each(map(value).get('values') ?? null, parseTypedValue);
    default:
      throw new FieldError(`attribute type ${type} is not one of 0 (string) to 4 (array)`);
  }
}

const EVENT_FIELDS: FieldSetters<DdSpanEvent> = setters<DdSpanEvent>([
  ['name', (e, v) => (e.name = str(v))],
  ['time_unix_nano', (e, v) => (e.timeUnixNano = u64(v))],
  ['attributes', (e, v) => (e.attributes = typedMap(v, parseTypedValue))],
]);

const parseSpanEvent = (v: MsgValue): DdSpanEvent => parseFields(v, emptySpanEvent(), EVENT_FIELDS);

export const SPAN_FIELDS: FieldSetters<DdSpan> = setters<DdSpan>([
  ['service', (s, v) => (s.service = str(v))],
  ['name', (s, v) => (s.name = str(v))],
  ['resource', (s, v) => (s.resource = str(v))],
  ['type', (s, v) => (s.type = str(v))],
  ['trace_id', (s, v) => (s.traceId = u64(v))],
  ['span_id', (s, v) => (s.spanId = u64(v))],
  ['parent_id', (s, v) => (s.parentId = u64(v))],
  ['start', (s, v) => (s.start = i64(v))],
  ['duration', (s, v) => (s.duration = i64(v))],
  ['error', (s, v) => (s.error = int(v))],
  ['meta', (s, v) => (s.meta = stringMap(v))],
  ['metrics', (s, v) => (s.metrics = floatMap(v))],
  ['span_links', (s, v) => (s.links = each(v, parseSpanLink))],
  ['span_events', (s, v) => (s.events = each(v, parseSpanEvent))],
]);

export const parseSpanMap = (v: MsgValue): DdSpan => parseFields(v, emptySpan(), SPAN_FIELDS);
