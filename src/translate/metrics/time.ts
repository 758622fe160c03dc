/** Datadog metric timestamps are seconds (API clients may send fractions); OTLP wants nanoseconds. */
import { countDrop, type DropCounts } from '../../datadog/metrics';

const MAX_NS = (1n << 64n) - 1n;

/** ns since the epoch, or undefined when the value cannot be a time (negative, or past OTLP's fixed64). */
export function secondsToNanos(seconds: number): bigint | undefined {
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  const ns = Number.isInteger(seconds) ? BigInt(seconds) * 1_000_000_000n : BigInt(Math.round(seconds * 1e6)) * 1_000n;
  return ns <= MAX_NS ? ns : undefined;
}

/**
 * `toPoint` of each point and its time in ns, in one pass (no pairs, no second array); a point
 * whose timestamp cannot be a time is dropped and counted.
 */
export function timedPoints<P extends { timestamp: number }, D>(points: readonly P[], dropped: DropCounts, toPoint: (p: P, timeUnixNano: bigint) => D): D[] {
  const out: D[] = [];
  for (const p of points) {
    const ns = secondsToNanos(p.timestamp);
    if (ns === undefined) countDrop(dropped, 'invalid_timestamp');
    else out.push(toPoint(p, ns));
  }
  return out;
}
