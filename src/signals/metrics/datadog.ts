/**
 * Datadog metric intake model. Every wire form (v1 JSON,
 * v2 JSON or protobuf, v3 columnar, sketches, distribution points, service checks) is parsed into
 * these shapes, so the translator never needs to know which route or encoding a metric came by.
 * Times are seconds since the epoch, as Datadog sends them.
 */

/** v2/v3 number for each type; v1 spells them out. A missing type is a gauge, as the Datadog API treats it. */
export type SeriesType = 'count' | 'rate' | 'gauge';

export const SERIES_TYPE_BY_NUMBER: ReadonlyMap<number, SeriesType> = new Map([
  [0, 'gauge'],
  [1, 'count'],
  [2, 'rate'],
  [3, 'gauge'],
]);

/** What a series says about where it comes from: `{host, <name>}`, `{device, <name>}`, …. */
export interface MetricResource {
  type: string;
  name: string;
}

/** The agent's resource order for what v1 and sketches send as plain fields: host first, then device. */
export function hostResources(host: string, device = ''): MetricResource[] {
  const resources: MetricResource[] = [];
  if (host) resources.push({ type: 'host', name: host });
  if (device) resources.push({ type: 'device', name: device });
  return resources;
}

export interface SeriesPoint {
  timestamp: number;
  value: number;
}

export interface Series {
  metric: string;
  type: SeriesType;
  points: SeriesPoint[];
  /** Possibly shared with other series and payloads (the direct reader interns tag runs): never changed once read. */
  tags: readonly string[];
  resources: MetricResource[];
  /** Seconds the value covers (rates are per second over it); 0 = not sent. */
  interval: number;
  unit: string;
  sourceTypeName: string;
}

/** One flush interval of a DDSketch: bin keys and counts in the agent's log-γ mapping. */
export interface SketchPoint {
  timestamp: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  keys: number[];
  counts: number[];
}

export interface Sketch {
  metric: string;
  tags: string[];
  resources: MetricResource[];
  points: SketchPoint[];
}

/** Raw values an API client measured at one timestamp. */
export interface DistributionPoint {
  timestamp: number;
  values: number[];
}

export interface DistributionSeries {
  metric: string;
  tags: string[];
  resources: MetricResource[];
  points: DistributionPoint[];
}

/** 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN. */
export interface ServiceCheck {
  check: string;
  hostName: string;
  /** undefined when not sent */
  timestamp: number | undefined;
  status: number;
  message: string;
  tags: string[];
}

/**
 * What one intake body held. `dropped` counts what was read but cannot be translated (a `null`
 * value, a type we do not know, a sketch bin outside the mapping), by reason.
 */
export interface MetricsPayload {
  series: Series[];
  sketches: Sketch[];
  distributions: DistributionSeries[];
  serviceChecks: ServiceCheck[];
  dropped: DropCounts;
}

/**
 * `invalid_value`: a value, sum, min or max that is not a finite number (JSON's `1e400`, a
 * protobuf ±Inf or NaN, a rate × interval past the double range); `invalid_interval`: a rate
 * whose interval is not finite or is negative, so the count it stands for is unknown.
 */
export type DropReason = 'null_value' | 'unknown_type' | 'sketch_key_out_of_range' | 'invalid_timestamp' | 'negative_count' | 'invalid_value' | 'invalid_interval';
export type DropCounts = Partial<Record<DropReason, number>>;

export const emptyPayload = (): MetricsPayload => ({ series: [], sketches: [], distributions: [], serviceChecks: [], dropped: {} });

export function countDrop(dropped: DropCounts, reason: DropReason, by = 1): void {
  dropped[reason] = (dropped[reason] ?? 0) + by;
}

/** Adds the counts of `from` to `into` (a body read in pieces counts its drops per piece). */
export function addDrops(into: DropCounts, from: DropCounts): void {
  for (const [reason, count] of Object.entries(from) as [DropReason, number][]) countDrop(into, reason, count);
}
