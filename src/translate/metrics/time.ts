/** Datadog metric timestamps are seconds (API clients may send fractions); OTLP wants nanoseconds. */
export function secondsToNanos(seconds: number): bigint {
  if (Number.isInteger(seconds)) return BigInt(seconds) * 1_000_000_000n;
  return BigInt(Math.round(seconds * 1e6)) * 1_000n;
}
