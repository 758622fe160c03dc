/**
 * The idx TracerPayload as protobuf (inside the trace-agent's AgentPayload): every string is a
 * uint32 index into the payload's `strings` table, spans carry typed attributes instead of meta
 * and metrics, and a chunk carries its full 128-bit trace id once instead of `trace_id` on every
 * span. Turned into the classic model by idx-model.ts, which /v1.0/traces (v1.ts) shares.
 */
import { chunkOf, emptySpan, emptySpanEvent, emptySpanLink, emptyTracerPayload, type DdAttributeValue, type DdSpan, type DdSpanEvent, type DdSpanLink, type DdTraceChunk, type DdTracerPayload } from '../datadog';
import { bytes, fixed64, message, readFields, text, varint, type FieldReader } from '../../../core/wire/proto-fields';
import { ProtoReader } from '../../../core/wire/proto-reader';
import { classicChunk, classicSpan, textMap, traceIdHalves } from './idx-model';

/** Arrays and key-value lists nest; a hostile body must not nest them until the stack runs out. */
const MAX_VALUE_DEPTH = 32;

/** Field readers that resolve string refs against one payload's table. */
class Strings {
  constructor(private readonly table: readonly string[]) {}

  at(r: ProtoReader): string {
    const index = r.uint32();
    const s = this.table[index];
    if (s === undefined) r.fail(`string ref ${index} is outside the string table (${this.table.length} entries)`);
    return s;
  }

  ref(set: (value: string) => void): FieldReader {
    return varint((m) => set(this.at(m)));
  }

  /** One entry of a `map<uint32 ref, AnyValue>` field. */
  attribute(into: Map<string, DdAttributeValue>, depth = 0): FieldReader {
    return message(
      () => 'attributes',
      (m) => {
        let key = '';
        let value: DdAttributeValue = '';
        readFields(m, {
          1: this.ref((k) => (key = k)),
          2: message(
            () => key || 'value',
            (v) => (value = this.anyValue(v, depth)),
          ),
        });
        into.set(key, value);
      },
    );
  }

  anyValue(r: ProtoReader, depth: number): DdAttributeValue {
    if (depth >= MAX_VALUE_DEPTH) r.fail(`values nested deeper than ${MAX_VALUE_DEPTH} levels`);
    let value: DdAttributeValue = '';
    const items: DdAttributeValue[] = [];
    const entries = new Map<string, DdAttributeValue>();
    readFields(r, {
      1: this.ref((v) => (value = v)),
      2: varint((m) => (value = m.bool())),
      3: fixed64((m) => (value = m.double())),
      4: varint((m) => (value = m.int64())),
      5: bytes((v) => (value = v)),
      6: message(
        () => 'arrayValue',
        (m) => {
          readFields(m, {
            1: message(
              () => `values[${items.length}]`,
              (v) => items.push(this.anyValue(v, depth + 1)),
            ),
          });
          value = items;
        },
      ),
      7: message(
        () => 'keyValueList',
        (m) => {
          readFields(m, { 1: this.attribute(entries, depth + 1) });
          value = entries;
        },
      ),
    });
    return value;
  }
}

export function parseIdxTracerPayload(body: Uint8Array, path: string): DdTracerPayload {
  const table: string[] = [];
  readFields(new ProtoReader(body, 0, body.length, path), { 1: text((v) => table.push(v)) });
  const strings = new Strings(table);
  const p = emptyTracerPayload();
  const attributes = new Map<string, DdAttributeValue>();
  readFields(new ProtoReader(body, 0, body.length, path), {
    2: strings.ref((v) => (p.containerId = v)),
    3: strings.ref((v) => (p.languageName = v)),
    4: strings.ref((v) => (p.languageVersion = v)),
    5: strings.ref((v) => (p.tracerVersion = v)),
    6: strings.ref((v) => (p.runtimeId = v)),
    7: strings.ref((v) => (p.env = v)),
    8: strings.ref((v) => (p.hostname = v)),
    9: strings.ref((v) => (p.appVersion = v)),
    10: strings.attribute(attributes),
    11: message(
      () => `chunks[${p.chunks.length}]`,
      (m) => p.chunks.push(chunkFrom(m, strings)),
    ),
  });
  return { ...p, tags: textMap(attributes) };
}

function chunkFrom(r: ProtoReader, strings: Strings): DdTraceChunk {
  const c = chunkOf([]);
  const attributes = new Map<string, DdAttributeValue>();
  let traceId: Uint8Array | undefined;
  let mechanism = 0;
  readFields(r, {
    1: varint((m) => (c.priority = m.int32())),
    2: strings.ref((v) => (c.origin = v)),
    3: strings.attribute(attributes),
    4: message(
      () => `spans[${c.spans.length}]`,
      (m) => c.spans.push(spanFrom(m, strings)),
    ),
    5: varint((m) => (c.droppedTrace = m.bool())),
    6: bytes((v) => (traceId = v)),
    7: varint((m) => (mechanism = m.uint32())),
  });
  return classicChunk({ chunk: c, attributes, mechanism, traceId }, (m) => r.fail(m));
}

function spanFrom(r: ProtoReader, strings: Strings): DdSpan {
  const s = emptySpan();
  const attributes = new Map<string, DdAttributeValue>();
  const tags = new Map<string, string>();
  const tag = (key: string): FieldReader => strings.ref((v) => tags.set(key, v));
  let kind = 0;
  readFields(r, {
    1: strings.ref((v) => (s.service = v)),
    2: strings.ref((v) => (s.name = v)),
    3: strings.ref((v) => (s.resource = v)),
    4: fixed64((m) => (s.spanId = m.fixed64())),
    5: varint((m) => (s.parentId = m.uint64())),
    6: fixed64((m) => (s.start = BigInt.asIntN(64, m.fixed64()))),
    7: varint((m) => (s.duration = BigInt.asIntN(64, m.uint64()))),
    8: varint((m) => (s.error = m.bool() ? 1 : 0)),
    9: strings.attribute(attributes),
    10: strings.ref((v) => (s.type = v)),
    11: message(
      () => `links[${s.links.length}]`,
      (m) => s.links.push(linkFrom(m, strings)),
    ),
    12: message(
      () => `events[${s.events.length}]`,
      (m) => s.events.push(eventFrom(m, strings)),
    ),
    13: tag('env'),
    14: tag('version'),
    15: tag('component'),
    16: varint((m) => (kind = m.int32())),
  });
  return classicSpan({ span: s, attributes, tags, kind });
}

function linkFrom(r: ProtoReader, strings: Strings): DdSpanLink {
  const l = emptySpanLink();
  const attributes = new Map<string, DdAttributeValue>();
  readFields(r, {
    1: bytes((v) => ([l.traceIdHigh, l.traceId] = traceIdHalves(v, (m) => r.fail(m)))),
    2: fixed64((m) => (l.spanId = m.fixed64())),
    3: strings.attribute(attributes),
    4: strings.ref((v) => (l.tracestate = v)),
    5: varint((m) => (l.flags = m.uint32())),
  });
  return { ...l, attributes: textMap(attributes) };
}

function eventFrom(r: ProtoReader, strings: Strings): DdSpanEvent {
  const e = emptySpanEvent();
  readFields(r, {
    1: fixed64((m) => (e.timeUnixNano = m.fixed64())),
    2: strings.ref((v) => (e.name = v)),
    3: strings.attribute(e.attributes),
  });
  return e;
}
