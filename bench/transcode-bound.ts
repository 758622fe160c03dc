/**
 * How cheap could a /v0.4 traces route be in JavaScript? The design's floor (floor-sidecar.ts)
 * leaves about 0.75 µs of route work per span for 1.5× the upstream receiver, against ~4.9 for the
 * route we ship, which builds a DdSpan, a draft and a Span model per span. This is the other way,
 * measured: a byte-level transcoder that reads the msgpack body once into typed arrays (keys
 * recognised by a hash of their bytes against a table built from the real known-key rules, each
 * chunk's look-ahead taken on the way), then writes OTLP from them, making no JavaScript value per
 * meta entry: values are copied byte for byte (checked to be ASCII on the way), ids and times are
 * moved as bytes.
 *
 * It is an estimate, not a product path, and it is kept as one: it does only what the bench's
 * dd-trace-js bodies need (resource grouping by service and resource tags with the chunk's
 * inherited, `_dd.base_service`, span names from resources, query names through the name step
 * itself, kinds from the kind step's tables, 128-bit ids from `_dd.p.tid`, sampling priority,
 * consumed and renamed keys, string and double attributes, an Error status); span events and
 * links, error spans' exception events, non-string meta, colliding renamed keys and non-ASCII
 * values are left out, and a real route would hand such spans to the chain. So what it costs is
 * a lower bound for a transcoder that would do the same as the chain. To show that it does the
 * work it claims, it checks its own output against the real route's, span by span (attributes and
 * resources as sets, name, kind, ids, times, status), before it measures. floor-sidecar.ts can
 * also serve it live (`ab.ts --b transcode`).
 *
 *   node -r ./bench/register.js bench/transcode-bound.ts [--seconds 3] [--rounds 3]
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { DdSpan } from '../src/signals/traces/datadog';
import { SpanKind } from '../src/core/otlp/model';
import { lenFieldSize, ProtoWriter, varintSize } from '../src/core/wire/proto-writer';
import { tracerPayloadFromHeaders } from '../src/signals/traces/parse/tracer-headers';
import { KNOWN_KEYS, attributeName } from '../src/signals/shared/known-keys';
import { Remaining } from '../src/signals/traces/draft';
import { BY_TAG, BY_TYPE } from '../src/signals/traces/kind';
import { spanName } from '../src/signals/traces/name';
import { language, payloadResource, TRACER_TAGS } from '../src/signals/traces/resource';
import { lookupType } from '../test/helpers/otlp-proto';
import { KeepingExporter } from './floor-sidecar';
import { intakeRequest, routeContext, scenarioRoute, serveOnce } from './pipeline';
import { buildScenario } from './scenarios';

// ------------------------------------------------------------------ keys

const enum Kind {
  Plain,
  /** promoted to the resource and consumed (env, version, runtime-id, language, …) */
  Resource,
  BaseService,
  Service,
  SpanKind,
  Tid,
  /** metrics */
  Pid,
  Sampling,
}

interface Key {
  /** distinct per key, for resource identities */
  number: number;
  raw: Uint8Array;
  kind: Kind;
  /** KeyValue field 1 (tag, length, renamed key), ready to copy */
  encoded: Uint8Array;
  /** the resource attribute, for Kind.Resource */
  resourceName: string;
  /** a key the name step reads for query spans (it stays an attribute) */
  query: boolean;
  /** a metric that records a sampling decision (sampling.ts), and the one that says the rate */
  decision: boolean;
  rate: boolean;
  text: string;
}

/** The metrics sampling.ts reads the chunk's decision from; the first span with one holds it. */
const DECISION_KEYS = new Set(['_sampling_priority_v1', '_sample_rate', '_dd.agent_psr', '_dd.rule_psr', '_dd.limit_psr']);

const QUERY_KEYS = new Set(['db.statement', 'sql.query', 'db.operation', 'db.sql.table', 'db.name', 'db.instance']);

/** KeyValue field 1 (tag, length, key) as the encoder writes it, to copy in. */
function keyField(key: string): Uint8Array {
  const w = new ProtoWriter(16);
  w.stringField(1, key);
  return Uint8Array.from(w.bytes());
}

let keyNumbers = 0;

function classify(raw: Uint8Array, metric: boolean): Key {
  const key = Buffer.from(raw).toString('utf8');
  const encoded = keyField(attributeName(key));
  const decision = metric && DECISION_KEYS.has(key);
  const of = (kind: Kind, resourceName = ''): Key => ({ number: keyNumbers++, raw: Uint8Array.from(raw), kind, encoded, resourceName, query: QUERY_KEYS.has(key), decision, rate: decision && key === '_sample_rate', text: key });
  if (metric) return of(key === 'process_id' ? Kind.Pid : key === '_sampling_priority_v1' ? Kind.Sampling : Kind.Plain);
  if (key === '_dd.base_service') return of(Kind.BaseService);
  if (key === 'service') return of(Kind.Service);
  if (key === 'span.kind') return of(Kind.SpanKind);
  if (key === '_dd.p.tid') return of(Kind.Tid);
  const tracer = TRACER_TAGS.get(key);
  if (tracer) return of(Kind.Resource, tracer[0]);
  const known = KNOWN_KEYS.get(key);
  return known?.resource ? of(Kind.Resource, known.otel) : of(Kind.Plain);
}

