/**
 * TraceId, SpanId, ParentSpanId. The trace id is widened to 128 bits with the high half this
 * payload announced (look-ahead) or, failing that, one an earlier payload announced (the cache);
 * without either it stays the zero-padded 64-bit id. `_dd.p.tid` is consumed: TraceId says it.
 */
import { spanIdBytes, traceIdBytes, widenTraceId } from '../trace-id';
import type { SpanStep } from './draft';
import { TID } from './look-ahead';

/**
 * The bytes of the id last converted. Spans follow each other chunk by chunk, so they repeat
 * their trace id and mostly their parent id, and a conversion costs a buffer and several BigInt
 * operations. Equal ids share the bytes, which nothing writes to.
 */
class LastId {
  private id = -1n;
  private bytes: Uint8Array = new Uint8Array(0);

  constructor(private readonly convert: (id: bigint) => Uint8Array) {}

  bytesOf(id: bigint): Uint8Array {
    if (id !== this.id) {
      this.bytes = this.convert(id);
      this.id = id;
    }
    return this.bytes;
  }
}

const lastTraceId = new LastId(traceIdBytes);
const lastParentId = new LastId(spanIdBytes);

export const ids: SpanStep = (draft, ctx) => {
  const { traceId, spanId, parentId } = draft.span;
  draft.meta.consume(TID);
  draft.traceId = lastTraceId.bytesOf(widenTraceId(traceId, ctx.highs.get(traceId), ctx.traceIds));
  draft.spanId = spanIdBytes(spanId);
  if (parentId !== 0n) draft.parentSpanId = lastParentId.bytesOf(parentId);
  return draft;
};
