/**
 * Trace correlation: `dd.trace_id` / `dd.span_id` (flat, or nested under `dd` as dd-trace's log
 * injection writes them — flattening made both `dd.trace_id`) fill TraceId / SpanId. A 64-bit id
 * is widened with the high half from `_dd.p.tid` on the record or, failing that, from the trace-id
 * cache the traces path fills, so the log's TraceId equals its span's.
 */
import { SPAN_ID_KEYS, TRACE_ID_KEYS } from '../../datadog/logs';
import { scalarText } from '../attributes';
import { parseSpanIdText, parseTid, parseTraceIdText, spanIdBytes, traceIdBytes, widenTraceId } from '../trace-id';
import { without } from '../map-view';
import type { LogStep } from './draft';

export const traceCorrelation: LogStep = (draft, ctx) => {
  const traceId = parseTraceIdText(scalarText(draft.fields.get(TRACE_ID_KEYS[0])) ?? '');
  const spanId = parseSpanIdText(scalarText(draft.fields.get(SPAN_ID_KEYS[0])) ?? '');
  if (traceId === undefined && spanId === undefined) return draft;
  // only what was understood is consumed; an unparseable id stays visible as an attribute
  const fields = without(draft.fields, ...(traceId !== undefined ? [TRACE_ID_KEYS[0], '_dd.p.tid'] : []), ...(spanId !== undefined ? [SPAN_ID_KEYS[0]] : []));
  const tidHigh = parseTid(scalarText(draft.fields.get('_dd.p.tid')));
  return {
    ...draft,
    fields,
    ...(traceId !== undefined ? { traceId: traceIdBytes(widenTraceId(traceId, tidHigh, ctx.traceIds)) } : {}),
    ...(spanId !== undefined ? { spanId: spanIdBytes(spanId) } : {}),
  };
};