/** Keys by a hash of their bytes, open addressing; every hit is confirmed byte by byte. */
class KeyTable {
  private readonly slots: (Key | undefined)[] = new Array(4096);
  constructor(private readonly metric: boolean) {}

  find(b: Uint8Array, at: number, length: number): Key {
    let h = length;
    for (let i = 0; i < length; i++) h = Math.imul(h ^ (b[at + i] as number), 0x01000193);
    for (let slot = h & 4095; ; slot = (slot + 1) & 4095) {
      const k = this.slots[slot];
      if (k === undefined) {
        const fresh = classify(b.subarray(at, at + length), this.metric);
        this.slots[slot] = fresh;
        return fresh;
      }
      if (k.raw.length !== length) continue;
      let i = 0;
      while (i < length && k.raw[i] === b[at + i]) i++;
      if (i === length) return k;
    }
  }
}

const META = new KeyTable(false);
const METRICS = new KeyTable(true);

// ------------------------------------------------------------------ msgpack

let b: Uint8Array = new Uint8Array(0);
let p = 0;

function strLength(): number {
  const t = b[p++] as number;
  if (t >= 0xa0 && t <= 0xbf) return t & 31;
  if (t === 0xd9) return b[p++] as number;
  if (t === 0xda) return ((b[p++] as number) << 8) | (b[p++] as number);
  throw new Error(`not a str: ${t.toString(16)} at ${p - 1}`);
}

function containerLength(fix: number, b16: number, b32: number): number {
  const t = b[p++] as number;
  if ((t & 0xf0) === fix) return t & 15;
  if (t === b16) return ((b[p++] as number) << 8) | (b[p++] as number);
  if (t === b32) return (((b[p++] as number) << 24) >>> 0) + ((b[p++] as number) << 16) + ((b[p++] as number) << 8) + (b[p++] as number);
  throw new Error(`not a container: ${t.toString(16)}`);
}
const mapLength = (): number => containerLength(0x80, 0xde, 0xdf);
const arrayLength = (): number => containerLength(0x90, 0xdc, 0xdd);

/** An unsigned or signed integer as 8 big-endian bytes into `out` at `at`. */
function int64Into(out: Uint8Array, at: number): void {
  const t = b[p] as number;
  if (t === 0xcf || t === 0xd3) {
    for (let i = 0; i < 8; i++) out[at + i] = b[p + 1 + i] as number;
    p += 9;
    return;
  }
  const v = number();
  const hi = Math.floor(v / 2 ** 32);
  const lo = v >>> 0;
  out[at] = hi >>> 24;
  out[at + 1] = hi >>> 16;
  out[at + 2] = hi >>> 8;
  out[at + 3] = hi;
  out[at + 4] = lo >>> 24;
  out[at + 5] = lo >>> 16;
  out[at + 6] = lo >>> 8;
  out[at + 7] = lo;
}

const view = new DataView(new ArrayBuffer(8));
function number(): number {
  const t = b[p++] as number;
  if (t <= 0x7f) return t;
  if (t >= 0xe0) return t - 256;
  switch (t) {
    case 0xcc:
      return b[p++] as number;
    case 0xcd:
      return ((b[p++] as number) << 8) | (b[p++] as number);
    case 0xce:
      return (((b[p++] as number) << 24) >>> 0) + ((b[p++] as number) << 16) + ((b[p++] as number) << 8) + (b[p++] as number);
    case 0xcb:
    case 0xcf:
    case 0xd3: {
      for (let i = 0; i < 8; i++) view.setUint8(i, b[p + i] as number);
      p += 8;
      return t === 0xcb ? view.getFloat64(0) : Number(t === 0xcf ? view.getBigUint64(0) : view.getBigInt64(0));
    }
    case 0xca: {
      for (let i = 0; i < 4; i++) view.setUint8(i, b[p + i] as number);
      p += 4;
      return view.getFloat32(0);
    }
  }
  throw new Error(`not a number: ${t.toString(16)}`);
}

/** Past one value; with `strings`, every str's bytes are copied to `o` on the way (walkBody). */
function skip(strings = false): void {
  const t = b[p] as number;
  if ((t >= 0xa0 && t <= 0xbf) || t === 0xd9 || t === 0xda) {
    const n = strLength();
    if (strings) copy(p, n);
    p += n;
  } else if ((t & 0xf0) === 0x80 || t === 0xde) {
    for (let n = mapLength() * 2; n > 0; n--) skip(strings);
  } else if ((t & 0xf0) === 0x90 || t === 0xdc) {
    for (let n = arrayLength(); n > 0; n--) skip(strings);
  } else if (t === 0xc0 || t === 0xc2 || t === 0xc3) p++;
  else number();
}

