/**
 * POST /api/v2/series as JSON, what the public API client sends:
 * `{"series":[{metric, type (0–3), points:[{timestamp, value}], resources:[{type, name}], tags,
 * unit, interval, source_type_name}]}`. Type 0 (unspecified) is stored as a gauge, as the Datadog
 * API does; an unknown type number drops the series (counted), not the batch.
 */
import { countDrop, emptyPayload, SERIES_TYPE_BY_NUMBER, type DropCounts, type MetricResource, type MetricsPayload, type Series, type SeriesPoint } from './datadog';
import type { JsonValue } from '../../core/wire/json';
import { arrayAt, requiredNumber, objectAt, optionalNumber, optionalString, pointValue, readSeries, requiredString, stringList } from './parse-json';

const WHAT = 'v2 series';

export function parseSeriesV2Json(body: Buffer): MetricsPayload {
  const payload = emptyPayload();
  payload.series = readSeries(WHAT, body, (value, path) => seriesAt(value, path, payload.dropped));
  return payload;
}

function seriesAt(value: JsonValue, path: string, dropped: DropCounts): Series | undefined {
  const o = objectAt(WHAT, value, path);
  const metric = requiredString(WHAT, o.metric, `${path}.metric`);
  const type = SERIES_TYPE_BY_NUMBER.get(optionalNumber(WHAT, o.type, `${path}.type`) ?? 0);
  const points = arrayAt(WHAT, o.points, `${path}.points`).flatMap((p, i) => pointAt(p, `${path}.points[${i}]`, dropped));
  if (!type) {
    countDrop(dropped, 'unknown_type', points.length);
    return undefined;
  }
  return {
    metric,
    type,
    points,
    tags: stringList(WHAT, o.tags, `${path}.tags`),
    resources: o.resources === undefined || o.resources === null ? [] : arrayAt(WHAT, o.resources, `${path}.resources`).map((r, i) => resourceAt(r, `${path}.resources[${i}]`)),
    interval: optionalNumber(WHAT, o.interval, `${path}.interval`) ?? 0,
    unit: optionalString(WHAT, o.unit, `${path}.unit`),
    sourceTypeName: optionalString(WHAT, o.source_type_name, `${path}.source_type_name`),
  };
}

function pointAt(value: JsonValue, path: string, dropped: DropCounts): SeriesPoint[] {
  const o = objectAt(WHAT, value, path);
  const timestamp = requiredNumber(WHAT, o.timestamp, `${path}.timestamp`);
  const v = pointValue(WHAT, o.value, `${path}.value`, dropped);
  return v === undefined ? [] : [{ timestamp, value: v }];
}

function resourceAt(value: JsonValue, path: string): MetricResource {
  const o = objectAt(WHAT, value, path);
  return { type: optionalString(WHAT, o.type, `${path}.type`), name: optionalString(WHAT, o.name, `${path}.name`) };
}
