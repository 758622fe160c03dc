/**
 * The span translator chain. THE ORDER LIVES HERE. Ids and times come first (the exception
 * event is stamped with the end time); the resource step runs before naming so the name step
 * sees the meta that is left, and kind before naming so that server spans can be named after their
 * route; events run before status so that an exception the tracer already
 * recorded is not recorded twice.
 */
import { PRIORITY_NONE, type DdTraceChunk, type DdTracePayload } from './datadog';
import type { RecordSink, ResourceSpans, Span } from '../../core/otlp/model';
import { ModelSink } from '../shared/model-sink';
import type { TranslatorCaches } from '../caches';
import { ResourceGrouper } from '../shared/group';
import { runSteps, type NamedStep } from '../shared/step';
import type { Translation, TranslationContext } from '../shared/chain';
import { createSpanDraft, type SpanContext, type SpanDraft } from './draft';
import { database } from './database';
import { events } from './events';
import { toSpan } from './finish';
import { ids } from './ids';
import { lastIds } from './last-id';
import { kind } from './kind';
import { links } from './links';
import { learnTraceIdHighs } from './look-ahead';
import { name } from './name';
import { otelOrigin, otelOrigins } from './otel-origin';
import { payloadResource, PayloadResources, resource } from './resource';
import { chunkSampleRate, SAMPLING_PRIORITY, sampling } from './sampling';
import { status } from './status';
import { timing } from './timing';

export const SPAN_STEPS: readonly NamedStep<SpanDraft, SpanContext>[] = [
  { name: 'ids', step: ids },
  { name: 'timing', step: timing },
  { name: 'resource', step: resource },
  { name: 'otel_origin', step: otelOrigin },
  { name: 'kind', step: kind },
  { name: 'name', step: name },
  { name: 'database', step: database },
  { name: 'links', step: links },
  { name: 'events', step: events },
  { name: 'status', step: status },
  { name: 'sampling', step: sampling },
];

export const runSpanSteps = (draft: SpanDraft, ctx: SpanContext): SpanDraft => runSteps(SPAN_STEPS, draft, ctx);

/** The process caches the traces chain reads. */
export type TraceCaches = Pick<TranslatorCaches, 'traceIds' | 'enrichment' | 'groupings' | 'serviceIdentities' | 'spanAttributeNames' | 'querySummaries'>;

function chunkPriority(chunk: DdTraceChunk): number | undefined {
  if (chunk.priority !== PRIORITY_NONE) return chunk.priority;
  for (const span of chunk.spans) {
    const p = span.metrics.get(SAMPLING_PRIORITY);
    if (p !== undefined && Number.isSafeInteger(p)) return p;
  }
  return undefined;
}

/** A request's traces translation: spans sharing a resource share one group of `sink`, in first-seen order. */
export function translateTraces<G>(ctx: TranslationContext<TraceCaches>, sink: RecordSink<Span, G>): Translation<DdTracePayload> {
  // spans of a chunk share their resource map (see the resource step): most lookups end at the first map
  const grouper = new ResourceGrouper((resource, scope) => sink.group(resource, scope), ctx.caches.enrichment);
  return (payload) => translatePayload(payload, ctx, grouper, sink);
}

function translatePayload<G>(payload: DdTracePayload, ctx: TranslationContext<TraceCaches>, grouper: ResourceGrouper<G>, sink: RecordSink<Span, G>): void {
  const { caches, receivedAtNs } = ctx;
  const highs = learnTraceIdHighs(payload, caches.traceIds);
  const converted = lastIds();
  const otel = otelOrigins();
  // the trace-agent drops the traces their priority rejected; a tracer sends us all of them (/info)
  const rejectedDropped = payload.agent !== undefined;
  for (const tracer of payload.tracerPayloads) {
    const payloadResources = new PayloadResources(payloadResource(tracer, payload.agent, ctx.senderHost));
    for (const chunk of tracer.chunks) {
      const { inheritedResource, resources } = payloadResources.forChunk(chunk);
      const samplingPriority = chunkPriority(chunk);
      const sampleRate = chunkSampleRate(chunk, samplingPriority, rejectedDropped);
      const stepCtx: SpanContext = {
        traceIds: caches.traceIds,
        receivedAtNs,
        highs,
        inheritedResource,
        samplingPriority,
        sampleRate,
        resources,
        lastIds: converted,
        services: caches.serviceIdentities,
        attributeNames: caches.spanAttributeNames,
        querySummaries: caches.querySummaries,
        otel,
      };
      for (const span of chunk.spans) {
        const draft = runSpanSteps(createSpanDraft(span, chunk), stepCtx);
        sink.add(grouper.ofMap(draft.resource, caches.groupings, draft.scope), toSpan(draft, caches.spanAttributeNames));
      }
    }
  }
}

/** The translated model itself, for golden files and tests (the routes stream into the encoder). */
export function translateTracesToModel(payload: DdTracePayload, ctx: TranslationContext<TraceCaches>): ResourceSpans[] {
  const sink = new ModelSink<Span>();
  translateTraces(ctx, sink)(payload);
  return sink.groups.map((g) => ({ resource: g.resource, scopeSpans: [{ scope: g.scope, spans: g.records }] }));
}