/** The least any reader does: every value passed over (and every string's bytes copied out). */
export function walkBody(body: Uint8Array, strings: boolean): number {
  b = new Uint8Array(body.buffer, body.byteOffset, body.length);
  p = 0;
  q = 0;
  skip(strings);
  return p + q;
}

/** b[at, at + n) decoded: only the rare paths (new resources, query names, inherited tags) make strings. */
const textAt = (at: number, n: number): string => Buffer.from(b.buffer, b.byteOffset + at, n).toString('utf8');

/** The bytes [at, at + n) equal `s` (ASCII). */
function bytesAre(at: number, n: number, s: string): boolean {
  if (n !== s.length) return false;
  for (let i = 0; i < n; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
}

// ------------------------------------------------------------------ output

let o = new Uint8Array(1 << 20);
let q = 0;

function varint(v: number): void {
  while (v >= 0x80) {
    o[q++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  o[q++] = v;
}

/** Copies b[at, at + n) out and tells whether it was all ASCII. */
function copy(at: number, n: number): boolean {
  let high = 0;
  for (let i = 0; i < n; i++) {
    const c = b[at + i] as number;
    high |= c;
    o[q++] = c;
  }
  return high < 0x80;
}

function copyBytes(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i++) o[q++] = bytes[i] as number;
}

/** KeyValue{key, AnyValue{string_value = b[at, at + n)}} as Span field 9. */
function stringAttribute(key: Uint8Array, at: number, n: number): void {
  const any = 1 + varintSize(n) + n;
  o[q++] = 0x4a;
  varint(key.length + 1 + varintSize(any) + any);
  copyBytes(key);
  o[q++] = 0x12;
  varint(any);
  o[q++] = 0x0a;
  varint(n);
  if (!copy(at, n)) nonAscii++;
}

/** KeyValue{key, AnyValue{int_value}} as Span field 9, for a positive int. */
function intAttribute(key: Uint8Array, value: number): void {
  const any = 1 + varintSize(value);
  o[q++] = 0x4a;
  varint(key.length + 2 + any);
  copyBytes(key);
  o[q++] = 0x12;
  o[q++] = any;
  o[q++] = 0x18;
  varint(value);
}

function doubleAttribute(key: Uint8Array, value: number): void {
  o[q++] = 0x4a;
  varint(key.length + 11);
  copyBytes(key);
  o[q++] = 0x12;
  o[q++] = 9;
  o[q++] = 0x21;
  view.setFloat64(0, value, true);
  for (let i = 0; i < 8; i++) o[q++] = view.getUint8(i);
}

const SAMPLING_KEY = keyField('sampling.priority');
const SAMPLE_RATE_KEY = keyField('SampleRate');
const DERIVED = { name: keyField('datadog.span.name'), resource: keyField('dd.span.Resource'), type: keyField('datadog.span.type'), service: keyField('datadog.service'), statement: keyField('db.statement') };

let nonAscii = 0;

// ------------------------------------------------------------------ spans

interface Group {
  identity: Uint32Array;
  resource: [string, string | number][];
  /** [start, end) of each of its spans in `o` */
  spans: number[];
}

/** The chunk's look-ahead: its trace id's high half, its sampling priority, its spans' resource tags. */
interface Chunk {
  /** equal for chunks that inherit the same resource tags */
  id: number;
  tidHigh: Uint8Array | undefined;
  priority: number | undefined;
  /** the span whose metrics hold the sampling decision, -1 until one does, and its `_sample_rate` */
  decisionSpan: number;
  rate: number;
  inherited: [string, string | number][];
  /** its spans: [first, end) in the span arrays */
  first: number;
  end: number;
}

// what the read pass records, span by span and entry by entry, for the write pass
const MAX_SPANS = 1 << 16;
// biome-ignore format: the offsets as one table
const F_SERVICE = 0, F_NAME = 2, F_RESOURCE = 4, F_TYPE = 6, F_ERROR = 8, F_ENTRIES = 9, F_META_END = 10, F_ENTRIES_END = 11, F_PARENT = 12, WIDTH = 13;
const spanFields = new Int32Array(MAX_SPANS * WIDTH);
/** per span: parent id, trace id (low half), span id, start, duration, 8 big-endian bytes each */
const spanIds = new Uint8Array(MAX_SPANS * 40);
const entryKeys: Key[] = [];
const MAX_ENTRIES = MAX_SPANS * 16;
const entryAt = new Int32Array(MAX_ENTRIES);
const entryLen = new Int32Array(MAX_ENTRIES);
const entryValue = new Float64Array(MAX_ENTRIES);

const identity = new Uint32Array(4096);
const inheritedIds = new Map<string, number>();

/** A resource met for the first time (rare: once per process and service). */
function newGroup(chunk: Chunk, serviceAt: number, serviceN: number, from: number, metaEnd: number, id: Uint32Array): Group {
  const resource: [string, string | number][] = [['service.name', textAt(serviceAt, serviceN) || 'unnamed-service']];
  for (let e = from; e < metaEnd; e++) {
    const k = entryKeys[e] as Key;
    if (k.kind === Kind.Resource && !named(resource, k.resourceName)) resource.push([k.resourceName, textAt(entryAt[e] as number, entryLen[e] as number)]);
  }
  for (const [k, v] of [...chunk.inherited, ...payload]) if (!named(resource, k)) resource.push([k, v]);
  for (const r of resource) if (r[0] === 'telemetry.sdk.language') r[1] = language(String(r[1])); // the tag's value, mapped as the resource step maps it
  return { identity: id, resource, spans: [] };
}

const enum Field {
  Other,
  Service,
  Name,
  Resource,
  Type,
  TraceId,
  SpanId,
  ParentId,
  Start,
  Duration,
  Error,
  Meta,
  Metrics,
}

const FIELDS: [string, Field][] = [
  ['service', Field.Service],
  ['name', Field.Name],
  ['resource', Field.Resource],
  ['type', Field.Type],
  ['trace_id', Field.TraceId],
  ['span_id', Field.SpanId],
  ['parent_id', Field.ParentId],
  ['start', Field.Start],
  ['duration', Field.Duration],
  ['error', Field.Error],
  ['meta', Field.Meta],
  ['metrics', Field.Metrics],
];

/** A span map's key: told apart by length and first and last byte, then confirmed in full. */
function field(at: number, n: number): Field {
  const first = b[at] as number;
  const last = b[at + n - 1] as number;
  for (let i = 0; i < FIELDS.length; i++) {
    const [text, id] = FIELDS[i] as [string, Field];
    if (text.length === n && text.charCodeAt(0) === first && text.charCodeAt(n - 1) === last) return bytesAre(at, n, text) ? id : Field.Other;
  }
  return Field.Other;
}

/** Pass 1, one span: where everything is, its entries' keys looked up once; the chunk learns what it announces. */
function readSpan(s: number, entries: number, chunk: Chunk): number {
  if (s >= MAX_SPANS) throw new Error(`transcode-bound: more than ${MAX_SPANS} spans in a body`);
  const f = s * WIDTH;
  const at = s * 40;
  spanFields.fill(0, f, f + WIDTH);
  spanIds.fill(0, at, at + 40);
  spanFields[f + F_ENTRIES] = entries;
  for (let n = mapLength(); n > 0; n--) {
    const kn = strLength();
    const ka = p;
    p += kn;
    const id = field(ka, kn);
    switch (id) {
      case Field.Service:
      case Field.Name:
      case Field.Resource:
      case Field.Type:
        stringAt(f + (STRING_SLOT[id] as number));
        break;
      case Field.ParentId:
        spanFields[f + F_PARENT] = b[p] === 0 ? 0 : 1;
        int64Into(spanIds, at + (ID_AT[id] as number));
        break;
      case Field.TraceId:
      case Field.SpanId:
      case Field.Start:
      case Field.Duration:
        int64Into(spanIds, at + (ID_AT[id] as number));
        break;
      case Field.Error:
        spanFields[f + F_ERROR] = number();
        break;
      case Field.Meta:
        for (let m = mapLength(); m > 0; m--) {
          const n = strLength();
          const key = META.find(b, p, n);
          p += n;
          const vn = strLength();
          if (entries >= MAX_ENTRIES) throw new Error(`transcode-bound: more than ${MAX_ENTRIES} meta and metrics entries in a body`);
          if (key.kind === Kind.Tid && vn === 16) chunk.tidHigh = hexBytes(p);
          else if (key.kind === Kind.Resource && !named(chunk.inherited, key.resourceName)) chunk.inherited.push([key.resourceName, textAt(p, vn)]);
          entryKeys[entries] = key;
          entryLen[entries] = vn;
          entryAt[entries++] = p;
          p += vn;
        }
        spanFields[f + F_META_END] = entries;
        break;
      case Field.Metrics:
        if (spanFields[f + F_META_END] === 0) spanFields[f + F_META_END] = entries;
        for (let m = mapLength(); m > 0; m--) {
          const n = strLength();
          const key = METRICS.find(b, p, n);
          p += n;
          const v = number();
          if (entries >= MAX_ENTRIES) throw new Error(`transcode-bound: more than ${MAX_ENTRIES} meta and metrics entries in a body`);
          if (key.kind === Kind.Sampling && chunk.priority === undefined) chunk.priority = v;
          if (key.decision && chunk.decisionSpan < 0) chunk.decisionSpan = s;
          if (key.rate && chunk.decisionSpan === s) chunk.rate = v;
          if (key.kind === Kind.Pid && !named(chunk.inherited, 'process.pid')) chunk.inherited.push(['process.pid', v]);
          entryKeys[entries] = key;
          entryValue[entries] = v;
          entryLen[entries++] = -1;
        }
        break;
      default:
        skip();
    }
  }
  if (spanFields[f + F_META_END] === 0) spanFields[f + F_META_END] = entries;
  spanFields[f + F_ENTRIES_END] = entries;
  return entries;
}

/** By Field: where a str field's offset and length go in a span's spanFields, and an id's 8 bytes in its spanIds. */
const STRING_SLOT: readonly number[] = Object.assign([], { [Field.Service]: F_SERVICE, [Field.Name]: F_NAME, [Field.Resource]: F_RESOURCE, [Field.Type]: F_TYPE });
const ID_AT: readonly number[] = Object.assign([], { [Field.ParentId]: 0, [Field.TraceId]: 8, [Field.SpanId]: 16, [Field.Start]: 24, [Field.Duration]: 32 });

/** A str field's offset and length into spanFields at `slot`. */
function stringAt(slot: number): void {
  const n = strLength();
  spanFields[slot] = p;
  spanFields[slot + 1] = n;
  p += n;
}

function named(list: [string, unknown][], name: string): boolean {
  for (let i = 0; i < list.length; i++) if ((list[i] as [string, unknown])[0] === name) return true;
  return false;
}

function hexBytes(at: number): Uint8Array {
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = (hexDigit(b[at + 2 * i] as number) << 4) | hexDigit(b[at + 2 * i + 1] as number);
  return out;
}
const hexDigit = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);

const end = new Uint8Array(8);

/** Start + duration (big-endian in spanIds) as the end time; both written as fixed64 (little-endian). */
function writeTimes(at: number): void {
  o[q++] = 0x39;
  for (let i = 31; i >= 24; i--) o[q++] = spanIds[at + i] as number;
  o[q++] = 0x41;
  let carry = 0;
  for (let i = 7; i >= 0; i--) {
    const sum = (spanIds[at + 24 + i] as number) + (spanIds[at + 32 + i] as number) + carry;
    end[i] = sum & 0xff;
    carry = sum >> 8;
  }
  for (let i = 7; i >= 0; i--) o[q++] = end[i] as number;
}

/** Pass 2, one span: its resource's group, then the span message into `o`. */
function writeSpan(s: number, chunk: Chunk, groups: Map<number, Group>): void {
  const f = s * WIDTH;
  const at = s * 40;
  // biome-ignore format: a field's start and length on one line
  const service = spanFields[f + F_SERVICE] as number, serviceLen = spanFields[f + F_SERVICE + 1] as number;
  // biome-ignore format: a field's start and length on one line
  const name = spanFields[f + F_NAME] as number, nameLen = spanFields[f + F_NAME + 1] as number;
  // biome-ignore format: a field's start and length on one line
  const res = spanFields[f + F_RESOURCE] as number, resLen = spanFields[f + F_RESOURCE + 1] as number;
  // biome-ignore format: a field's start and length on one line
  const type = spanFields[f + F_TYPE] as number, typeLen = spanFields[f + F_TYPE + 1] as number;
  // biome-ignore format: a field's start and length on one line
  const from = spanFields[f + F_ENTRIES] as number, metaEnd = spanFields[f + F_META_END] as number, entries = spanFields[f + F_ENTRIES_END] as number;
  // the resource: the base service, else the span's; its own resource tags, then the chunk's
  let base = -1;
  for (let e = from; e < metaEnd; e++) if ((entryKeys[e] as Key).kind === Kind.BaseService && (entryLen[e] as number) > 0) base = e;
  const serviceAt = base >= 0 ? (entryAt[base] as number) : service;
  const serviceN = base >= 0 ? (entryLen[base] as number) : serviceLen;
  let n = 0;
  identity[n++] = chunk.id;
  for (let i = 0; i < serviceN; i++) identity[n++] = b[serviceAt + i] as number;
  for (let e = from; e < metaEnd; e++) {
    const k = entryKeys[e] as Key;
    if (k.kind !== Kind.Resource) continue;
    identity[n++] = 0xffff;
    identity[n++] = k.number;
    for (let i = 0, v = entryAt[e] as number, vn = entryLen[e] as number; i < vn; i++) identity[n++] = b[v + i] as number;
  }
  let h = n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ (identity[i] as number), 0x01000193);
  let group: Group | undefined;
  for (let slot = h >>> 0; ; slot++) {
    group = groups.get(slot);
    if (group === undefined) {
      group = newGroup(chunk, serviceAt, serviceN, from, metaEnd, identity.slice(0, n));
      groups.set(slot, group);
      break;
    }
    if (sameIdentity(group.identity, n)) break;
  }
  // the span message, behind a tag and a two-byte length
  const start = q;
  q += 3;
  o[q++] = 0x0a;
  o[q++] = 16;
  if (chunk.tidHigh) for (let i = 0; i < 8; i++) o[q++] = chunk.tidHigh[i] as number;
  else for (let i = 0; i < 8; i++) o[q++] = 0;
  for (let i = 8; i < 16; i++) o[q++] = spanIds[at + i] as number;
  o[q++] = 0x12;
  o[q++] = 8;
  for (let i = 16; i < 24; i++) o[q++] = spanIds[at + i] as number;
  if (spanFields[f + F_PARENT]) {
    o[q++] = 0x22;
    o[q++] = 8;
    for (let i = 0; i < 8; i++) o[q++] = spanIds[at + i] as number;
  }
  // named after the resource when it says more than the operation; a query after what it does to what
  o[q++] = 0x2a;
  const query = isQuery(type, typeLen, from, metaEnd);
  if (query) {
    const text = queryName(res, resLen, name, nameLen, type, typeLen, from, metaEnd);
    varint(Buffer.byteLength(text));
    q += Buffer.from(o.buffer, o.byteOffset + q).write(text);
  } else {
    const byResource = resLen > 0 && resLen <= 200 && !bytesEqual(res, resLen, name, nameLen) && !hasNewline(res, resLen);
    varint(byResource ? resLen : nameLen);
    copy(byResource ? res : name, byResource ? resLen : nameLen);
  }
  // kind: the span.kind tag when it names one (it is consumed then), else the type
  let kind = 0;
  let kindEntry = -1;
  for (let e = from; e < metaEnd; e++) {
    if ((entryKeys[e] as Key).kind !== Kind.SpanKind) continue;
    kind = kindOf(KINDS, entryAt[e] as number, entryLen[e] as number);
    kindEntry = kind === 0 ? -1 : e;
  }
  if (kind === 0) kind = kindOf(TYPE_KINDS, type, typeLen) || SpanKind.Internal;
  o[q++] = 0x30;
  o[q++] = kind;
  writeTimes(at);
  // derived attributes, then what is left of meta and metrics
  if (base >= 0 && serviceLen > 0) stringAttribute(DERIVED.service, service, serviceLen);
  if (nameLen > 0) stringAttribute(DERIVED.name, name, nameLen);
  if (resLen > 0) stringAttribute(DERIVED.resource, res, resLen);
  if (typeLen > 0) stringAttribute(DERIVED.type, type, typeLen);
  // the database step: a query that sits in the resource alone becomes the statement
  if (query && resLen > 0 && !hasQueryText(from, metaEnd)) stringAttribute(DERIVED.statement, res, resLen);
  if (chunk.priority !== undefined) {
    o[q++] = 0x4a;
    o[q++] = SAMPLING_KEY.length + 4;
    copyBytes(SAMPLING_KEY);
    o[q++] = 0x12;
    o[q++] = 2;
    o[q++] = 0x18;
    o[q++] = chunk.priority;
  }
  intAttribute(SAMPLE_RATE_KEY, Math.max(1, Math.round(1 / (chunk.rate > 0 && chunk.rate < 1 ? chunk.rate : 1))));
  for (let e = from; e < entries; e++) {
    const k = entryKeys[e] as Key;
    if (e < metaEnd) {
      if (k.kind === Kind.Plain || (k.kind === Kind.SpanKind && e !== kindEntry) || (k.kind === Kind.Service && !bytesEqual(entryAt[e] as number, entryLen[e] as number, service, serviceLen)))
        stringAttribute(k.encoded, entryAt[e] as number, entryLen[e] as number);
    } else if (k.kind === Kind.Plain || (k.kind === Kind.Sampling && chunk.priority === undefined)) doubleAttribute(k.encoded, entryValue[e] as number);
  }
  if (spanFields[f + F_ERROR] !== 0) {
    o[q++] = 0x7a;
    o[q++] = 2;
    o[q++] = 0x18;
    o[q++] = 2;
  }
  const size = q - start - 3;
  o[start] = 0x12;
  o[start + 1] = (size & 0x7f) | 0x80;
  o[start + 2] = size >>> 7;
  group.spans.push(start, q);
}

