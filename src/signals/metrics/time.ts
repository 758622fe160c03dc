/** Datadog metric timestamps are seconds (API clients may send fractions); OTLP wants nanoseconds. */
import { countDrop, type DropCounts } from './datadog';

const MAX_NS = (1n << 64n) - 1n;

/**
 * ns since the epoch, or undefined when the value cannot be a time: not after the epoch (0 is
 * what an unset protobuf field or a client's placeholder holds; OTLP reads 0 as "unknown", and
 * stored as is it would sit in 1970), or past OTLP's fixed64.
 */
export function secondsToNanos(seconds: number): bigint | undefined {
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  const ns = Number.isInteger(seconds) ? BigInt(seconds) * 1_000_000_000n : BigInt(Math.round(seconds * 1e6)) * 1_000n;
  return ns > 0n && ns <= MAX_NS ? ns : undefined;
}

/**
 * `toPoint` of each point and its time in ns, in one pass (no pairs, no second array); a point
 * whose timestamp cannot be a time is dropped and counted, and so is one `toPoint` refuses
 * (undefined: it counted why).
 */
export function timedPoints<P extends { timestamp: number }, D>(points: readonly P[], dropped: DropCounts, toPoint: (p: P, timeUnixNano: bigint) => D | undefined): D[] {
  const out: D[] = [];
  for (const p of points) {
    const ns = secondsToNanos(p.timestamp);
    if (ns === undefined) {
      countDrop(dropped, 'invalid_timestamp');
      continue;
    }
    const point = toPoint(p, ns);
    if (point !== undefined) out.push(point);
  }
  return out;
}

/**
 * True when the point's numbers (up to three: a histogram's sum, min and max) are all finite;
 * otherwise counts one `invalid_value` drop. OTLP doubles could carry ±Inf and NaN, but no
 * backend can sum or chart them.
 */
export function isFiniteOrCounted(dropped: DropCounts, value: number, second = 0, third = 0): boolean {
  if (Number.isFinite(value) && Number.isFinite(second) && Number.isFinite(third)) return true;
  countDrop(dropped, 'invalid_value');
  return false;
}
