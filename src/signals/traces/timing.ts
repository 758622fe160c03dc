/**
 * Start and end: `start` is ns since the epoch, `duration` ns. A negative duration is taken as
 * zero, and a span without a start time is placed at receipt (minus its duration) rather than in
 * 1970, where ClickHouse would file it, as the agent's normaliser does.
 */
import type { SpanStep } from './draft';

export const timing: SpanStep = (draft, ctx) => {
  const duration = draft.span.duration > 0n ? draft.span.duration : 0n;
  // both are int64, so start + duration always fits the uint64 the encoder writes
  const start = draft.span.start > 0n ? draft.span.start : duration < ctx.receivedAtNs ? ctx.receivedAtNs - duration : ctx.receivedAtNs;
  draft.startTimeUnixNano = start;
  draft.endTimeUnixNano = start + duration;
  return draft;
};