function sameIdentity(known: Uint32Array, n: number): boolean {
  if (known.length !== n) return false;
  for (let i = 0; i < n; i++) if (known[i] !== identity[i]) return false;
  return true;
}

/** The kind step's tables, as bytes to compare with. */
const asBytes = (kinds: ReadonlyMap<string, SpanKind>): [Uint8Array, number][] => [...kinds].map(([k, v]) => [Buffer.from(k), v]);
const KINDS = asBytes(BY_TAG);
const TYPE_KINDS = asBytes(BY_TYPE);

function kindOf(kinds: [Uint8Array, number][], at: number, n: number): number {
  for (let i = 0; i < kinds.length; i++) {
    const [text, kind] = kinds[i] as [Uint8Array, number];
    if (text.length !== n) continue;
    let j = 0;
    while (j < n && text[j] === b[at + j]) j++;
    if (j === n) return kind;
  }
  return 0;
}

function hasNewline(at: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (b[at + i] === 0x0a || b[at + i] === 0x0d) return true;
  return false;
}

function isQuery(type: number, typeLen: number, from: number, metaEnd: number): boolean {
  if (bytesAre(type, typeLen, 'sql') || bytesAre(type, typeLen, 'cassandra')) return true;
  for (let e = from; e < metaEnd; e++) if ((entryKeys[e] as Key).query) return true;
  return false;
}

