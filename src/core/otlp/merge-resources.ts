/**
 * Encoded export requests of one signal merged into one, with the records of equal resources and
 * scopes under one ResourceX and one ScopeX, at the byte level (nothing is decoded but the
 * framing). Small intake requests each bring their own copy of the same few resources (a logs
 * batch of 10 held 8.6 ResourceLogs, 45 % of its bytes): merged by concatenation, the collector
 * decodes and the exporter writes each copy again; merged here, once per export.
 *
 * Logs, traces and metrics share the layout this reads: Export*ServiceRequest { repeated ResourceX
 * = 1 }, ResourceX { resource = 1; repeated ScopeX = 2; schema_url = 3 }, ScopeX { scope = 1;
 * repeated record = 2; schema_url = 3 }. Resources (and scopes) are equal when their bytes and
 * schema URL are; records keep their order within a resource and scope, and groups their
 * first-seen order. A request with any other field (or a malformed one) is not merged: the caller
 * then concatenates the requests as they are.
 */

const LEN = 2;
const RESOURCE_LIST = (1 << 3) | LEN;
const HEAD = (1 << 3) | LEN;
const CHILDREN = (2 << 3) | LEN;
const SCHEMA = (3 << 3) | LEN;

/** A length-delimited field's value in its body: [start, end). */
type Span = [bytes: Uint8Array, start: number, end: number];

interface Group {
  head: Span | undefined;
  schema: Span | undefined;
}

interface ScopeGroup extends Group {
  /** each record with its tag and length prefix, copied as it is */
  records: Span[];
  size: number;
}

interface ResourceGroup extends Group {
  scopes: Map<string, ScopeGroup>;
}

class Malformed extends Error {}

const varintSize = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x20_0000 ? 3 : n < 0x1000_0000 ? 4 : 5);
const fieldSize = (length: number): number => 1 + varintSize(length) + length;
const spanLength = (s: Span | undefined): number => (s ? s[2] - s[1] : 0);
const optionalSize = (s: Span | undefined): number => (s ? fieldSize(spanLength(s)) : 0);

function varint(bytes: Uint8Array, at: { pos: number }, end: number): number {
  let value = 0;
  for (let scale = 1; scale < 2 ** 35; scale *= 128) {
    if (at.pos >= end) throw new Malformed();
    const byte = bytes[at.pos++] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
  }
  throw new Malformed();
}

/** Calls `each(key, value)` for every field of the message in [start, end); only length-delimited fields of one-byte keys are known here. */
function fields(bytes: Uint8Array, start: number, end: number, each: (key: number, value: Span, fieldStart: number) => void): void {
  const at = { pos: start };
  while (at.pos < end) {
    const fieldStart = at.pos;
    const key = varint(bytes, at, end);
    if ((key & 7) !== LEN || key > 0x7f) throw new Malformed();
    const length = varint(bytes, at, end);
    if (at.pos + length > end) throw new Malformed();
    each(key, [bytes, at.pos, at.pos + length], fieldStart);
    at.pos += length;
  }
}

const keyOf = (head: Span | undefined, schema: Span | undefined): string => {
  const text = (s: Span | undefined): string => (s ? Buffer.from(s[0].buffer, s[0].byteOffset + s[1], s[2] - s[1]).toString('latin1') : '');
  // presence counts: an absent resource and an empty one are told apart
  return `${head ? 'h' : '-'}${text(head)}\u0000${schema ? 's' : '-'}${text(schema)}`;
};

function readScope(resource: ResourceGroup, scope: Span): void {
  const [bytes, start, end] = scope;
  let head: Span | undefined;
  let schema: Span | undefined;
  const records: Span[] = [];
  fields(bytes, start, end, (key, value, fieldStart) => {
    if (key === HEAD) head = value;
    else if (key === CHILDREN) records.push([bytes, fieldStart, value[2]]);
    else if (key === SCHEMA) schema = value;
    else throw new Malformed();
  });
  const k = keyOf(head, schema);
  let group = resource.scopes.get(k);
  if (!group) resource.scopes.set(k, (group = { head, schema, records: [], size: 0 }));
  for (const r of records) {
    group.records.push(r);
    group.size += r[2] - r[1];
  }
}

function readResource(groups: Map<string, ResourceGroup>, resource: Span): void {
  const [bytes, start, end] = resource;
  let head: Span | undefined;
  let schema: Span | undefined;
  const scopes: Span[] = [];
  fields(bytes, start, end, (key, value) => {
    if (key === HEAD) head = value;
    else if (key === CHILDREN) scopes.push(value);
    else if (key === SCHEMA) schema = value;
    else throw new Malformed();
  });
  const k = keyOf(head, schema);
  let group = groups.get(k);
  if (!group) groups.set(k, (group = { head, schema, scopes: new Map() }));
  for (const scope of scopes) readScope(group, scope);
}

const scopeSize = (s: ScopeGroup): number => optionalSize(s.head) + s.size + optionalSize(s.schema);
const resourceSize = (r: ResourceGroup): number => {
  let size = optionalSize(r.head) + optionalSize(r.schema);
  for (const s of r.scopes.values()) size += fieldSize(scopeSize(s));
  return size;
};

class Out {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }
  span(s: Span): void {
    this.buf.set(s[0].subarray(s[1], s[2]), this.pos);
    this.pos += s[2] - s[1];
  }
  field(key: number, s: Span | undefined): void {
    if (!s) return;
    this.buf[this.pos++] = key;
    this.varint(s[2] - s[1]);
    this.span(s);
  }
}

/** The requests as one, equal resources and scopes merged; undefined when one holds anything else than this reads. */
export function mergeByResource(bodies: readonly Uint8Array[]): Buffer | undefined {
  const groups = new Map<string, ResourceGroup>();
  try {
    for (const body of bodies)
      fields(body, 0, body.length, (key, value) => {
        if (key !== RESOURCE_LIST) throw new Malformed();
        readResource(groups, value);
      });
  } catch (err) {
    if (err instanceof Malformed) return undefined;
    throw err;
  }
  let total = 0;
  for (const r of groups.values()) total += fieldSize(resourceSize(r));
  const out = new Out(Buffer.allocUnsafe(total));
  for (const r of groups.values()) {
    out.buf[out.pos++] = RESOURCE_LIST;
    out.varint(resourceSize(r));
    out.field(HEAD, r.head);
    for (const s of r.scopes.values()) {
      out.buf[out.pos++] = CHILDREN;
      out.varint(scopeSize(s));
      out.field(HEAD, s.head);
      for (const record of s.records) out.span(record);
      out.field(SCHEMA, s.schema);
    }
    out.field(SCHEMA, r.schema);
  }
  return out.buf;
}
