/**
 * Trace correlation: `dd.trace_id` / `dd.span_id` (flat, or nested under `dd` as dd-trace's log
 * injection writes them — flattening made both `dd.trace_id`) fill TraceId / SpanId. A 64-bit id
 * is widened with the high half from `_dd.p.tid` on the record or, failing that, from the trace-id
 * cache the traces path fills, so the log's TraceId equals its span's.
 */
import { SPAN_ID_KEYS, TRACE_ID_KEYS } from './datadog';
import { scalarText } from '../shared/attributes';
import { parseSpanIdText, parseTid, parseTraceIdText, spanIdBytes, traceIdBytes, widenTraceId } from '../shared/trace-id';
import type { LogStep } from './draft';
import { consume } from './fields';

const TRACE_KEYS: readonly string[] = [TRACE_ID_KEYS[0], '_dd.p.tid'];
const SPAN_KEYS: readonly string[] = [SPAN_ID_KEYS[0]];
const BOTH_KEYS: readonly string[] = [...TRACE_KEYS, ...SPAN_KEYS];

export const traceCorrelation: LogStep = (draft, ctx) => {
  const { fields } = draft;
  const traceText = scalarText(fields.get(TRACE_ID_KEYS[0]));
  const spanText = scalarText(fields.get(SPAN_ID_KEYS[0]));
  if (traceText === undefined && spanText === undefined) return draft;
  const traceId = parseTraceIdText(traceText ?? '');
  const spanId = parseSpanIdText(spanText ?? '');
  if (traceId === undefined && spanId === undefined) return draft;
  // only what was understood is consumed; an unparseable id stays visible as an attribute
  draft.fields = consume(fields, traceId === undefined ? SPAN_KEYS : spanId === undefined ? TRACE_KEYS : BOTH_KEYS);
  if (traceId !== undefined) draft.traceId = traceIdBytes(widenTraceId(traceId, parseTid(scalarText(fields.get('_dd.p.tid'))), ctx.traceIds));
  if (spanId !== undefined) draft.spanId = spanIdBytes(spanId);
  return draft;
};