/** Whether the span's meta says its query itself (database.ts reads these two). */
function hasQueryText(from: number, metaEnd: number): boolean {
  for (let e = from; e < metaEnd; e++) {
    const { text } = entryKeys[e] as Key;
    if ((text === 'db.statement' || text === 'sql.query') && (entryLen[e] as number) > 0) return true;
  }
  return false;
}

/** A query span's name from the name step itself, given what it reads: only query spans pay for the strings. */
function queryName(res: number, resLen: number, name: number, nameLen: number, type: number, typeLen: number, from: number, metaEnd: number): string {
  const meta = new Map<string, string>();
  for (let e = from; e < metaEnd; e++) if ((entryKeys[e] as Key).query) meta.set((entryKeys[e] as Key).text, textAt(entryAt[e] as number, entryLen[e] as number));
  const span: DdSpan = { service: '', name: textAt(name, nameLen), resource: textAt(res, resLen), type: textAt(type, typeLen), traceId: 0n, spanId: 0n, parentId: 0n, start: 0n, duration: 0n, error: 0, meta, metrics: new Map(), links: [], events: [] };
  return spanName(span, new Remaining(meta));
}

function bytesEqual(a: number, an: number, c: number, cn: number): boolean {
  if (an !== cn) return false;
  for (let i = 0; i < an; i++) if (b[a + i] !== b[c + i]) return false;
  return true;
}

