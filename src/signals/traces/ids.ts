/**
 * TraceId, SpanId, ParentSpanId. The trace id is widened to 128 bits with the high half this
 * payload announced (look-ahead) or, failing that, one an earlier payload announced (the cache);
 * without either it stays the zero-padded 64-bit id. `_dd.p.tid` is consumed: TraceId says it.
 *
 * A span that began in OpenTelemetry (sent by the collector's datadog exporter) carries its full
 * ids as hex in `otel.trace_id` / `otel.span_id` and no `_dd.p.tid`: the full trace id is used
 * when its low half is the span's `trace_id`, and taught to the cache, so that later spans and
 * the logs of that trace get it too. Both tags are consumed when they agree with the ids.
 */
import { parseOtelHexId, spanIdBytes, widenTraceId } from '../shared/trace-id';
import type { SpanStep } from './draft';
import { TID } from './look-ahead';

const OTEL_TRACE_ID = 'otel.trace_id';
const OTEL_SPAN_ID = 'otel.span_id';
const U64 = (1n << 64n) - 1n;

/** The high half `otel.trace_id` gives a span whose low half is `low`, consumed when it agrees. */
function otelHigh(draft: Parameters<SpanStep>[0], low: bigint): bigint | undefined {
  const text = draft.meta.get(OTEL_TRACE_ID);
  if (text === undefined) return undefined;
  const full = parseOtelHexId(text, 32);
  if (full === undefined || (full & U64) !== low) return undefined;
  draft.meta.consume(OTEL_TRACE_ID);
  return full >> 64n;
}

export const ids: SpanStep = (draft, ctx) => {
  const { traceId, spanId, parentId } = draft.span;
  draft.meta.consume(TID);
  const otel = otelHigh(draft, traceId);
  const announced = ctx.highs.get(traceId);
  if (announced === undefined && otel !== undefined) ctx.traceIds.remember(traceId, otel);
  draft.traceId = ctx.lastIds.trace.bytesOf(widenTraceId(traceId, announced ?? otel, ctx.traceIds));
  draft.spanId = spanIdBytes(spanId);
  if (parseOtelHexId(draft.meta.get(OTEL_SPAN_ID), 16) === spanId) draft.meta.consume(OTEL_SPAN_ID);
  if (parentId !== 0n) draft.parentSpanId = ctx.lastIds.parent.bytesOf(parentId);
  return draft;
};
