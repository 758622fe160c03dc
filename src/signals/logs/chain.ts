/**
 * The log translator chain. THE ORDER LIVES HERE. Text-line correlation runs first: it turns what
 * a plain-text line states (injected ids, service, level) into the fields every later step reads,
 * and leaves JSON messages alone. JSON-message decoding then runs so that fields found inside a
 * message go through exactly the same steps as envelope fields; Datadog's log pipelines run on
 * what that leaves, as Datadog's run after its JSON parsing; the timestamp, severity and
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
import { logPipelines } from './log-pipelines';
import type { PipelineStats } from './pipelines/run';
import { runSteps, type NamedStep } from '../shared/step';
import { countIn, type Translation, type TranslationContext } from '../shared/chain';

export const LOG_STEPS: readonly NamedStep<LogDraft, LogContext>[] = [
  { name: 'text_correlation', step: textCorrelation },
  { name: 'decode_json_message', step: decodeJsonMessage },
  { name: 'log_pipelines', step: logPipelines },
  { name: 'timestamps', step: timestamps },
  { name: 'severity', step: severity },
  { name: 'resource_promotion', step: resourcePromotion },
  { name: 'trace_correlation', step: traceCorrelation },
  { name: 'otel_origin', step: otelOrigin },
];

export const runLogSteps = (draft: LogDraft, ctx: LogContext): LogDraft => runSteps(LOG_STEPS, draft, ctx);

/** The process caches the logs chain reads. */
export type LogCaches = Pick<TranslatorCaches, 'traceIds' | 'logPromotions' | 'enrichment' | 'groupings' | 'logPipelines'>;

/**
 * A request's logs translation: records sharing a resource share one group of `sink`, in
 * first-seen order. What the log pipelines did is tallied as `pipeline_applied` and
 * `pipeline_over_budget` (records that went on unparsed).
 */
export function translateLogs<G>(ctx: TranslationContext<LogCaches>, sink: RecordSink<LogRecord, G>): Translation<DatadogLogPayload> {
  const { caches, receivedAtNs, options, tally } = ctx;
  const grouper = new ResourceGrouper((resource, scope) => sink.group(resource, scope), caches.enrichment);
  return (payload) => {
    const pipelineStats: PipelineStats = { applied: 0, overBudget: 0 };
    const stepCtx: LogContext = {
      traceIds: caches.traceIds,
      decodeJsonMessage: options.decodeJsonMessage,
      textCorrelation: options.logTextCorrelation,
      queryTags: payload.queryTags,
      promotions: caches.logPromotions.forQueryTags(payload.queryTags),
      pipelines: caches.logPipelines.current,
      pipelineBudgetMs: options.logPipelineBudgetMs,
      pipelineStats,
    };
    for (const entry of payload.entries) {
      const draft = runLogSteps(createDraft(entry, receivedAtNs), stepCtx);
      sink.add(grouper.ofMap(draft.promoted.resource, caches.groupings), toLogRecord(draft));
    }
    if (pipelineStats.applied > 0) countIn(tally, 'pipeline_applied', pipelineStats.applied);
    if (pipelineStats.overBudget > 0) countIn(tally, 'pipeline_over_budget', pipelineStats.overBudget);
  };
}

/** The translated model itself, for golden files and tests (the route streams into the encoder). */
export function translateLogsToModel(payload: DatadogLogPayload, ctx: TranslationContext<LogCaches>): ResourceLogs[] {
  const sink = new ModelSink<LogRecord>();
  translateLogs(ctx, sink)(payload);
  return resourceLogsOf(sink);
}
