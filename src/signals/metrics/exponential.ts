/**
 * OTLP exponential-histogram bucket arithmetic shared by sketches and distribution points. At
 * scale s the base is 2^(2^-s); bucket i covers (base^i, base^(i+1)]. The index function follows
 * the OpenTelemetry data model (exact powers of two from the float's exponent, the rest through
 * the logarithm), which is also what upstream's sketch mapping uses, so bucket numbers agree.
 */
import type { ExponentialBuckets } from '../../core/otlp/model';

/** Scale of every exponential histogram we emit (base ≈ 1.0219, just coarser than a sketch's γ = 1.015625). */
export const SCALE = 5;

const view = new DataView(new ArrayBuffer(8));

/** e when `value` is exactly 2^e (a normal double with an all-zero mantissa). */
function powerOfTwoExponent(value: number): number | undefined {
  view.setFloat64(0, value);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  if ((high & 0xfffff) !== 0 || view.getUint32(4) !== 0 || biased === 0 || biased === 0x7ff) return undefined;
  return biased - 1023;
}

/** Bucket index of a positive value at `scale`. */
export function bucketIndex(value: number, scale = SCALE): number {
  const exponent = powerOfTwoExponent(value);
  if (exponent !== undefined) return exponent * 2 ** scale - 1;
  return Math.floor(Math.log(value) * (Math.LOG2E * 2 ** scale));
}

/** Lower boundary of bucket `index` at scale 5. */
export const bucketLowerBound = (index: number): number => Math.exp(index * (Math.LN2 / 2 ** SCALE));

/** Sparse index → count as OTLP's dense form: offset of the lowest index, then every count up to the highest. */
export function denseBuckets(counts: ReadonlyMap<number, number>): ExponentialBuckets {
  if (counts.size === 0) return { offset: 0, bucketCounts: [] };
  const [offset, last] = extent(counts.keys());
  const bucketCounts = new Array<number>(last - offset + 1).fill(0);
  for (const [index, count] of counts) bucketCounts[index - offset] = count;
  return { offset, bucketCounts };
}

/** Shared BigInts for the counts 0–1023: most points' counts and zero counts are small. */
const smallCounts: readonly bigint[] = Array.from({ length: 1024 }, (_, n) => BigInt(n));

/** BigInt(count), without allocating one when the count is a small integer. */
export const bigCount = (count: number): bigint => smallCounts[count] ?? BigInt(count);

export function addTo(counts: Map<number, number>, index: number, count: number): void {
  counts.set(index, (counts.get(index) ?? 0) + count);
}

/** [min, max] of a non-empty sequence (no spread: it may be longer than the argument limit). */
export function extent(values: Iterable<number>): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}
