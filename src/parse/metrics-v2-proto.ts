/**
 * POST /api/v2/series from the agent: protobuf `MetricPayload` (intake-protocol.md §9.1), one
 * `series` record per series, resources `{host, …}` first. The agent's `metadata.origin` is not
 * read: it says which Datadog product sent the point, nothing OTLP has a place for.
 */
import { countDrop, emptyPayload, SERIES_TYPE_BY_NUMBER, type DropCounts, type MetricResource, type MetricsPayload, type Series, type SeriesPoint } from '../datadog/metrics';
import { decodeProtobuf, fixed64, int64Number, message, readFields, text, varint } from './metrics-proto';
import type { ProtoReader } from './proto-reader';

const WHAT = 'v2 series';

export function decodeMetricPayload(body: Uint8Array): MetricsPayload {
  return decodeProtobuf(WHAT, body, 'MetricPayload', (r) => {
    const payload = emptyPayload();
    let index = 0;
    readFields(r, {
      1: message(
        () => `series[${index++}]`,
        (m) => {
          const series = seriesFrom(m, payload.dropped);
          if (series) payload.series.push(series);
        },
      ),
    });
    return payload;
  });
}

function seriesFrom(r: ProtoReader, dropped: DropCounts): Series | undefined {
  const s: Series = { metric: '', type: 'gauge', points: [], tags: [], resources: [], interval: 0, unit: '', sourceTypeName: '' };
  let typeNumber = 0;
  readFields(r, {
    1: message(() => `resources[${s.resources.length}]`, (m) => s.resources.push(resourceFrom(m))),
    2: text((v) => (s.metric = v)),
    3: text((v) => s.tags.push(v)),
    4: message(() => `points[${s.points.length}]`, (m) => s.points.push(pointFrom(m))),
    5: varint((m) => (typeNumber = m.int32())),
    6: text((v) => (s.unit = v)),
    7: text((v) => (s.sourceTypeName = v)),
    8: varint((m) => (s.interval = int64Number(m))),
  });
  if (s.metric === '') r.fail('metric name is empty');
  const type = SERIES_TYPE_BY_NUMBER.get(typeNumber);
  if (!type) {
    countDrop(dropped, 'unknown_type', s.points.length);
    return undefined;
  }
  return { ...s, type };
}

function pointFrom(r: ProtoReader): SeriesPoint {
  const point: SeriesPoint = { timestamp: 0, value: 0 };
  readFields(r, {
    1: fixed64((m) => (point.value = m.double())),
    2: varint((m) => (point.timestamp = int64Number(m))),
  });
  return point;
}

function resourceFrom(r: ProtoReader): MetricResource {
  const resource: MetricResource = { type: '', name: '' };
  readFields(r, {
    1: text((v) => (resource.type = v)),
    2: text((v) => (resource.name = v)),
  });
  return resource;
}
