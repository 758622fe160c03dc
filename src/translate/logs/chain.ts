/**
 * The log translator chain. THE ORDER LIVES HERE. JSON-message decoding runs first so that
 * fields found inside a message go through exactly the same steps as envelope fields; the
 * timestamp, severity and resource steps then each consume their reserved keys; trace correlation
 * runs after resource promotion only because neither reads the other's keys.
 */
import type { DatadogLogPayload } from '../../datadog/logs';
import type { LogRecord, RecordSink, ResourceLogs } from '../../otlp/model';
import { LogRecordGrouper, resourceLogsOf } from '../group-logs';
import { ModelSink } from '../model-sink';
import { decodeJsonMessage } from './decode-json-message';
import { createDraft, type LogContext, type LogDraft, type LogStep } from './draft';
import { toLogRecord } from './finish';
import { resourcePromotion, sharedPromotionMemo } from './resource';
import { severity } from './severity';
import { timestamps } from './timestamps';
import { traceCorrelation } from './trace-correlation';

export const LOG_STEPS: readonly { name: string; step: LogStep }[] = [
  { name: 'decode_json_message', step: decodeJsonMessage },
  { name: 'timestamps', step: timestamps },
  { name: 'severity', step: severity },
  { name: 'resource_promotion', step: resourcePromotion },
  { name: 'trace_correlation', step: traceCorrelation },
];

export function runLogSteps(draft: LogDraft, ctx: LogContext): LogDraft {
  let d = draft;
  for (let i = 0; i < LOG_STEPS.length; i++) d = (LOG_STEPS[i] as { step: LogStep }).step(d, ctx);
  return d;
}

/** Records sharing a resource share one group of `sink`, in first-seen order. */
export function translateLogs<G>(payload: DatadogLogPayload, receivedAtNs: bigint, ctx: Omit<LogContext, 'queryTags'>, sink: RecordSink<LogRecord, G>): void {
  const stepCtx: LogContext = { ...ctx, queryTags: payload.queryTags, promotions: sharedPromotionMemo(payload.queryTags) };
  const grouper = new LogRecordGrouper(sink);
  for (const entry of payload.entries) {
    const draft = runLogSteps(createDraft(entry, receivedAtNs), stepCtx);
    grouper.add(draft.promoted.resource, toLogRecord(draft));
  }
}

/** The translated model itself, for golden files and tests (the route streams into the encoder). */
export function translateLogsToModel(payload: DatadogLogPayload, receivedAtNs: bigint, ctx: Omit<LogContext, 'queryTags'>): ResourceLogs[] {
  const sink = new ModelSink<LogRecord>();
  translateLogs(payload, receivedAtNs, ctx, sink);
  return resourceLogsOf(sink);
}
