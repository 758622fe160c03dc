/**
 * TraceId, SpanId, ParentSpanId. The trace id is widened to 128 bits with the high half this
 * payload announced (look-ahead) or, failing that, one an earlier payload announced (the cache);
 * without either it stays the zero-padded 64-bit id. `_dd.p.tid` is consumed: TraceId says it.
 */
import { spanIdBytes, widenTraceId } from '../shared/trace-id';
import type { SpanStep } from './draft';
import { TID } from './look-ahead';

export const ids: SpanStep = (draft, ctx) => {
  const { traceId, spanId, parentId } = draft.span;
  draft.meta.consume(TID);
  draft.traceId = ctx.lastIds.trace.bytesOf(widenTraceId(traceId, ctx.highs.get(traceId), ctx.traceIds));
  draft.spanId = spanIdBytes(spanId);
  if (parentId !== 0n) draft.parentSpanId = ctx.lastIds.parent.bytesOf(parentId);
  return draft;
};
