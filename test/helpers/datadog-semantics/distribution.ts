/**
 * Distribution metrics for the rendered comparison (issue 37: percentiles from sketches): what the
 * agent sends of them and what Datadog computes of them.
 *
 * Sent: the agent keeps a DDSketch per series and flush (bins of γ = 1 + 2/128, relative accuracy
 * 1/128) and sends it on the sketch intake (`/api/beta/sketches`, SketchPayload); the workload sends
 * one per 15 s flush, its bins made here from the raw values.
 *
 * Meant: Datadog aggregates a distribution's values globally — `pNN:` is the percentile of every
 * value the series in scope hold in an interval (per group), `avg:`, `sum:`, `min:`, `max:` and
 * `count:` the mean, sum, extremes and number of those values — not a per-series value combined
 * across series as for a gauge.
 */
import { AGENT_PROTOBUF_HEADERS, agentZstd, encodeSketchPayload } from '../../fixtures/metrics/agent-payloads';

/** One series' raw values, each with its time (s); kept apart from gauges' and counts' points. */
export interface Sample {
  ts: number;
  value: number;
}

/** `p95` → 0.95; undefined for any other aggregator. */
export function percentileLevel(space: string): number | undefined {
  const m = /^p(\d\d(?:\.\d+)?)$/.exec(space);
  return m ? Number(m[1]) / 100 : undefined;
}

/**
 * The value at rank q·(n−1) of the sorted values, the rank a DDSketch answers for (within its 1/128);
 * HyperDX's bucket walk looks for rank q·n, the same value when q·n is an integer (the workload
 * sends 100 values per series and interval, so it is for p50 … p99).
 */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))]!;
}

const sum = (v: readonly number[]): number => v.reduce((a, b) => a + b, 0);

/** What an aggregator makes of a group's values in an interval; undefined for one not modelled. */
export function valuesAggregator(space: string): ((v: number[]) => number) | undefined {
  const level = percentileLevel(space);
  if (level !== undefined) return (v) => quantile(v, level);
  const f: Record<string, (v: number[]) => number> = { avg: (v) => sum(v) / v.length, sum, min: (v) => Math.min(...v), max: (v) => Math.max(...v), count: (v) => v.length };
  return f[space];
}

/**
 * How far a percentile HyperDX draws may lie from the exact one, relatively. The bridge spreads each
 * sketch bin (width γ) over the scale-5 exponential buckets it overlaps (width 2^(1/32); src/signals/
 * metrics/sketch-buckets.ts), and HyperDX interpolates inside the bucket holding the rank: its value
 * and the exact value lie in the same bin's span widened by one bucket, a factor γ·2^(1/32) ≈ 1.038.
 */
export const PERCENTILE_TOLERANCE = 0.04;

/** Values per series and flush: 4 flushes a minute make 100 per interval (see quantile). */
const PER_FLUSH = 25;
/** Neighbouring values of one series are 2 % apart, and the series of a metric overlap (below). */
const STEP = 1.02;

/**
 * Series i's values at minute m, flush j: base·2^i·1.02^(25j + k + 3m). One series spans a factor
 * 1.02^99 ≈ 7 in a minute, more than the factor 2 between neighbouring series, so series merged
 * overlap; neighbouring ranks differ by 2 %, so p95 and p99 of one series by 8 %, and a percentile
 * from one minute to the next by 6 %: more than PERCENTILE_TOLERANCE.
 */
export function flushValues(base: number, series: number, minute: number, flush: number): number[] {
  return Array.from({ length: PER_FLUSH }, (_, k) => base * 2 ** series * STEP ** (PER_FLUSH * flush + k + 3 * minute));
}

/** The agent's sketch key of a positive value: values in [γ^(k−1338), γ^(k−1337)) share key k (sketch-buckets.ts). */
const GAMMA = 1 + 2 / 128;
const BIAS = 1338;
const sketchKey = (value: number): number => Math.floor(Math.log(value) / Math.log(GAMMA)) + BIAS;

/** One flush's values as the agent's dogsketch: count, min, max, avg, sum and its bins (keys ascending). */
function dogsketch(ts: number, values: readonly number[]): Record<string, unknown> {
  const bins = new Map<number, number>();
  for (const v of values) bins.set(sketchKey(v), (bins.get(sketchKey(v)) ?? 0) + 1);
  const keys = [...bins.keys()].sort((a, b) => a - b);
  return { ts, cnt: values.length, min: Math.min(...values), max: Math.max(...values), avg: sum(values) / values.length, sum: sum(values), k: keys, n: keys.map((k) => bins.get(k)!) };
}

/** A distribution series as the workload holds it (evaluate.ts's SentSeries): its points are its raw values. */
export interface SketchedSeries {
  metric: string;
  host: string;
  tags: string[];
  points: readonly Sample[];
}

const SKETCHES_PER_PAYLOAD = 500;

/** Each series' values as the agent sends them: one sketch per flush (values of one time), zstd SketchPayload. */
export async function sendSketches(intakeUrl: string, apiKey: string, all: readonly SketchedSeries[]): Promise<number> {
  let points = 0;
  for (let i = 0; i < all.length; i += SKETCHES_PER_PAYLOAD) {
    const sketches = all.slice(i, i + SKETCHES_PER_PAYLOAD).map((s) => {
      const byFlush = new Map<number, number[]>();
      for (const p of s.points) byFlush.set(p.ts, [...(byFlush.get(p.ts) ?? []), p.value]);
      points += byFlush.size;
      return { metric: s.metric, host: s.host, tags: s.tags, dogsketches: [...byFlush].map(([ts, values]) => dogsketch(ts, values)) };
    });
    const res = await fetch(`${intakeUrl}/api/beta/sketches`, { method: 'POST', body: await agentZstd(encodeSketchPayload({ sketches, metadata: {} })), headers: { 'DD-Api-Key': apiKey, ...AGENT_PROTOBUF_HEADERS } });
    if (res.status !== 202) throw new Error(`/api/beta/sketches: ${res.status} ${await res.text()}`);
  }
  return points;
}
