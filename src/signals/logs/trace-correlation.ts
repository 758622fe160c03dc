/**
 * Trace correlation: `dd.trace_id` / `dd.span_id` (flat, or nested under `dd` as dd-trace's log
 * injection writes them — flattening made both `dd.trace_id`; or in a Java JSON layout's MDC,
 * `mdc.dd.trace_id` / `contextMap.dd.trace_id`) fill TraceId / SpanId, the first present key of each. A 64-bit id
 * is widened with the high half from `_dd.p.tid` on the record or, failing that, from the trace-id
 * cache the traces path fills, so the log's TraceId equals its span's.
 */
import { SPAN_ID_KEYS, TRACE_ID_KEYS } from './datadog';
import { scalarText } from '../shared/attributes';
import { parseSpanIdText, parseTid, parseTraceIdText, spanIdBytes, traceIdBytes, widenTraceId } from '../shared/trace-id';
import type { LogStep } from './draft';
import { consume, type FieldMap } from './fields';

const TID = '_dd.p.tid';

/** The first of `keys` that `fields` holds. */
function presentKey(fields: FieldMap, keys: readonly string[]): string | undefined {
  for (let i = 0; i < keys.length; i++) if (fields.has(keys[i] as string)) return keys[i];
  return undefined;
}

export const traceCorrelation: LogStep = (draft, ctx) => {
  const { fields } = draft;
  const traceKey = presentKey(fields, TRACE_ID_KEYS);
  const spanKey = presentKey(fields, SPAN_ID_KEYS);
  if (traceKey === undefined && spanKey === undefined) return draft;
  const traceId = traceKey === undefined ? undefined : parseTraceIdText(scalarText(fields.get(traceKey)) ?? '');
  const spanId = spanKey === undefined ? undefined : parseSpanIdText(scalarText(fields.get(spanKey)) ?? '');
  if (traceId === undefined && spanId === undefined) return draft;
  // only what was understood is consumed; an unparseable id stays visible as an attribute
  const consumed: string[] = [];
  if (traceId !== undefined) consumed.push(traceKey as string, TID);
  if (spanId !== undefined) consumed.push(spanKey as string);
  draft.fields = consume(fields, consumed);
  if (traceId !== undefined) draft.traceId = traceIdBytes(widenTraceId(traceId, parseTid(scalarText(fields.get(TID))), ctx.traceIds));
  if (spanId !== undefined) draft.spanId = spanIdBytes(spanId);
  return draft;
};
