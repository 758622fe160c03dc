/**
 * POST /api/v0.2/traces from the trace-agent: protobuf `AgentPayload`,
 * with tracer payloads in the classic form (field 5) and/or the idx string-table form (field 11,
 * what recent agents send by default; the upstream receiver ignores it).
 * Agent-level host, env and tags are kept: the translator uses them as defaults for every tracer
 * payload (upstream drops them). Legacy `traces` (field 3, pre-2021 agents) are not read.
 */
import { chunkOf, emptySpan, emptySpanEvent, emptySpanLink, emptyTracerPayload, type DdAgentInfo, type DdAttributeValue, type DdSpan, type DdSpanEvent, type DdSpanLink, type DdTraceChunk, type DdTracePayload, type DdTracerPayload } from '../datadog';
import { bytes, decodeProtobuf, fixed64, message, readFields, text, varint, type FieldReader } from '../../../core/wire/proto-fields';
import type { ProtoReader } from '../../../core/wire/proto-reader';
import { parseIdxTracerPayload } from './idx';

const WHAT = 'agent traces';

export function decodeAgentPayload(body: Uint8Array): DdTracePayload {
  return decodeProtobuf(WHAT, body, 'AgentPayload', (r) => {
    const agent: DdAgentInfo = { hostName: '', env: '', agentVersion: '', tags: new Map() };
    const tracerPayloads: DdTracerPayload[] = [];
    let idx = 0;
    readFields(r, {
      1: text((v) => (agent.hostName = v)),
      2: text((v) => (agent.env = v)),
      5: message(
        () => `tracerPayloads[${tracerPayloads.length}]`,
        (m) => tracerPayloads.push(tracerPayloadFrom(m)),
      ),
      6: mapEntry('tags', stringValue, '', agent.tags),
      7: text((v) => (agent.agentVersion = v)),
      11: bytes((v) => tracerPayloads.push(parseIdxTracerPayload(v, `AgentPayload.idxTracerPayloads[${idx++}]`))),
    });
    return { tracerPayloads, agent };
  });
}

/** Reads the value of a map entry (field 2) of one wire kind. */
type ValueReader<V> = (set: (value: V) => void) => FieldReader;

const stringValue: ValueReader<string> = text;
const doubleValue: ValueReader<number> = (set) => fixed64((m) => set(m.double()));

/** One entry of a `map<string, V>` field: key = field 1, value = field 2. */
function mapEntry<V>(name: string, value: ValueReader<V>, zero: V, into: Map<string, V>): FieldReader {
  return message(
    () => name,
    (m) => {
      let key = '';
      let v = zero;
      readFields(m, { 1: text((k) => (key = k)), 2: value((x) => (v = x)) });
      into.set(key, v);
    },
  );
}

function tracerPayloadFrom(r: ProtoReader): DdTracerPayload {
  const p = emptyTracerPayload();
  readFields(r, {
    1: text((v) => (p.containerId = v)),
    2: text((v) => (p.languageName = v)),
    3: text((v) => (p.languageVersion = v)),
    4: text((v) => (p.tracerVersion = v)),
    5: text((v) => (p.runtimeId = v)),
    6: message(
      () => `chunks[${p.chunks.length}]`,
      (m) => p.chunks.push(chunkFrom(m)),
    ),
    7: mapEntry('tags', stringValue, '', p.tags),
    8: text((v) => (p.env = v)),
    9: text((v) => (p.hostname = v)),
    10: text((v) => (p.appVersion = v)),
  });
  return p;
}

function chunkFrom(r: ProtoReader): DdTraceChunk {
  const c = chunkOf([]);
  readFields(r, {
    1: varint((m) => (c.priority = m.int32())),
    2: text((v) => (c.origin = v)),
    3: message(
      () => `spans[${c.spans.length}]`,
      (m) => c.spans.push(spanFrom(m)),
    ),
    4: mapEntry('tags', stringValue, '', c.tags),
    5: varint((m) => (c.droppedTrace = m.bool())),
  });
  return c;
}

function spanFrom(r: ProtoReader): DdSpan {
  const s = emptySpan();
  readFields(r, {
    1: text((v) => (s.service = v)),
    2: text((v) => (s.name = v)),
    3: text((v) => (s.resource = v)),
    4: varint((m) => (s.traceId = m.uint64())),
    5: varint((m) => (s.spanId = m.uint64())),
    6: varint((m) => (s.parentId = m.uint64())),
    7: varint((m) => (s.start = m.int64())),
    8: varint((m) => (s.duration = m.int64())),
    9: varint((m) => (s.error = m.int32())),
    10: mapEntry('meta', stringValue, '', s.meta),
    11: mapEntry('metrics', doubleValue, 0, s.metrics),
    12: text((v) => (s.type = v)),
    14: message(
      () => `spanLinks[${s.links.length}]`,
      (m) => s.links.push(linkFrom(m)),
    ),
    15: message(
      () => `spanEvents[${s.events.length}]`,
      (m) => s.events.push(eventFrom(m)),
    ),
  });
  return s;
}

function linkFrom(r: ProtoReader): DdSpanLink {
  const l = emptySpanLink();
  readFields(r, {
    1: varint((m) => (l.traceId = m.uint64())),
    2: varint((m) => (l.traceIdHigh = m.uint64())),
    3: varint((m) => (l.spanId = m.uint64())),
    4: mapEntry('attributes', stringValue, '', l.attributes),
    5: text((v) => (l.tracestate = v)),
    6: varint((m) => (l.flags = m.uint32())),
  });
  return l;
}

function eventFrom(r: ProtoReader): DdSpanEvent {
  const e = emptySpanEvent();
  readFields(r, {
    1: fixed64((m) => (e.timeUnixNano = m.fixed64())),
    2: text((v) => (e.name = v)),
    3: mapEntry(
      'attributes',
      (set) =>
        message(
          () => 'value',
          (m) => set(typedValueFrom(m)),
        ),
      '' as DdAttributeValue,
      e.attributes,
    ),
  });
  return e;
}

/**
 * AttributeAnyValue / AttributeArrayValue: a `type` tag and one value field per type, the unused
 * ones absent. proto3 omits zero values, so an absent value field is that type's zero. An
 * AttributeArrayValue (`inArray`) has no array field: arrays do not nest.
 */
function typedValueFrom(r: ProtoReader, inArray = false): DdAttributeValue {
  let type = 0;
  let string = '';
  let flag = false;
  let integer = 0n;
  let double = 0;
  const items: DdAttributeValue[] = [];
  const readers: Record<number, FieldReader> = {
    1: varint((m) => (type = m.int32())),
    2: text((v) => (string = v)),
    3: varint((m) => (flag = m.bool())),
    4: varint((m) => (integer = m.int64())),
    5: fixed64((m) => (double = m.double())),
  };
  if (!inArray) {
    readers[6] = message(
      () => 'array_value',
      (m) =>
        readFields(m, {
          1: message(
            () => `values[${items.length}]`,
            (v) => items.push(typedValueFrom(v, true)),
          ),
        }),
    );
  }
  readFields(r, readers);
  const value = [string, flag, integer, double, inArray ? undefined : items][type];
  if (value === undefined) r.fail(`attribute type ${type} is not one of 0 (string) to ${inArray ? '3 (double)' : '4 (array)'}`);
  return value;
}
