/**
 * `log_pipelines`: Datadog's log pipelines (pipelines/), run over the record after its JSON
 * message is decoded, so that they see the attributes Datadog's pipelines see. What they decide
 * goes where the later steps read it (pipelines/fields-bridge.ts); a date remapper's time is the
 * record's time, which the timestamps step then keeps.
 */
import { messageKeyOf, type LogStep } from './draft';
import { applyPipelines } from './pipelines/run';

const NS_PER_MS = 1_000_000n;

export const logPipelines: LogStep = (draft, ctx) => {
  const set = ctx.pipelines;
  if (set === undefined || set.size === 0) return draft;
  const outcome = applyPipelines(set, draft.fields, messageKeyOf(draft.fields), ctx.pipelineBudgetMs ?? Number.POSITIVE_INFINITY, ctx.pipelineStats ?? { applied: 0, overBudget: 0 });
  if (!outcome) return draft;
  draft.fields = outcome.fields;
  draft.body = outcome.body;
  if (outcome.timestampMs !== undefined && outcome.timestampMs > 0) draft.timeUnixNano = BigInt(Math.round(outcome.timestampMs)) * NS_PER_MS;
  return draft;
};