/** Spans in the body transcode() read last. */
export let transcodedSpans = 0;

/** What the tracer's request headers say about its process (the payload's resource). */
let payload: [string, string | number][] = [];
let lastHeaders: IncomingHttpHeaders | undefined;

/**
 * The body as one ExportTraceServiceRequest; `headers` are the request's (lower-case). With
 * `write` false it stops after the read pass (to tell the two passes' costs apart) and returns nothing.
 */
export function transcode(body: Uint8Array, headers: IncomingHttpHeaders, write = true): Uint8Array | undefined {
  if (headers !== lastHeaders) {
    payload = [...payloadResource(tracerPayloadFromHeaders(headers), undefined)].map(([k, v]) => [k, (v as { string?: string }).string ?? Number((v as { int?: bigint }).int)]);
    lastHeaders = headers;
  }
  // one kind of array behind every byte read: a Buffer here and a Uint8Array there would make each load polymorphic
  b = new Uint8Array(body.buffer, body.byteOffset, body.length);
  p = 0;
  q = 0;
  // pass 1: every span read once; each chunk learns its trace id's high half, priority and inherited tags
  const chunks: Chunk[] = [];
  let spans = 0;
  let entries = 0;
  for (let t = arrayLength(); t > 0; t--) {
    const chunk: Chunk = { id: 0, tidHigh: undefined, priority: undefined, decisionSpan: -1, rate: 1, inherited: [], first: spans, end: spans };
    for (let n = arrayLength(); n > 0; n--) entries = readSpan(spans++, entries, chunk);
    chunk.end = spans;
    const inherited = chunk.inherited.map(([k, v]) => `${k}=${v}`).join('\u0000');
    chunk.id = inheritedIds.get(inherited) ?? inheritedIds.set(inherited, inheritedIds.size).size - 1;
    chunks.push(chunk);
  }
  transcodedSpans = spans;
  if (!write) return undefined;
  // room for the worst case (a typed array drops writes past its end without a word): a span's
  // bytes at most twice (name, resource and type are written twice) and its framing
  const room = 2 * body.length + 256 * spans;
  if (o.length < room) o = new Uint8Array(room);
  // pass 2: each span written under its resource
  const groups = new Map<number, Group>();
  for (const chunk of chunks) for (let s = chunk.first; s < chunk.end; s++) writeSpan(s, chunk, groups);
  // ResourceSpans{resource{attributes}, scope_spans{spans}} per group, the spans copied in after their headers
  const heads: Buffer[] = [];
  let size = 0;
  for (const g of groups.values()) {
    let spanBytes = 0;
    for (let i = 0; i < g.spans.length; i += 2) spanBytes += (g.spans[i + 1] as number) - (g.spans[i] as number);
    const head = resourceHead(g.resource, spanBytes);
    heads.push(head);
    size += head.length + spanBytes;
  }
  const out = Buffer.allocUnsafe(size);
  const written = Buffer.from(o.buffer, o.byteOffset, q);
  let w = 0;
  let i = 0;
  for (const g of groups.values()) {
    w += (heads[i++] as Buffer).copy(out, w);
    for (let j = 0; j < g.spans.length; j += 2) w += written.copy(out, w, g.spans[j] as number, g.spans[j + 1] as number);
  }
  return out;
}

