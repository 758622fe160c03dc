/**
 * 128-bit trace ids, before any span is translated: `_dd.p.tid` (the high 64 bits) sits on the
 * first span of a chunk only, and children may be listed — or flushed — before it. One pass over
 * the whole payload collects low → high for every trace that announces its high half (span meta,
 * chunk tags, or an idx chunk's full id), and the shared cache remembers them for later payloads
 * and for logs that carry only the low half (docs/translation.md, Span translation: ids).
 */
import type { DdTracePayload } from './datadog';
import { parseTid, type TraceIdCache } from '../shared/trace-id';

export const TID = '_dd.p.tid';

export function learnTraceIdHighs(payload: DdTracePayload, cache: TraceIdCache): Map<bigint, bigint> {
  const highs = new Map<bigint, bigint>();
  for (const tracer of payload.tracerPayloads) {
    for (const chunk of tracer.chunks) {
      const chunkHigh = chunk.traceIdHigh || parseTid(chunk.tags.get(TID));
      // the spans of a chunk repeat their trace id: set each pair once (setting it again changes nothing)
      let lastLow = -1n;
      let lastHigh: bigint | undefined;
      for (const span of chunk.spans) {
        const tid = span.meta.get(TID);
        const high = (tid === undefined ? undefined : parseTid(tid)) ?? chunkHigh;
        if (!high || (span.traceId === lastLow && high === lastHigh)) continue;
        highs.set(span.traceId, high);
        lastLow = span.traceId;
        lastHigh = high;
      }
    }
  }
  for (const [low, high] of highs) cache.remember(low, high);
  return highs;
}
