/**
 * /v1.0/traces: the V1 trace protocol, the idx TracerPayload (idx-model.ts) as msgpack. Every
 * message is a map keyed by its idx field numbers; every string is streamed: a str the first time
 * (it joins the payload's table), an integer index into the table after that, 0 being `""`.
 * Attribute maps are arrays of `[key, type, value]` triplets, array values arrays of
 * `[type, value]` pairs; the chunk's trace id is 16 raw bytes. Field readers follow the agent's
 * decoder (datadog-agent `pkg/proto/pbgo/trace/idx`) and what dd-trace-go 2.x writes
 * (docs/translation.md, V1 trace protocol). Fields we do not know are skipped, as msgpack lets us.
 */
import { chunkOf, emptySpan, emptySpanEvent, emptySpanLink, emptyTracerPayload, type DdAttributeValue, type DdSpanEvent, type DdSpanLink, type DdTracerPayload } from '../datadog';
import { decodeMsgpack, type MsgValue } from '../../../core/wire/msgpack';
import { parsing } from './body';
import { array, at, bool, bytes, each, f64, FieldError, i64, int, map, str, u64 } from './fields';
import { classicChunk, classicSpan, textMap, traceIdHalves, type IdxChunkParts, type IdxSpanParts } from './idx-model';
import { withHeaderIdentity } from './tracer-headers';

const fail = (message: string): never => {
  throw new FieldError(message);
};

/** The payload's string table as the body streams it. */
class StreamingStrings {
  private readonly table: string[] = [''];
  private readonly index = new Map<string, number>([['', 0]]);

  /** A str is added (once: a repeat keeps its first index, as the agent's table does); an integer is a ref. */
  read(v: MsgValue): string {
    if (typeof v === 'string' || v instanceof Uint8Array) return this.add(str(v));
    const ref = int(v);
    const s = this.table[ref];
    if (s === undefined) fail(`string ref ${ref} is outside the string table (${this.table.length} entries)`);
    return s as string;
  }

  /** Field 1: a table sent up front, which the agent only takes before any other string. */
  preload(v: MsgValue): void {
    if (this.table.length > 1) fail('the string table must come before any other string');
    for (const s of each(v, str)) this.add(s);
  }

  private add(s: string): string {
    if (!this.index.has(s)) {
      this.index.set(s, this.table.length);
      this.table.push(s);
    }
    return s;
  }
}

/** One field of a message: its idx name (for error paths) and how it is read into `T`. */
type Field<T> = readonly [name: string, read: (into: T, v: MsgValue, strings: StreamingStrings) => void];

/** Reads a map keyed by field numbers, in wire order, which is the order strings are streamed in. */
function readMessage<T>(v: MsgValue, into: T, fields: ReadonlyMap<number, Field<T>>, strings: StreamingStrings): T {
  for (const [key, value] of map(v)) {
    const field = fields.get(int(key));
    if (field) at(field[0], () => field[1](into, value, strings));
  }
  return into;
}

/** Value types of the protocol's AnyValue, in its numbering. */
function anyValue(type: MsgValue, v: MsgValue, strings: StreamingStrings): DdAttributeValue {
  const t = int(type);
  switch (t) {
    case 1:
      return strings.read(v);
    case 2:
      return bool(v);
    case 3:
      return f64(v);
    case 4:
      return i64(v);
    case 5:
      return bytes(v);
    case 6:
      return pairs(v, strings);
    case 7:
      return attributes(v, strings);
    default:
      return fail(`value type ${t} is not one of 1 (string) to 7 (key-value list)`);
  }
}

/** An array value: `[type, value]` pairs. */
function pairs(v: MsgValue, strings: StreamingStrings): DdAttributeValue[] {
  const items = array(v);
  if (items.length % 2 !== 0) fail(`an array value holds [type, value] pairs, got ${items.length} items`);
  const out: DdAttributeValue[] = [];
  for (let i = 0; i < items.length; i += 2) out.push(at(i / 2, () => anyValue(items[i] as MsgValue, items[i + 1] as MsgValue, strings)));
  return out;
}

/** An attribute map: `[key, type, value]` triplets. */
function attributes(v: MsgValue, strings: StreamingStrings): Map<string, DdAttributeValue> {
  const items = array(v);
  if (items.length % 3 !== 0) fail(`attributes are [key, type, value] triplets, got ${items.length} items`);
  const out = new Map<string, DdAttributeValue>();
  for (let i = 0; i < items.length; i += 3) {
    const key = at(i / 3, () => strings.read(items[i] as MsgValue));
    out.set(
      key,
      at(key, () => anyValue(items[i + 1] as MsgValue, items[i + 2] as MsgValue, strings)),
    );
  }
  return out;
}

const fields = <T>(entries: readonly (readonly [number, Field<T>])[]): ReadonlyMap<number, Field<T>> => new Map(entries);

