/**
 * Last: the draft becomes an OTLP span. Meta left over becomes string attributes and metrics
 * numeric ones, renamed through the known-key table and the semantic-convention opt-in
 * (`http.method` stays `http.method` by default, `http.request.method` under `http`); a status
 * code is an int; a metric wins over a meta key of the same name, as upstream. `_dd.*` tags not consumed by a step
 * (`_dd.origin`, `_dd.git.commit.sha`, …) are kept under their own names, except the tracers'
 * sampling bookkeeping (INTERNAL_TAGS): no HyperDX view or alert reads it, every span carries it,
 * and the sampling it records is already in SampleRate and sampling.priority; so it is written
 * only under --keep-internal-tags (a migrated span search on `@_top_level` says it needs that).
 */
import type { AnyValue, KeyValue, Span } from '../../core/otlp/model';
import type { SemconvOptIn } from '../../config/options';
import { attributeNames, DEFAULT_SEMCONV, isIntegerKey } from '../shared/known-keys';
import type { AttributeMap } from '../shared/resource-promotion';
import type { SpanDraft, SpanKeyNames } from './draft';

/**
 * SpanKeyNames per meta/metrics key, remembered: every span repeats the same few dozen keys, and
 * the miss path lower-cases the key. Bounded in keys and key length, since senders choose keys.
 * One per process (caches.ts), for the process's OTEL_SEMCONV_STABILITY_OPT_IN.
 */
const MAX_NAMES = 4096;
const MAX_REMEMBERED_KEY = 64;

/**
 * Tags tracers set for Datadog's own sampling and stats machinery: the decision maker of the
 * propagated sampling decision, whether the span is a service entry or measured, and the rates
 * the agent, a rule or its limiter applied (the sampling step reads those into SampleRate first).
 */
export const INTERNAL_TAGS: ReadonlySet<string> = new Set(['_dd.p.dm', '_dd.top_level', '_dd.measured', '_dd.agent_psr', '_dd.rule_psr', '_dd.limit_psr']);
const NOT_WRITTEN: SpanKeyNames = { names: [], integer: false };

export class AttributeNames {
  private readonly names = new Map<string, SpanKeyNames>();

  constructor(
    readonly optIn: SemconvOptIn = DEFAULT_SEMCONV,
    private readonly keepInternal = false,
  ) {}

  of(key: string): SpanKeyNames {
    let names = this.names.get(key);
    if (names !== undefined) return names;
    names = !this.keepInternal && INTERNAL_TAGS.has(key) ? NOT_WRITTEN : { names: attributeNames(key, this.optIn), integer: isIntegerKey(key) };
    if (key.length <= MAX_REMEMBERED_KEY) {
      if (this.names.size >= MAX_NAMES) this.names.clear();
      this.names.set(key, names);
    }
    return names;
  }
}

/** `http.status_code` as tracers write it ("200") or the datadog exporter (200.0) → an int; anything else as it came. */
function integerOr(value: AnyValue): AnyValue {
  const n = 'string' in value ? (/^\d{1,15}$/.test(value.string) ? Number(value.string) : Number.NaN) : 'double' in value ? value.double : Number.NaN;
  return Number.isSafeInteger(n) ? { int: BigInt(n) } : value;
}

function setNamed(attributes: AttributeMap, key: SpanKeyNames, value: AnyValue): void {
  const v = key.integer ? integerOr(value) : value;
  for (let i = 0; i < key.names.length; i++) attributes.set(key.names[i] as string, v);
}

/** toKeyValues without the [key, value] pair per entry that iterating a Map allocates. */
function keyValues(map: AttributeMap): KeyValue[] {
  const out: KeyValue[] = [];
  map.forEach((value, key) => {
    out.push({ key, value });
  });
  return out;
}

export function toSpan(draft: SpanDraft, names: AttributeNames): Span {
  // the draft's own map: the chain is done with it, so it is completed rather than copied
  const { attributes } = draft;
  draft.meta.forEach((value, key) => {
    setNamed(attributes, names.of(key), { string: value });
  });
  draft.metrics.forEach((value, key) => {
    setNamed(attributes, names.of(key), { double: value });
  });
  const span: Span = {
    traceId: draft.traceId,
    spanId: draft.spanId,
    name: draft.name,
    kind: draft.kind,
    startTimeUnixNano: draft.startTimeUnixNano,
    endTimeUnixNano: draft.endTimeUnixNano,
    attributes: keyValues(attributes),
    events: draft.events,
    links: draft.links,
  };
  if (draft.parentSpanId) span.parentSpanId = draft.parentSpanId;
  if (draft.status) span.status = draft.status;
  return span;
}
