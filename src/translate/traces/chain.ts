/**
 * The span translator chain. THE ORDER LIVES HERE. Ids and times come first (the exception
 * event is stamped with the end time); the resource step runs before naming so the name step
 * sees the meta that is left; events run before status so that an exception the tracer already
 * recorded is not recorded twice.
 */
import { PRIORITY_NONE, type DdTraceChunk, type DdTracePayload } from '../../datadog/traces';
import type { RecordSink, ResourceSpans, Span } from '../../otlp/model';
import { ModelSink } from '../model-sink';
import { builtKey, resourceKey, toKeyValues, type AttributeMap } from '../resource-promotion';
import { SCOPE } from '../scope';
import type { TraceIdCache } from '../trace-id';
import { createSpanDraft, type SpanContext, type SpanDraft, type SpanStep } from './draft';
import { events } from './events';
import { toSpan } from './finish';
import { ids } from './ids';
import { kind } from './kind';
import { links } from './links';
import { learnTraceIdHighs } from './look-ahead';
import { name } from './name';
import { payloadResource, PayloadResources, resource } from './resource';
import { SAMPLING_PRIORITY, sampling } from './sampling';
import { status } from './status';
import { timing } from './timing';

export const SPAN_STEPS: readonly { name: string; step: SpanStep }[] = [
  { name: 'ids', step: ids },
  { name: 'timing', step: timing },
  { name: 'resource', step: resource },
  { name: 'name', step: name },
  { name: 'kind', step: kind },
  { name: 'links', step: links },
  { name: 'events', step: events },
  { name: 'status', step: status },
  { name: 'sampling', step: sampling },
];

export function runSpanSteps(draft: SpanDraft, ctx: SpanContext): SpanDraft {
  for (const { step } of SPAN_STEPS) step(draft, ctx);
  return draft;
}

export interface TraceTranslationContext {
  traceIds: TraceIdCache;
  receivedAtNs: bigint;
}

function chunkPriority(chunk: DdTraceChunk): number | undefined {
  if (chunk.priority !== PRIORITY_NONE) return chunk.priority;
  for (const span of chunk.spans) {
    const p = span.metrics.get(SAMPLING_PRIORITY);
    if (p !== undefined && Number.isSafeInteger(p)) return p;
  }
  return undefined;
}

/** Spans sharing a resource share one group of `sink`, in first-seen order. */
export function translateTraces<G>(payload: DdTracePayload, ctx: TraceTranslationContext, sink: RecordSink<Span, G>): void {
  const highs = learnTraceIdHighs(payload, ctx.traceIds);
  const groups = new Map<string, G>();
  // spans of a chunk share their resource map (see the resource step): most lookups end at the first map
  const bySharedMap = new Map<AttributeMap, G>();
  const byBuiltKey = new Map<string, G>();
  for (const tracer of payload.tracerPayloads) {
    const payloadResources = new PayloadResources(payloadResource(tracer, payload.agent));
    for (const chunk of tracer.chunks) {
      const { inheritedResource, resources } = payloadResources.forChunk(chunk);
      const stepCtx: SpanContext = { traceIds: ctx.traceIds, receivedAtNs: ctx.receivedAtNs, highs, inheritedResource, samplingPriority: chunkPriority(chunk), resources };
      for (const span of chunk.spans) {
        const draft = runSpanSteps(createSpanDraft(span, chunk), stepCtx);
        let group = bySharedMap.get(draft.resource);
        if (!group) {
          const built = builtKey(draft.resource);
          group = byBuiltKey.get(built);
          if (!group) {
            const attributes = toKeyValues(draft.resource);
            const key = resourceKey(attributes);
            group = groups.get(key) ?? sink.group({ attributes }, SCOPE);
            groups.set(key, group);
            byBuiltKey.set(built, group);
          }
          bySharedMap.set(draft.resource, group);
        }
        sink.add(group, toSpan(draft));
      }
    }
  }
}

/** The translated model itself, for golden files and tests (the routes stream into the encoder). */
export function translateTracesToModel(payload: DdTracePayload, ctx: TraceTranslationContext): ResourceSpans[] {
  const sink = new ModelSink<Span>();
  translateTraces(payload, ctx, sink);
  return sink.groups.map((g) => ({ resource: g.resource, scopeSpans: [{ scope: g.scope, spans: g.records }] }));
}
