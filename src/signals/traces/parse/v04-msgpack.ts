/**
 * /v0.4/traces msgpack straight into spans. The generic path decodes the whole body into a tree
 * (a Map per span, per meta, per metrics) and then coerces it field by field; that tree was the
 * traces path's largest source of garbage. This reader walks the same bytes with the same reader
 * checks and applies the same coercions (fields.ts) to the same values, but builds each DdSpan
 * directly.
 *
 * It only ever answers for bodies it can read without a doubt: anything unusual — a decode or
 * field error, a non-string key, a trace or span that is not an array or map, bytes after the
 * value — makes it give up (undefined), and the caller parses the body the generic way, whose
 * answer (and error, with its precedence: decode errors before field errors, duplicate keys at
 * their first position with their last value) stays the only one. What it accepts, the generic
 * path accepts with the same result: every key is a string, so applying each entry in wire order
 * leaves every field with its last value, as the tree's Map would; and every value is coerced,
 * the tree's last values among them.
 */
import { chunkOf, type DdSpan, type DdTraceChunk } from '../datadog';
import type { MsgpackReader } from '../../../core/wire/msgpack';
import { f64, int, str } from './fields';
import { GIVE_UP } from '../../shared/fast-path';
import { arrayHeader, i64At, key, mapHeader, readDirect, u64At } from './msgpack-walk';
import { SPAN_FIELDS } from './span-map';

/** A span's maps until the span says otherwise; replaced by a map of its own at the end. */
const NONE = new Map<never, never>();

/** meta at `depth`: str values as the tree holds them (str() is the identity there), others coerced. */
function stringMap(r: MsgpackReader, depth: number): Map<string, string> {
  const length = mapHeader(r, depth);
  const out = new Map<string, string>();
  const inner = depth + 1;
  for (let i = 0; i < length; i++) {
    const k = key(r);
    const b = r.peek();
    const fixstr = b >= 0xa0 && b <= 0xbf;
    if (fixstr) r.pos++;
    out.set(k, fixstr ? r.str(b & 0x1f) : str(r.value(inner)));
  }
  return out;
}

function floatMap(r: MsgpackReader, depth: number): Map<string, number> {
  const length = mapHeader(r, depth);
  const out = new Map<string, number>();
  const inner = depth + 1;
  for (let i = 0; i < length; i++) {
    const k = key(r);
    out.set(k, f64(r.value(inner)));
  }
  return out;
}

/** The span keys the reader fills in itself (the others go through SPAN_FIELDS). */
const FIELDS = ['service', 'name', 'resource', 'type', 'trace_id', 'span_id', 'parent_id', 'start', 'duration', 'error', 'meta', 'metrics'] as const;
type Field = (typeof FIELDS)[number];

/** FIELDS as their bytes, by length: a fixstr key is matched in place rather than decoded and compared. */
const FIELDS_BY_LENGTH: { bytes: Buffer; field: Field }[][] = [];
for (const field of FIELDS) {
  const sameLength = FIELDS_BY_LENGTH[field.length] ?? [];
  sameLength.push({ bytes: Buffer.from(field), field });
  FIELDS_BY_LENGTH[field.length] = sameLength;
}

/** The field a fixstr key names, its bytes claimed; undefined, nothing claimed, for any other key. */
function knownField(r: MsgpackReader): Field | undefined {
  const b = r.peek();
  if (b < 0xa0 || b > 0xbf) return undefined;
  const length = b & 0x1f;
  const candidates = FIELDS_BY_LENGTH[length];
  const at = r.pos + 1;
  if (candidates === undefined || at + length > r.buffer.length) return undefined;
  const buf = r.buffer;
  next: for (const { bytes, field } of candidates) {
    for (let i = 0; i < length; i++) if (buf[at + i] !== bytes[i]) continue next;
    r.pos = at + length;
    return field;
  }
  return undefined;
}

/** One span map at `depth`; its values sit one level deeper. */
function span(r: MsgpackReader, depth: number): DdSpan {
  const length = mapHeader(r, depth);
  if (length < 0) throw GIVE_UP; // a nil span: rare, and the generic path knows it
  const inner = depth + 1;
  const s: DdSpan = { service: '', name: '', resource: '', type: '', traceId: 0n, spanId: 0n, parentId: 0n, start: 0n, duration: 0n, error: 0, meta: NONE, metrics: NONE, links: [], events: [] };
  for (let i = 0; i < length; i++) {
    const k = knownField(r) ?? key(r);
    switch (k) {
      case 'service':
        s.service = str(r.value(inner));
        break;
      case 'name':
        s.name = str(r.value(inner));
        break;
      case 'resource':
        s.resource = str(r.value(inner));
        break;
      case 'type':
        s.type = str(r.value(inner));
        break;
      case 'trace_id':
        s.traceId = u64At(r, inner);
        break;
      case 'span_id':
        s.spanId = u64At(r, inner);
        break;
      case 'parent_id':
        s.parentId = u64At(r, inner);
        break;
      case 'start':
        s.start = i64At(r, inner);
        break;
      case 'duration':
        s.duration = i64At(r, inner);
        break;
      case 'error':
        s.error = int(r.value(inner));
        break;
      case 'meta':
        s.meta = stringMap(r, inner);
        break;
      case 'metrics':
        s.metrics = floatMap(r, inner);
        break;
      default: {
        // span_links, span_events, and keys skipped like meta_struct
        const value = r.value(inner);
        SPAN_FIELDS.get(k)?.(s, value);
      }
    }
  }
  if (s.meta === NONE) s.meta = new Map();
  if (s.metrics === NONE) s.metrics = new Map();
  return s;
}

/** The chunks of a v0.4 msgpack body; gives up (shared/fast-path.ts) to let the generic path answer. */
export const readV04Msgpack = (body: Uint8Array): DdTraceChunk[] =>
  readDirect(body, (r) => {
    const traces = arrayHeader(r, 0);
    const chunks: DdTraceChunk[] = [];
    for (let i = 0; i < traces; i++) {
      const length = arrayHeader(r, 1);
      const spans: DdSpan[] = [];
      for (let j = 0; j < length; j++) spans.push(span(r, 2));
      chunks.push(chunkOf(spans));
    }
    return chunks;
  });
