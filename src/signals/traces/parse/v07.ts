/**
 * /v0.7/traces: one msgpack map that is a whole TracerPayload with snake_case keys;
 * chunks carry their own priority, origin and tags.
 */
import { chunkOf, emptyTracerPayload, type DdTraceChunk, type DdTracerPayload } from '../datadog';
import { decodeMsgpack } from '../../../core/wire/msgpack';
import { parsing } from './body';
import { bool, each, int, parseFields, str, stringMap, setters, type FieldSetters } from './fields';
import { parseSpanMap } from './span-map';
import { withHeaderIdentity } from './tracer-headers';

const CHUNK_FIELDS: FieldSetters<DdTraceChunk> = setters<DdTraceChunk>([
  ['priority', (c, v) => (c.priority = int(v))],
  ['origin', (c, v) => (c.origin = str(v))],
  ['spans', (c, v) => (c.spans = each(v, parseSpanMap))],
  ['tags', (c, v) => (c.tags = stringMap(v))],
  ['dropped_trace', (c, v) => (c.droppedTrace = bool(v))],
]);

const PAYLOAD_FIELDS: FieldSetters<DdTracerPayload> = setters<DdTracerPayload>([
  ['container_id', (p, v) => (p.containerId = str(v))],
  ['language_name', (p, v) => (p.languageName = str(v))],
  ['language_version', (p, v) => (p.languageVersion = str(v))],
  ['tracer_version', (p, v) => (p.tracerVersion = str(v))],
  ['runtime_id', (p, v) => (p.runtimeId = str(v))],
  ['chunks', (p, v) => (p.chunks = each(v, (chunk) => parseFields(chunk, chunkOf([]), CHUNK_FIELDS)))],
  ['tags', (p, v) => (p.tags = stringMap(v))],
  ['env', (p, v) => (p.env = str(v))],
  ['hostname', (p, v) => (p.hostname = str(v))],
  ['app_version', (p, v) => (p.appVersion = str(v))],
]);

/** Fields the body leaves empty are taken from the request headers (`identity`). */
export function parseV07Payload(body: Buffer, identity: DdTracerPayload, what: string): DdTracerPayload {
  return parsing(what, () => withHeaderIdentity(parseFields(decodeMsgpack(body), emptyTracerPayload(), PAYLOAD_FIELDS), identity));
}
