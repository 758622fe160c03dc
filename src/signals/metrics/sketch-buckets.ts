/**
 * Agent sketch bins → exponential-histogram buckets (docs/translation.md, Sketches → exponential
 * histograms; reproducing upstream's `sketches.go` numbers). A Datadog sketch key k ≠ 0 stands for
 * the values whose magnitude lies in [γ^(|k|−1338), γ^(|k|−1337)) with γ = 1 + 2/128 (relative
 * accuracy 1/128, minimum value 1e-9, hence the bias 1338); k < 0 mirrors k > 0 for negative
 * values, k = 0 holds values too small to tell from zero. Sketch buckets do not line up with base-2
 * buckets, so each bin's count is spread over the scale-5 buckets it overlaps, in proportion to the
 * overlap, truncated to integers; whatever truncation leaves goes to the bucket with the largest
 * overlap.
 */
import type { ExponentialBuckets } from '../../core/otlp/model';
import { bucketIndex, bucketLowerBound } from './exponential';

const GAMMA = 1 + 2 / 128;
const BIAS = 1338;
/** The agent reserves 32767 for +∞; anything at or past it has no bucket (upstream drops the point). */
const MAX_SKETCH_KEY = 32_767;

// the same operation order as upstream (divide by 1/ln γ), so boundaries match to the last bit
const sketchLowerBound = (key: number): number => Math.exp((key - BIAS) / (1 / Math.log(GAMMA)));

/**
 * Magnitudes below this are in the zero bucket: the lower bound of sketch key 1, exactly as
 * upstream's Go computes it. V8's Math.exp lands one ulp higher (9.94185408912142e-10), which the
 * conformance diff showed on every histogram point.
 */
export const ZERO_THRESHOLD = 9.941854089121418e-10;

/** Scale-5 bucket counts of one sketch point, per sign dense from its offset (the lowest bucket a bin touched). */
export interface SketchBuckets {
  zeroCount: number;
  positive: ExponentialBuckets;
  negative: ExponentialBuckets;
}

/** Undefined when a key lies outside the mapping. */
export function sketchBuckets(keys: readonly number[], counts: readonly number[]): SketchBuckets | undefined {
  if (keys.some(outOfRange)) return undefined;
  let zeroCount = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as number;
    const count = counts[i] as number;
    if (key === 0) zeroCount += count;
    else spread(Math.abs(key), count, key < 0 ? negativeScratch : positiveScratch);
  }
  return { zeroCount, positive: positiveScratch.take(), negative: negativeScratch.take() };
}

const outOfRange = (key: number): boolean => Math.abs(key) >= MAX_SKETCH_KEY;

/** Where a bin's count goes: the scale-5 buckets its key overlaps, with its share of each. */
interface Spread {
  indices: number[];
  shares: number[];
  /** the bucket with the largest share, which takes what truncation leaves; undefined when none */
  largestAt: number | undefined;
}

/**
 * A key's spread depends on the key alone, and payloads repeat the same keys in sketch after
 * sketch; computing it (logarithms and exponentials per bucket) for every bin was most of the
 * sketch path. At most 32,766 keys exist, so remembering every one seen is bounded; an array by
 * key, as a Map lookup per bin cost more.
 */
const spreads: (Spread | undefined)[] = new Array(MAX_SKETCH_KEY);

function spreadOf(key: number): Spread {
  const known = spreads[key];
  if (known) return known;
  const low = sketchLowerBound(key);
  const high = sketchLowerBound(key + 1);
  const out: Spread = { indices: [], shares: [], largestAt: undefined };
  let largest = 0;
  for (let index = bucketIndex(low); bucketLowerBound(index) < high; index++) {
    const overlap = Math.min(bucketLowerBound(index + 1), high) - Math.max(bucketLowerBound(index), low);
    const share = overlap / (high - low);
    if (share <= 0) continue;
    if (share > largest) [largest, out.largestAt] = [share, index];
    out.indices.push(index);
    out.shares.push(share);
  }
  spreads[key] = out;
  return out;
}

function spread(key: number, count: number, into: BucketScratch): void {
  const { indices, shares, largestAt } = spreadOf(key);
  let assigned = 0;
  for (let i = 0; i < indices.length; i++) {
    const part = Math.trunc((shares[i] as number) * count);
    // a bucket the bin touches is kept even when its share truncates to 0 (it widens the range, as upstream)
    into.add(indices[i] as number, part);
    assigned += part;
  }
  if (largestAt !== undefined) into.add(largestAt, Math.max(0, count - assigned));
}

/**
 * Bucket counts of one sign, summed in place over every bucket a bin can reach (the range of keys
 * 1 to 32,766) rather than in a Map per point: that Map, its lookups and the sort into dense order
 * were a fifth of the sketch path. All zeros between points: `take` clears what it hands out.
 */
class BucketScratch {
  private readonly counts: Float64Array;
  private low = Infinity;
  private high = -Infinity;

  constructor(
    private readonly lowest: number,
    highest: number,
  ) {
    this.counts = new Float64Array(highest - lowest + 1);
  }

  add(index: number, count: number): void {
    const at = index - this.lowest;
    this.counts[at] = (this.counts[at] as number) + count;
    if (at < this.low) this.low = at;
    if (at > this.high) this.high = at;
  }

  /** The buckets from the lowest to the highest touched since the last take (offset 0 when none was). */
  take(): ExponentialBuckets {
    const offset = this.high < this.low ? 0 : this.low + this.lowest;
    // sized once: growing by push reallocated it a few times per point
    const bucketCounts = new Array<number>(Math.max(0, this.high - this.low + 1));
    for (let at = this.low; at <= this.high; at++) {
      bucketCounts[at - this.low] = this.counts[at] as number;
      this.counts[at] = 0;
    }
    this.low = Infinity;
    this.high = -Infinity;
    return { offset, bucketCounts };
  }
}

// spreads move up with the key, so keys 1 and 32,766 bound every index a bin can reach
const LOWEST_INDEX = Math.min(...spreadOf(1).indices);
const HIGHEST_INDEX = Math.max(...spreadOf(MAX_SKETCH_KEY - 1).indices);
const positiveScratch = new BucketScratch(LOWEST_INDEX, HIGHEST_INDEX);
const negativeScratch = new BucketScratch(LOWEST_INDEX, HIGHEST_INDEX);