/** A group's ResourceSpans{resource, scope_spans} up to its spans, which follow it: built once a group a body. */
function resourceHead(attrs: [string, string | number][], spanBytes: number): Buffer {
  const r = new ProtoWriter(1024);
  for (const [key, value] of attrs) {
    const kv = r.beginLen(1);
    r.stringField(1, key);
    const any = r.beginLen(2);
    if (typeof value === 'number') r.int64Field(3, BigInt(value));
    else r.stringField(1, value);
    r.endLen(any);
    r.endLen(kv);
  }
  const resource = r.bytes();
  const head = new ProtoWriter(resource.length + 32);
  head.lenPrefix(1, lenFieldSize(1, resource.length) + lenFieldSize(2, spanBytes));
  head.lenPrefix(1, resource.length);
  head.raw(resource);
  head.lenPrefix(2, spanBytes);
  return head.bytes();
}

// ------------------------------------------------------------------ check, then measure

type Flat = Record<string, unknown>;
const REQUEST = lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

const anyValue = (v: Flat): unknown => v.stringValue ?? v.doubleValue ?? v.intValue ?? v.boolValue;
/** Attributes as sorted [key, value] pairs: compared as sets, whatever order each side wrote them in. */
const entries = (list: Flat[] | undefined): [unknown, unknown][] => (list ?? []).map((kv): [unknown, unknown] => [kv.key, anyValue(kv.value as Flat)]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));

