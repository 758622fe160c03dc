/**
 * Reads the metrics the real collector's file exporter wrote (the metrics lines of `otlp.jsonl`, OTLP JSON, one
 * export request per line), flattened to one row per data point with its metric's name, kind,
 * temporality and unit and its resource attributes, so tests can assert on single values.
 */
import { attributesOf, readLines, waitFor } from './sink';

type Json = any;

export type MetricKind = 'gauge' | 'sum' | 'histogram' | 'exponentialHistogram' | 'summary';
const KINDS: readonly MetricKind[] = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'];

export interface SinkPoint {
  name: string;
  kind: MetricKind;
  unit: string | undefined;
  /** 1 delta, 2 cumulative; undefined for gauges */
  temporality: number | undefined;
  isMonotonic: boolean;
  resource: Record<string, unknown>;
  scope: { name?: string; version?: string };
  attributes: Record<string, unknown>;
  /** the data point as written (timeUnixNano and counts are strings) */
  point: Json;
  /** asDouble, or asInt as a number, for number points */
  value: number | undefined;
  timeUnixNano: bigint;
  startTimeUnixNano: bigint;
}

const numberValue = (p: Json): number | undefined => (p.asDouble !== undefined ? Number(p.asDouble) : p.asInt !== undefined ? Number(p.asInt) : undefined);

export function metricPoints(dir: string): SinkPoint[] {
  return readLines(dir, 'metrics').flatMap((req: Json) =>
    (req.resourceMetrics ?? []).flatMap((rm: Json) =>
      (rm.scopeMetrics ?? []).flatMap((sm: Json) =>
        (sm.metrics ?? []).flatMap((m: Json) => {
          const kind = KINDS.find((k) => m[k] !== undefined);
          if (!kind) return [];
          return (m[kind].dataPoints ?? []).map(
            (point: Json): SinkPoint => ({
              name: m.name,
              kind,
              unit: m.unit,
              temporality: m[kind].aggregationTemporality,
              isMonotonic: m[kind].isMonotonic === true,
              resource: attributesOf(rm.resource?.attributes),
              scope: sm.scope ?? {},
              attributes: attributesOf(point.attributes),
              point,
              value: numberValue(point),
              timeUnixNano: BigInt(point.timeUnixNano ?? 0),
              startTimeUnixNano: BigInt(point.startTimeUnixNano ?? 0),
            }),
          );
        }),
      ),
    ),
  );
}

/** Points of the metrics whose name starts with `prefix` (each test uses its own prefix). */
export const pointsNamed = (dir: string, prefix: string): SinkPoint[] => metricPoints(dir).filter((p) => p.name.startsWith(prefix));

/** The one point of metric `name` among `points`; fails with the names present otherwise. */
export function pointNamed(points: SinkPoint[], name: string): SinkPoint {
  const found = points.find((p) => p.name === name);
  if (!found) throw new Error(`no point named ${name} among ${points.map((p) => p.name).join(', ')}`);
  return found;
}

/** Waits until at least `count` points of metrics named `prefix…` are in the sink. */
export const waitForPoints = (dir: string, prefix: string, count: number): Promise<SinkPoint[]> =>
  waitFor(
    () => pointsNamed(dir, prefix),
    (p) => p.length >= count,
  );
