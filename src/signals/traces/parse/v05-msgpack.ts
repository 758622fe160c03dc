/**
 * /v0.5/traces msgpack straight into spans, as v04-msgpack.ts does for v0.4: the table's strings
 * are decoded once, each span's columns are read in place and its meta and metrics keys are
 * looked up in the table, where the generic path decodes the body into a tree of arrays and maps
 * and coerces it column by column. What it accepts the generic path accepts with the same result
 * (every string column and map entry a table index, applied in wire order); anything else —
 * a string that is not a str, an index that is not a uint or is outside the table, a span that is
 * not an array of 12 — makes it give up, and the generic path's answer or error stands.
 */
import { chunkOf, type DdSpan, type DdTraceChunk } from '../datadog';
import type { MsgpackReader } from '../../../core/wire/msgpack';
import { f64, int } from './fields';
import { GIVE_UP } from '../../shared/fast-path';
import { arrayHeader, i64At, key, mapHeader, readDirect, u64At } from './msgpack-walk';

const COLUMNS = 12;

/** The table entry a uint index names, or give up. */
function ref(r: MsgpackReader, strings: readonly string[]): string {
  const b = r.peek();
  let index: number;
  if (b <= 0x7f) {
    r.pos++;
    index = b;
  } else if (b === 0xcc) {
    r.pos++;
    index = r.u8();
  } else if (b === 0xcd) {
    r.pos++;
    index = r.u16();
  } else if (b === 0xce) {
    r.pos++;
    index = r.u32();
  } else throw GIVE_UP;
  const s = strings[index];
  if (s === undefined) throw GIVE_UP;
  return s;
}

function refMap<T>(r: MsgpackReader, depth: number, strings: readonly string[], value: (r: MsgpackReader, inner: number, strings: readonly string[]) => T): Map<string, T> {
  const length = mapHeader(r, depth);
  if (length < 0) throw GIVE_UP;
  const out = new Map<string, T>();
  const inner = depth + 1;
  for (let i = 0; i < length; i++) {
    const k = ref(r, strings);
    out.set(k, value(r, inner, strings));
  }
  return out;
}

// module-level, so that a span's two maps make no closure each
const metaValue = (r: MsgpackReader, _depth: number, strings: readonly string[]): string => ref(r, strings);
const metricValue = (r: MsgpackReader, depth: number): number => f64(r.value(depth));

/** One span array at `depth`, its columns in the format's order. */
function span(r: MsgpackReader, depth: number, strings: readonly string[]): DdSpan {
  if (arrayHeader(r, depth) !== COLUMNS) throw GIVE_UP;
  const inner = depth + 1;
  const service = ref(r, strings);
  const name = ref(r, strings);
  const resource = ref(r, strings);
  const traceId = u64At(r, inner);
  const spanId = u64At(r, inner);
  const parentId = u64At(r, inner);
  const start = i64At(r, inner);
  const duration = i64At(r, inner);
  const error = int(r.value(inner));
  const meta = refMap(r, inner, strings, metaValue);
  const metrics = refMap(r, inner, strings, metricValue);
  const type = ref(r, strings);
  return { service, name, resource, type, traceId, spanId, parentId, start, duration, error, meta, metrics, links: [], events: [] };
}

/** The chunks of a v0.5 msgpack body, or undefined to let the generic path answer. */
export const readV05Msgpack = (body: Uint8Array): DdTraceChunk[] =>
  readDirect(body, (r) => {
    if (arrayHeader(r, 0) !== 2) throw GIVE_UP;
    const strings: string[] = new Array(arrayHeader(r, 1));
    for (let i = 0; i < strings.length; i++) strings[i] = key(r);
    const traces = arrayHeader(r, 1);
    const chunks: DdTraceChunk[] = [];
    for (let i = 0; i < traces; i++) {
      const length = arrayHeader(r, 2);
      const spans: DdSpan[] = [];
      for (let j = 0; j < length; j++) spans.push(span(r, 3, strings));
      chunks.push(chunkOf(spans));
    }
    return chunks;
  });