/** spanId → what this estimate promises to get right about it, in one canonical form for both sides. */
function spansOf(bodies: Uint8Array[]): Map<string, Flat> {
  const out = new Map<string, Flat>();
  for (const body of bodies) {
    const request = REQUEST.toObject(REQUEST.decode(body), { longs: String, bytes: String, defaults: false }) as { resourceSpans: Flat[] };
    for (const rs of request.resourceSpans) {
      const resource = entries((rs.resource as Flat | undefined)?.attributes as Flat[]);
      for (const ss of rs.scopeSpans as Flat[]) {
        for (const sp of ss.spans as Flat[]) {
          out.set(sp.spanId as string, {
            resource,
            traceId: sp.traceId,
            parentSpanId: sp.parentSpanId,
            name: sp.name,
            kind: sp.kind,
            start: sp.startTimeUnixNano,
            end: sp.endTimeUnixNano,
            attributes: entries(sp.attributes as Flat[]),
            status: (sp.status as Flat | undefined)?.code,
          });
        }
      }
    }
  }
  return out;
}

async function main(): Promise<void> {
  const value = (name: string, fallback: number): number => (process.argv.includes(`--${name}`) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : fallback);
  const [seconds, rounds] = [value('seconds', 3), value('rounds', 3)];
  const scenario = await buildScenario('traces', 1000, 8);
  const route = scenarioRoute(scenario);
  const bodies = scenario.payloads.map((p) => p.body);
  const headers = (await intakeRequest(scenario, 0)).headers;
  // the check: every span as the real route has it
  let spans = 0;
  for (let i = 0; i < bodies.length; i++) {
    const real = new KeepingExporter();
    await serveOnce(route, scenario, i, routeContext(), real);
    const expected = spansOf(real.kept.map((r) => r.body));
    const actual = spansOf([transcode(bodies[i] as Uint8Array, headers) as Uint8Array]);
    if (actual.size !== expected.size) throw new Error(`body ${i}: ${actual.size} spans, the route has ${expected.size}`);
    for (const [id, span] of expected) {
      const [theirs, mine] = [JSON.stringify(span), JSON.stringify(actual.get(id))];
      if (mine !== theirs) throw new Error(`body ${i}, span ${id} differs:\n  route:     ${theirs}\n  transcode: ${mine}`);
      spans++;
    }
  }
  process.stdout.write(`checked: ${spans} spans match the route's (names, kinds, ids, times, status, attributes, resources)${nonAscii ? `; ${nonAscii} non-ASCII values` : ''}\n`);
  // the measurement: CPU per span, the route (parse, translate, encode) and the transcoder alternating
  const perSpan = async (run: (i: number) => unknown): Promise<number> => {
    for (let i = 0; i < 40; i++) await run(i);
    const cpu = process.cpuUsage();
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < seconds * 1000) await run(n++);
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / (n * 1000);
  };
  const ctx = routeContext();
  const viaRoute = (i: number): Promise<unknown> => serveOnce(route, scenario, i % 8, ctx);
  const viaTranscoder = (i: number): unknown => transcode(bodies[i % 8] as Uint8Array, headers);
  for (let round = 1; round <= rounds; round++) {
    const [r, t] = [await perSpan(viaRoute), await perSpan(viaTranscoder)];
    const read = await perSpan((i) => transcode(bodies[i % 8] as Uint8Array, headers, false));
    const [walk, copying] = [await perSpan((i) => walkBody(bodies[i % 8] as Uint8Array, false)), await perSpan((i) => walkBody(bodies[i % 8] as Uint8Array, true))];
    process.stdout.write(
      `round ${round}: route ${r.toFixed(2)} µs per span, transcoder ${t.toFixed(2)} µs per span (${(r / t).toFixed(1)}× less; its read pass ${read.toFixed(2)}); ` + `a bare walk of the body ${walk.toFixed(3)}, copying every string ${copying.toFixed(3)}\n`,
    );
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
