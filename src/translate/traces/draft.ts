/**
 * A span in translation. Steps take a draft and return a new one; each consumes the meta and
 * metrics keys it turned into OTLP structure (ids, kind, status, links, resource, …), so whatever
 * is left at the end becomes span attributes and nothing is said twice.
 */
import type { DdSpan, DdTraceChunk } from '../../datadog/traces';
import { SpanKind, type SpanEvent, type SpanLink, type StatusCode } from '../../otlp/model';
export { without } from '../map-view';
import type { AttributeMap } from '../resource-promotion';
import type { TraceIdCache } from '../trace-id';

export interface SpanDraft {
  readonly span: DdSpan;
  /** Not yet consumed meta: the chunk's tags underneath the span's own. */
  meta: ReadonlyMap<string, string>;
  metrics: ReadonlyMap<string, number>;
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array;
  name: string;
  kind: SpanKind;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  status?: { code: StatusCode; message?: string };
  events: SpanEvent[];
  links: SpanLink[];
  /** This span's resource attributes, most specific first. */
  resource: AttributeMap;
  /** Attributes steps derived; the remaining meta and metrics follow them. */
  attributes: AttributeMap;
}

export interface SpanContext {
  traceIds: TraceIdCache;
  /** low → high 64 bits of every trace id whose `_dd.p.tid` this payload carries (look-ahead). */
  highs: ReadonlyMap<bigint, bigint>;
  receivedAtNs: bigint;
  /** Resource attributes every span of the chunk inherits: its process's, its payload's, its agent's. */
  inheritedResource: AttributeMap;
  /** The chunk's sampling priority, when anyone set one. */
  samplingPriority: number | undefined;
  /**
   * Resources already built for this chunk, by service and own attributes (see the resource
   * step): spans of one process share one map instead of building an equal one each.
   */
  resources: Map<string, AttributeMap>;
}

export type SpanStep = (draft: SpanDraft, ctx: SpanContext) => SpanDraft;

const NO_ID = new Uint8Array(0);

export function createSpanDraft(span: DdSpan, chunk: DdTraceChunk): SpanDraft {
  return {
    span,
    meta: chunk.tags.size === 0 ? span.meta : new Map([...chunk.tags, ...span.meta]),
    metrics: span.metrics,
    traceId: NO_ID,
    spanId: NO_ID,
    name: span.name,
    kind: SpanKind.Unspecified,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    events: [],
    links: [],
    resource: new Map(),
    attributes: new Map(),
  };
}

/** The first of `keys` with a non-empty value. */
export function firstOf(map: ReadonlyMap<string, string>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = map.get(k);
    if (v) return v;
  }
  return undefined;
}
