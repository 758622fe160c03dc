/**
 * `sampling.priority` (an int) on every span of a chunk: the chunk's priority, else the first
 * `_sampling_priority_v1` in the chunk, which tracers put on the chunk's root only. It says whether
 * the tracer meant to keep the trace (≥ 1) or only sent it because we asked for everything (≤ 0).
 */
import type { SpanStep } from './draft';

export const SAMPLING_PRIORITY = '_sampling_priority_v1';

export const sampling: SpanStep = (draft, ctx) => {
  if (ctx.samplingPriority === undefined) return draft;
  draft.attributes.set('sampling.priority', { int: BigInt(ctx.samplingPriority) });
  draft.metrics.consume(SAMPLING_PRIORITY);
  return draft;
};
