/**
 * The idx data model once decoded, shared by its two wire forms: protobuf inside the trace-agent's
 * AgentPayload (idx.ts) and msgpack with field numbers as keys on /v1.0/traces (v1.ts). Both turn
 * it into the classic model so one translator serves every form: string and bool attributes
 * become meta, numbers become metrics, the rest (bytes, arrays, maps) meta as text; the span's
 * env, version, component and kind fields become the meta tags the classic form uses for them,
 * and a chunk's full 128-bit trace id and sampling mechanism what the classic chunk says of them.
 */
import type { DdAttributeValue, DdSpan, DdTraceChunk } from '../datadog';

/** idx SpanKind (OTLP numbering) → the `span.kind` tag value. */
const SPAN_KINDS = ['', 'internal', 'server', 'client', 'producer', 'consumer'];

export function textOf(v: DdAttributeValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (typeof v !== 'object') return String(v);
  return JSON.stringify(jsonOf(v));
}

function jsonOf(v: DdAttributeValue): unknown {
  if (Array.isArray(v)) return v.map(jsonOf);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, jsonOf(x)]));
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
  return v instanceof Uint8Array ? textOf(v) : v;
}

export const textMap = (attributes: Map<string, DdAttributeValue>): Map<string, string> => new Map([...attributes].map(([k, v]) => [k, textOf(v)]));

/** A trace id as idx carries it: 16 bytes, big-endian → [high, low]. `fail` throws the form's own error. */
export function traceIdHalves(id: Uint8Array, fail: (message: string) => never): [bigint, bigint] {
  if (id.length !== 16) fail(`traceID must be 16 bytes, got ${id.length}`);
  const view = new DataView(id.buffer, id.byteOffset, 16);
  return [view.getBigUint64(0), view.getBigUint64(8)];
}

/** A span's typed attributes and dedicated tag fields, as the decoder collected them. */
export interface IdxSpanParts {
  span: DdSpan;
  attributes: Map<string, DdAttributeValue>;
  /** env, version, component: the classic meta key → value */
  tags: Map<string, string>;
  kind: number;
}

export function classicSpan({ span, attributes, tags, kind }: IdxSpanParts): DdSpan {
  for (const [k, v] of attributes) {
    if (typeof v === 'number' || typeof v === 'bigint') span.metrics.set(k, Number(v));
    else span.meta.set(k, textOf(v));
  }
  for (const [k, v] of tags) if (v !== '') span.meta.set(k, v);
  if (SPAN_KINDS[kind]) span.meta.set('span.kind', SPAN_KINDS[kind] as string);
  return span;
}

/** A chunk's typed attributes, sampling mechanism and full trace id, as the decoder collected them. */
export interface IdxChunkParts {
  chunk: DdTraceChunk;
  attributes: Map<string, DdAttributeValue>;
  /** formerly the `_dd.p.dm` tag, without its leading `-` */
  mechanism: number;
  traceId: Uint8Array | undefined;
}

export function classicChunk({ chunk, attributes, mechanism, traceId }: IdxChunkParts, fail: (message: string) => never): DdTraceChunk {
  chunk.tags = textMap(attributes);
  if (mechanism !== 0) chunk.tags.set('_dd.p.dm', `-${mechanism}`);
  if (traceId !== undefined && traceId.length > 0) {
    const [high, low] = traceIdHalves(traceId, fail);
    chunk.traceIdHigh = high;
    for (const span of chunk.spans) span.traceId = low;
  }
  return chunk;
}
