/**
 * Sampling: `sampling.priority` and `SampleRate` on every span of a chunk.
 *
 * `sampling.priority` (an int): the chunk's priority, else the first `_sampling_priority_v1` in the
 * chunk, which tracers put on the chunk's root only. It says whether the tracer meant to keep the
 * trace (≥ 1) or only sent it because we asked for everything (≤ 0).
 *
 * `SampleRate` (an int ≥ 1): how many traces this one stands for, which HyperDX and ClickStack's
 * schema weight counts and percentiles by (`greatest(toUInt64OrZero(SpanAttributes['SampleRate']),
 * 1)`, so it must be an integer). It is 1 / the product of the rates of the sampling steps that
 * threw other traces away before they reached us, rounded, read from the chunk's decision span (the
 * first one carrying a rate or priority):
 *
 * - `_sample_rate`: a pre-sampler's or the trace-agent's own samplers' rate, and the chunk tag
 *   `_dd.otlp_sr`, the datadog exporter's probabilistic sampler's; what they dropped was never
 *   sent, so they always count;
 * - `_dd.agent_psr` (the rate the agent told the tracer), `_dd.rule_psr` (the user's sampling rule)
 *   and `_dd.limit_psr` (the rule's rate limiter): the priority sampler's; they count only for a
 *   kept trace (priority ≥ 1) whose sender dropped the rejected ones — the trace-agent, on
 *   /api/v0.2/traces. A tracer talking to us directly sends rejected traces too
 *   (`client_drop_p0s: false` in /info), so its kept ones stand for themselves.
 *
 * A rate outside (0, 1) counts as 1. So SampleRate is 1 for every trace a tracer sends directly
 * without a pre-sampler, for a manual keep, and for a trace the agent kept although its priority
 * rejected it (the agent's error and rare samplers, which record their rate in `_sample_rate`).
 */
import type { DdSpan, DdTraceChunk } from './datadog';
import type { AnyValue } from '../../core/otlp/model';
import type { SpanStep } from './draft';

export const SAMPLING_PRIORITY = '_sampling_priority_v1';
const SAMPLE_RATE = '_sample_rate';
const OTLP_RATE = '_dd.otlp_sr';
const PRIORITY_RATES = ['_dd.agent_psr', '_dd.rule_psr', '_dd.limit_psr'];
const DECISION_KEYS = [SAMPLING_PRIORITY, SAMPLE_RATE, ...PRIORITY_RATES];

/** The span the sampling decision was recorded on: the first with a rate or priority. */
const decisionSpan = (chunk: DdTraceChunk): DdSpan | undefined => chunk.spans.find((s) => DECISION_KEYS.some((k) => s.metrics.has(k)));

const within = (r: number | undefined): number => (r !== undefined && r > 0 && r < 1 ? r : 1);
const rate = (span: DdSpan, key: string): number => within(span.metrics.get(key));

/** The chunk's SampleRate (see above); `rejectedDropped` when the sender dropped the traces its priority rejected. */
export function chunkSampleRate(chunk: DdTraceChunk, priority: number | undefined, rejectedDropped: boolean): AnyValue {
  const span = decisionSpan(chunk);
  const otlp = Number(chunk.tags.get(OTLP_RATE));
  let kept = (span === undefined ? 1 : rate(span, SAMPLE_RATE)) * within(otlp);
  if (span !== undefined && rejectedDropped && priority !== undefined && priority > 0) for (const key of PRIORITY_RATES) kept *= rate(span, key);
  return { int: BigInt(Math.max(1, Math.round(1 / kept))) };
}

export const sampling: SpanStep = (draft, ctx) => {
  draft.attributes.set('SampleRate', ctx.sampleRate);
  if (ctx.samplingPriority === undefined) return draft;
  draft.attributes.set('sampling.priority', { int: BigInt(ctx.samplingPriority) });
  draft.metrics.consume(SAMPLING_PRIORITY);
  return draft;
};
