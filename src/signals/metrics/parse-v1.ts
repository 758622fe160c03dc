/**
 * POST /api/v1/series body: `{"series":[{metric, points:[[ts, value]],
 * type, interval, host, device, tags, source_type_name, unit}]}`. API clients may leave out
 * `type` (the Datadog API then stores a gauge) and send `null` values; those points are skipped
 * and counted rather than failing the batch (upstream crashes on them).
 */
import { countDrop, emptyPayload, hostResources, type DropCounts, type MetricsPayload, type Series, type SeriesPoint, type SeriesType } from './datadog';
import type { JsonValue } from '../../core/wire/json';
import { arrayAt, fieldError, requiredNumber, objectAt, optionalNumber, optionalString, pointValue, readSeries, requiredString, stringList } from './parse-json';

const WHAT = 'v1 series';
const V1_TYPES: ReadonlySet<string> = new Set<SeriesType>(['count', 'rate', 'gauge']);
const isSeriesType = (type: string): type is SeriesType => V1_TYPES.has(type);

export function parseSeriesV1(body: Buffer): MetricsPayload {
  const payload = emptyPayload();
  payload.series = readSeries(WHAT, body, (value, path) => seriesAt(value, path, payload.dropped));
  return payload;
}

function seriesAt(value: JsonValue, path: string, dropped: DropCounts): Series | undefined {
  const o = objectAt(WHAT, value, path);
  const metric = requiredString(WHAT, o.metric, `${path}.metric`);
  const type = optionalString(WHAT, o.type, `${path}.type`) || 'gauge';
  const points = arrayAt(WHAT, o.points, `${path}.points`).flatMap((p, i) => pointAt(p, `${path}.points[${i}]`, dropped));
  if (!isSeriesType(type)) {
    countDrop(dropped, 'unknown_type', points.length);
    return undefined;
  }
  return {
    metric,
    type,
    points,
    tags: stringList(WHAT, o.tags, `${path}.tags`),
    resources: hostResources(optionalString(WHAT, o.host, `${path}.host`), optionalString(WHAT, o.device, `${path}.device`)),
    interval: optionalNumber(WHAT, o.interval, `${path}.interval`) ?? 0,
    unit: optionalString(WHAT, o.unit, `${path}.unit`),
    sourceTypeName: optionalString(WHAT, o.source_type_name, `${path}.source_type_name`),
  };
}

function pointAt(value: JsonValue, path: string, dropped: DropCounts): SeriesPoint[] {
  if (!Array.isArray(value) || value.length !== 2) throw fieldError(WHAT, path, '[timestamp, value]', value);
  const timestamp = requiredNumber(WHAT, value[0], `${path}[0]`);
  const v = pointValue(WHAT, value[1], `${path}[1]`, dropped);
  return v === undefined ? [] : [{ timestamp, value: v }];
}
