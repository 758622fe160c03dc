/**
 * /v0.5/traces: `[strings, traces]`, every string in a span replaced by its index in `strings`,
 * every span an array of exactly 12 columns. An index outside the
 * table is an error, as in the agent.
 */
import { chunkOf, emptySpan, type DdSpan, type DdTraceChunk, type DdTracerPayload } from '../datadog';
import { decodeMsgpack, type MsgValue } from '../../../core/wire/msgpack';
import { parsing } from './body';
import { array, at, each, f64, FieldError, int, map, str } from './fields';
import { SPAN_FIELDS } from './span-map';
import { fastElseGeneral } from '../../shared/fast-path';
import { isDecodeDoubt } from './msgpack-walk';
import { readV05Msgpack } from './v05-msgpack';

type Column = (span: DdSpan, value: MsgValue, strings: readonly string[]) => void;

function ref(strings: readonly string[], v: MsgValue): string {
  const index = int(v);
  const s = strings[index];
  if (s === undefined) throw new FieldError(`string index ${index} is outside the string table (${strings.length} entries)`);
  return s;
}

function refMap<T>(strings: readonly string[], v: MsgValue, value: (v: MsgValue) => T): Map<string, T> {
  const out = new Map<string, T>();
  for (const [k, val] of map(v)) {
    const key = ref(strings, k);
    out.set(
      key,
      at(key, () => value(val)),
    );
  }
  return out;
}

/** Columns holding strings (as table indexes); the others read exactly as the v0.4 span keys of the same name. */
const STRING_COLUMNS: ReadonlyMap<string, Column> = new Map<string, Column>([
  ['service', (s, v, t) => (s.service = ref(t, v))],
  ['name', (s, v, t) => (s.name = ref(t, v))],
  ['resource', (s, v, t) => (s.resource = ref(t, v))],
  ['meta', (s, v, t) => (s.meta = refMap(t, v, (x) => ref(t, x)))],
  ['metrics', (s, v, t) => (s.metrics = refMap(t, v, f64))],
  ['type', (s, v, t) => (s.type = ref(t, v))],
]);

const COLUMNS: readonly [string, Column][] = ['service', 'name', 'resource', 'trace_id', 'span_id', 'parent_id', 'start', 'duration', 'error', 'meta', 'metrics', 'type'].map((name) => [
  name,
  STRING_COLUMNS.get(name) ?? ((s, v) => SPAN_FIELDS.get(name)?.(s, v)),
]);

function parseSpan(v: MsgValue, strings: readonly string[]): DdSpan {
  const values = array(v);
  if (values.length !== COLUMNS.length) throw new FieldError(`a span has exactly ${COLUMNS.length} elements, got ${values.length}`);
  const span = emptySpan();
  COLUMNS.forEach(([name, set], i) => {
    at(name, () => set(span, values[i] as MsgValue, strings));
  });
  return span;
}

/** msgpack read straight into spans (v05-msgpack.ts); a body that reader gives up on is decoded into a tree and coerced, whose answer or error decides. */
export function parseV05Traces(body: Buffer, identity: DdTracerPayload, what: string): DdTracerPayload {
  return parsing(what, () => ({
    ...identity,
    chunks: fastElseGeneral(
      () => readV05Msgpack(body),
      () => parseV05Tree(body),
      undefined,
      isDecodeDoubt,
    ),
  }));
}

/** The generic path: the decoded tree, coerced column by column. */
export function parseV05Tree(body: Buffer): DdTraceChunk[] {
  const top = array(decodeMsgpack(body));
  if (top.length !== 2) throw new FieldError(`expected [strings, traces], got an array of ${top.length}`);
  const strings = at('strings', () => each(top[0] as MsgValue, str));
  return at('traces', () => each(top[1] as MsgValue, (trace) => chunkOf(each(trace, (span) => parseSpan(span, strings)))));
}
