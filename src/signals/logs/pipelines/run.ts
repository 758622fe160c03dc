/**
 * Running the pipelines over one record of the logs chain. The record's time budget is checked
 * before every processor and between grok rules; past it the record goes on exactly as it came
 * (nothing a pipeline did is kept) and is counted. With the linear-time fallback of
 * grok/regex-safety.ts, one expression's run is itself bounded, so a record costs at most twice
 * the budget (budget.ts) plus one expression's bounded run.
 */
import type { FieldMap } from '../fields';
import { BudgetExceeded, RecordBudget } from './budget';
import type { JsonValue } from '../../../core/wire/json';
import { bodyOf, fieldsOf, pipelineLogOf } from './fields-bridge';
import { runSteps } from './compile';
import type { PipelineSet } from './pipeline-set';
import { matches } from './query-match';

/** What the pipelines did to the records of one request, for /metrics. */
export interface PipelineStats {
  /** Records at least one pipeline matched. */
  applied: number;
  /** Records that ran past their budget and went on unparsed. */
  overBudget: number;
}

export interface PipelineOutcome {
  /** The fields, without the message. */
  fields: FieldMap;
  /** The record's message (fields-bridge.ts's bodyOf). */
  body: JsonValue;
  /** Epoch ms a date remapper set. */
  timestampMs: number | undefined;
}

/** The record's fields after the pipelines; undefined when none matched or the budget ran out. */
export function applyPipelines(set: PipelineSet, fields: FieldMap, messageKey: string | undefined, budgetMs: number, stats: PipelineStats): PipelineOutcome | undefined {
  const source = fields.get('ddsource');
  const candidates = set.candidates(typeof source === 'string' ? source : undefined);
  if (candidates.length === 0) return undefined;
  const [log, apart] = pipelineLogOf(fields, messageKey);
  const budget = new RecordBudget(budgetMs);
  let matched = false;
  try {
    for (const pipeline of candidates) {
      if (!matches(pipeline.filter, log)) continue;
      matched = true;
      runSteps(pipeline.steps, log, budget);
    }
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    stats.overBudget++;
    return undefined;
  }
  if (!matched) return undefined;
  stats.applied++;
  return { fields: fieldsOf(log, apart), body: bodyOf(log, apart), timestampMs: log.timestampMs };
}
