/**
 * A span in translation. The chain creates one draft per span and passes it through every step;
 * a step fills in what it decides and returns the same draft. Steps write into the draft rather
 * than return copies because copying a draft and its maps at every step was the traces path's
 * largest source of garbage; that is safe because the draft, its `attributes` map and its
 * `meta`/`metrics` views are created for this span and nothing but the chain holds them. Each
 * step consumes the meta and metrics keys it turned into OTLP structure (ids, kind, status, links,
 * resource, …), so whatever is left at the end becomes span attributes and nothing is said twice.
 */
import type { DdSpan, DdTraceChunk } from './datadog';
import { SpanKind, type AnyValue, type InstrumentationScope, type SpanEvent, type SpanLink, type StatusCode } from '../../core/otlp/model';
import type { AttributeMap } from '../shared/resource-promotion';
import type { TraceIdCache } from '../shared/trace-id';
import type { Step } from '../shared/step';
import type { LastIds } from './last-id';
import type { MemoTrie } from '../shared/memo-trie';
import type { ServiceIdentities } from './service-identity';

/** Shared by every view that consumed nothing; never written to. */
const NOTHING_GONE: string[] = [];

/**
 * A span's meta or metrics minus the keys steps consumed. The span's map is shared, not copied:
 * consuming a key only notes it, and a draft consumes a handful.
 */
export class Remaining<V> {
  /** NOTHING_GONE until a key is consumed: most metrics views never are */
  private gone: string[] = NOTHING_GONE;

  constructor(private readonly base: ReadonlyMap<string, V>) {}

  get(key: string): V | undefined {
    return this.gone.length > 0 && this.gone.includes(key) ? undefined : this.base.get(key);
  }

  has(key: string): boolean {
    return this.base.has(key) && !this.gone.includes(key);
  }

  consume(key: string): void {
    if (!this.has(key)) return;
    if (this.gone === NOTHING_GONE) this.gone = [key];
    else this.gone.push(key);
  }

  forEach(visit: (value: V, key: string) => void): void {
    this.base.forEach((value, key) => {
      if (this.gone.length === 0 || !this.gone.includes(key)) visit(value, key);
    });
  }

  /** What is left, in the span's order (for inspecting a draft: the step goldens list it). */
  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const entry of this.base) if (!this.gone.includes(entry[0])) yield entry;
  }
}

export interface SpanDraft {
  readonly span: DdSpan;
  /** Not yet consumed meta: the chunk's tags underneath the span's own. */
  readonly meta: Remaining<string>;
  readonly metrics: Remaining<number>;
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
  /** This span's resource attributes, most specific first; shared by spans with equal ones, never changed. */
  resource: AttributeMap;
  /** The instrumentation scope an OpenTelemetry-origin span names; undefined: ours (shared/scope.ts). */
  scope?: InstrumentationScope;
  /** Attributes steps derived; the remaining meta and metrics follow them. */
  readonly attributes: AttributeMap;
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
  /** The chunk's `SampleRate` attribute value, shared by its spans (sampling.ts). */
  sampleRate: AnyValue;
  /** Scopes and resources of OpenTelemetry-origin spans met in this translation (otel-origin.ts). */
  otel: OtelOrigins;
  /**
   * Resources already built on top of `inheritedResource`, by service, then by the span's own
   * resource tags (see the resource step): spans of one process share one map instead of
   * building an equal one each.
   */
  resources: MemoTrie<AttributeMap>;
  /** The ids last converted, for the ids step: this translation's, not the process's. */
  lastIds: LastIds;
  /** integration service → base service, taught by the resource step (service-identity.ts) */
  services: ServiceIdentities;
  /** query text → its summary, the process's (name.ts) */
  querySummaries: { of(query: string): string | undefined };
  /** the process's attribute names, semantic-convention opt-in included (finish.ts) */
  attributeNames: { of(key: string): SpanKeyNames };
}

/** What a meta/metrics key becomes: its attribute name(s) (two under a `/dup` opt-in), and whether its value is an integer. */
export interface SpanKeyNames {
  readonly names: readonly string[];
  readonly integer: boolean;
}

/** What one translation met of OpenTelemetry-origin spans: scopes and resources, shared by the spans that have equal ones (otel-origin.ts). */
export interface OtelOrigins {
  scopes: Map<string, InstrumentationScope>;
  /** by the span's resource map, then its resource-namespace meta */
  resources: MemoTrie<AttributeMap>;
}

/** Fills in `draft` (see SpanDraft) and returns it (step.ts). */
export type SpanStep = Step<SpanDraft, SpanContext>;

const NO_ID = new Uint8Array(0);
const NO_RESOURCE: AttributeMap = new Map();

export function createSpanDraft(span: DdSpan, chunk: DdTraceChunk): SpanDraft {
  return {
    span,
    meta: new Remaining(chunk.tags.size === 0 ? span.meta : new Map([...chunk.tags, ...span.meta])),
    metrics: new Remaining(span.metrics),
    traceId: NO_ID,
    spanId: NO_ID,
    parentSpanId: undefined,
    name: span.name,
    kind: SpanKind.Unspecified,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    status: undefined,
    events: [],
    links: [],
    resource: NO_RESOURCE,
    scope: undefined,
    attributes: new Map(),
  };
}

/** The first of `keys` with a non-empty value. */
export function firstOf(map: Remaining<string>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = map.get(k);
    if (v) return v;
  }
  return undefined;
}
