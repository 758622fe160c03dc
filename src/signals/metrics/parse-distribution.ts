/**
 * POST /api/v1/distribution_points (public API client, datadog-metrics):
 * `{"series":[{metric, points:[[timestamp, [value, …]]], tags, host, type:"distribution"}]}`.
 * Each point holds the raw values measured at that second; `null` values are skipped and counted.
 */
import { emptyPayload, hostResources, type DistributionPoint, type DistributionSeries, type DropCounts, type MetricsPayload } from './datadog';
import type { JsonValue } from '../../core/wire/json';
import { arrayAt, fieldError, requiredNumber, objectAt, optionalString, pointValue, readSeries, requiredString, stringList } from './parse-json';

const WHAT = 'distribution_points';

export function parseDistributionPoints(body: Buffer): MetricsPayload {
  const payload = emptyPayload();
  payload.distributions = readSeries(WHAT, body, (value, path) => seriesAt(value, path, payload.dropped));
  return payload;
}

function seriesAt(value: JsonValue, path: string, dropped: DropCounts): DistributionSeries {
  const o = objectAt(WHAT, value, path);
  return {
    metric: requiredString(WHAT, o.metric, `${path}.metric`),
    tags: stringList(WHAT, o.tags, `${path}.tags`),
    resources: hostResources(optionalString(WHAT, o.host, `${path}.host`)),
    points: arrayAt(WHAT, o.points, `${path}.points`).map((p, i) => pointAt(p, `${path}.points[${i}]`, dropped)),
  };
}

function pointAt(value: JsonValue, path: string, dropped: DropCounts): DistributionPoint {
  if (!Array.isArray(value) || value.length !== 2) throw fieldError(WHAT, path, '[timestamp, [values]]', value);
  const values = arrayAt(WHAT, value[1], `${path}[1]`).flatMap((v, i) => pointValue(WHAT, v, `${path}[1][${i}]`, dropped) ?? []);
  return { timestamp: requiredNumber(WHAT, value[0], `${path}[0]`), values };
}
