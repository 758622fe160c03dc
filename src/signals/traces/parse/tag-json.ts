/**
 * Span links and span events that tracers send as JSON inside span tags instead of native fields:
 * `_dd.span_links` (dd-trace-js always; ids as 32/16-char hex strings or decimal numbers) and
 * `events` (when native span events are off, and always on v0.5). A tag that does not parse is
 * left alone — it stays visible as an attribute — rather than failing the request.
 */
import { emptySpanEvent, emptySpanLink, type DdAttributeValue, type DdSpanEvent, type DdSpanLink } from '../datadog';
import type { MsgValue } from '../../../core/wire/msgpack';
import { MalformedInputError } from '../../../core/errors';
import { each, FieldError, int, map, parseFields, setters, str, typedMap, u64, type FieldSetters } from './fields';
import { parseJsonTree } from './json';

const U64 = (1n << 64n) - 1n;

/** A hex string of exactly `hexDigits` digits, or a decimal number (JSON number or digit string). */
function id(v: MsgValue, hexDigits: number): bigint {
  if (typeof v === 'string' && v.length === hexDigits && /^[0-9a-fA-F]+$/.test(v)) return BigInt('0x' + v);
  if (typeof v === 'string' && !/^\d+$/.test(v)) throw new FieldError(`expected ${hexDigits} hex digits or a decimal id, got "${v.slice(0, 40)}"`);
  return u64(v);
}

const LINK_FIELDS: FieldSetters<DdSpanLink> = setters<DdSpanLink>([
  [
    'trace_id',
    (l, v) => {
      const full = typeof v === 'string' && v.length === 32 ? id(v, 32) : id(v, 16);
      l.traceId = full & U64;
      if (full > U64) l.traceIdHigh = full >> 64n;
    },
  ],
  ['trace_id_high', (l, v) => (l.traceIdHigh = id(v, 16))],
  ['span_id', (l, v) => (l.spanId = id(v, 16))],
  ['attributes', (l, v) => (l.attributes = typedMap(v, scalarText))],
  ['tracestate', (l, v) => (l.tracestate = str(v))],
  ['flags', (l, v) => (l.flags = int(v))],
]);

const scalarText = (v: MsgValue): string => (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? String(v) : str(v));

/** JSON attribute values: safe integers are ints, other numbers doubles (as for every JSON attribute). */
function attributeValue(v: MsgValue): DdAttributeValue {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (v === null) return '';
  if (Array.isArray(v)) return v.map(attributeValue);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [str(k), attributeValue(x)]));
  return v;
}

const EVENT_FIELDS: FieldSetters<DdSpanEvent> = setters<DdSpanEvent>([
  ['name', (e, v) => (e.name = str(v))],
  ['time_unix_nano', (e, v) => (e.timeUnixNano = u64(v))],
  ['attributes', (e, v) => (e.attributes = attributeValue(map(v)) as Map<string, DdAttributeValue>)],
]);

function tolerant<T>(text: string, parse: (tree: MsgValue) => T): T | undefined {
  try {
    return parse(parseJsonTree(text, 'tag'));
  } catch (err) {
    if (err instanceof FieldError || err instanceof MalformedInputError) return undefined;
    throw err;
  }
}

export const parseSpanLinksTag = (text: string): DdSpanLink[] | undefined => tolerant(text, (tree) => each(tree, (v) => parseFields(v, emptySpanLink(), LINK_FIELDS)));

export const parseSpanEventsTag = (text: string): DdSpanEvent[] | undefined => tolerant(text, (tree) => each(tree, (v) => parseFields(v, emptySpanEvent(), EVENT_FIELDS)));
