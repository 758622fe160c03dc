/**
 * The log translator chain. THE ORDER LIVES HERE. Text-line correlation runs first: it turns what
 * a plain-text line states (injected ids, service, level) into the fields every later step reads,
 * and leaves JSON messages alone. JSON-message decoding then runs so that fields found inside a
 * message go through exactly the same steps as envelope fields; the timestamp, severity and
 * resource steps each consume their reserved keys; trace correlation runs after resource
 * promotion only because neither reads the other's keys. The OTel-origin step runs last because
 * its `otel.*` values replace what the earlier steps made of the lossy Datadog fields.
 */
import type { DatadogLogPayload } from './datadog';
import type { LogRecord, RecordSink, ResourceLogs } from '../../core/otlp/model';
import type { TranslatorCaches } from '../caches';
import { ResourceGrouper, resourceLogsOf } from '../shared/group';
import { ModelSink } from '../shared/model-sink';
import { decodeJsonMessage } from './decode-json-message';
import { createDraft, type LogContext, type LogDraft } from './draft';
import { toLogRecord } from './finish';
import { resourcePromotion } from './resource';
import { severity } from './severity';
import { timestamps } from './timestamps';
import { traceCorrelation } from './trace-correlation';
import { textCorrelation } from './text-correlation';
import { otelOrigin } from './otel-origin';
import { runSteps, type NamedStep } from '../shared/step';

export const LOG_STEPS: readonly NamedStep<LogDraft, LogContext>[] = [
  { name: 'text_correlation', step: textCorrelation },
  { name: 'decode_json_message', step: decodeJsonMessage },
  { name: 'timestamps', step: timestamps },
  { name: 'severity', step: severity },
  { name: 'resource_promotion', step: resourcePromotion },
  { name: 'trace_correlation', step: traceCorrelation },
  { name: 'otel_origin', step: otelOrigin },
];

export const runLogSteps = (draft: LogDraft, ctx: LogContext): LogDraft => runSteps(LOG_STEPS, draft, ctx);

/** What a logs translation needs besides the payload: the process's caches and the route's options. */
export interface LogTranslationContext {
  caches: TranslatorCaches;
  decodeJsonMessage: boolean;
  textCorrelation: boolean;
}

/** Records sharing a resource share one group of `sink`, in first-seen order. */
export function translateLogs<G>(payload: DatadogLogPayload, receivedAtNs: bigint, ctx: LogTranslationContext, sink: RecordSink<LogRecord, G>): void {
  const { caches, decodeJsonMessage, textCorrelation } = ctx;
  const stepCtx: LogContext = { traceIds: caches.traceIds, decodeJsonMessage, textCorrelation, queryTags: payload.queryTags, promotions: caches.logPromotions.forQueryTags(payload.queryTags) };
  const grouper = new ResourceGrouper((resource, scope) => sink.group(resource, scope), caches.enrichment);
  for (const entry of payload.entries) {
    const draft = runLogSteps(createDraft(entry, receivedAtNs), stepCtx);
    sink.add(grouper.ofMap(draft.promoted.resource, caches.groupings), toLogRecord(draft));
  }
}

/** The translated model itself, for golden files and tests (the route streams into the encoder). */
export function translateLogsToModel(payload: DatadogLogPayload, receivedAtNs: bigint, ctx: LogTranslationContext): ResourceLogs[] {
  const sink = new ModelSink<LogRecord>();
  translateLogs(payload, receivedAtNs, ctx, sink);
  return resourceLogsOf(sink);
}
