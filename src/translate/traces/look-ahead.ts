/**
 * 128-bit trace ids, before any span is translated: `_dd.p.tid` (the high 64 bits) sits on the
 * first span of a chunk only, and children may be listed — or flushed — before it. One pass over
 * the whole payload collects low → high for every trace that announces its high half (span meta,
 * chunk tags, or an idx chunk's full id), and the shared cache remembers them for later payloads
 * and for logs that carry only the low half (translation-rules §2.6, §7 #13).
 */
import type { DdTracePayload } from '../../datadog/traces';
import { parseTid, type TraceIdCache } from '../trace-id';

export const TID = '_dd.p.tid';

export function learnTraceIdHighs(payload: DdTracePayload, cache: TraceIdCache): Map<bigint, bigint> {
  const highs = new Map<bigint, bigint>();
  for (const tracer of payload.tracerPayloads) {
    for (const chunk of tracer.chunks) {
      const chunkHigh = chunk.traceIdHigh || parseTid(chunk.tags.get(TID));
      for (const span of chunk.spans) {
        const high = parseTid(span.meta.get(TID)) ?? chunkHigh;
        if (high) highs.set(span.traceId, high);
      }
    }
  }
  for (const [low, high] of highs) cache.remember(low, high);
  return highs;
}