const LINK_FIELDS = fields<DdSpanLink>([
  [1, ['traceID', (l, v) => ([l.traceIdHigh, l.traceId] = traceIdHalves(bytes(v), fail))]],
  [2, ['spanID', (l, v) => (l.spanId = u64(v))]],
  [3, ['attributes', (l, v, s) => (l.attributes = textMap(attributes(v, s)))]],
  [4, ['tracestate', (l, v, s) => (l.tracestate = s.read(v))]],
  [5, ['flags', (l, v) => (l.flags = int(v))]],
]);

const EVENT_FIELDS = fields<DdSpanEvent>([
  [1, ['time', (e, v) => (e.timeUnixNano = u64(v))]],
  [2, ['name', (e, v, s) => (e.name = s.read(v))]],
  [3, ['attributes', (e, v, s) => (e.attributes = attributes(v, s))]],
]);

const tag =
  (key: string): Field<IdxSpanParts>[1] =>
  (p, v, s) =>
    p.tags.set(key, s.read(v));

const SPAN_FIELDS = fields<IdxSpanParts>([
  [1, ['service', (p, v, s) => (p.span.service = s.read(v))]],
  [2, ['name', (p, v, s) => (p.span.name = s.read(v))]],
  [3, ['resource', (p, v, s) => (p.span.resource = s.read(v))]],
  [4, ['spanID', (p, v) => (p.span.spanId = u64(v))]],
  [5, ['parentID', (p, v) => (p.span.parentId = u64(v))]],
  [6, ['start', (p, v) => (p.span.start = i64(v))]],
  [7, ['duration', (p, v) => (p.span.duration = i64(v))]],
  [8, ['error', (p, v) => (p.span.error = bool(v) ? 1 : 0)]],
  [9, ['attributes', (p, v, s) => (p.attributes = attributes(v, s))]],
  [10, ['type', (p, v, s) => (p.span.type = s.read(v))]],
  [11, ['links', (p, v, s) => (p.span.links = each(v, (l) => readMessage(l, emptySpanLink(), LINK_FIELDS, s)))]],
  [12, ['events', (p, v, s) => (p.span.events = each(v, (e) => readMessage(e, emptySpanEvent(), EVENT_FIELDS, s)))]],
  [13, ['env', tag('env')]],
  [14, ['version', tag('version')]],
  [15, ['component', tag('component')]],
  [16, ['kind', (p, v) => (p.kind = int(v))]],
]);

const spanParts = (): IdxSpanParts => ({ span: emptySpan(), attributes: new Map(), tags: new Map(), kind: 0 });

const CHUNK_FIELDS = fields<IdxChunkParts>([
  [1, ['priority', (p, v) => (p.chunk.priority = int(v))]],
  [2, ['origin', (p, v, s) => (p.chunk.origin = s.read(v))]],
  [3, ['attributes', (p, v, s) => (p.attributes = attributes(v, s))]],
  [4, ['spans', (p, v, s) => (p.chunk.spans = each(v, (span) => classicSpan(readMessage(span, spanParts(), SPAN_FIELDS, s))))]],
  [5, ['droppedTrace', (p, v) => (p.chunk.droppedTrace = bool(v))]],
  [6, ['traceID', (p, v) => (p.traceId = bytes(v))]],
  [7, ['samplingMechanism', (p, v) => (p.mechanism = int(v))]],
]);

const chunkParts = (): IdxChunkParts => ({ chunk: chunkOf([]), attributes: new Map(), mechanism: 0, traceId: undefined });

const PAYLOAD_FIELDS = fields<DdTracerPayload>([
  [1, ['strings', (_p, v, s) => s.preload(v)]],
  [2, ['containerID', (p, v, s) => (p.containerId = s.read(v))]],
  [3, ['languageName', (p, v, s) => (p.languageName = s.read(v))]],
  [4, ['languageVersion', (p, v, s) => (p.languageVersion = s.read(v))]],
  [5, ['tracerVersion', (p, v, s) => (p.tracerVersion = s.read(v))]],
  [6, ['runtimeID', (p, v, s) => (p.runtimeId = s.read(v))]],
  [7, ['env', (p, v, s) => (p.env = s.read(v))]],
  [8, ['hostname', (p, v, s) => (p.hostname = s.read(v))]],
  [9, ['appVersion', (p, v, s) => (p.appVersion = s.read(v))]],
  [10, ['attributes', (p, v, s) => (p.tags = textMap(attributes(v, s)))]],
  [11, ['chunks', (p, v, s) => (p.chunks = each(v, (c) => classicChunk(readMessage(c, chunkParts(), CHUNK_FIELDS, s), fail)))]],
]);

/** Fields the body leaves empty are taken from the request headers (`identity`). */
export function parseV1Traces(body: Buffer, identity: DdTracerPayload, what: string): DdTracerPayload {
  return parsing(what, () => withHeaderIdentity(readMessage(decodeMsgpack(body), emptyTracerPayload(), PAYLOAD_FIELDS, new StreamingStrings()), identity));
}
