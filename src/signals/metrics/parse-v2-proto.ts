/**
 * POST /api/v2/series from the agent: protobuf `MetricPayload`, one
 * `series` record per series, resources `{host, …}` first. The agent's `metadata.origin` is not
 * read: it says which Datadog product sent the point, nothing OTLP has a place for.
 */
import { addDrops, countDrop, emptyPayload, SERIES_TYPE_BY_NUMBER, type MetricResource, type MetricsPayload, type Series, type SeriesPoint, type SeriesType } from './datadog';
import { decodeProtobuf, fixed64, int64Number, messageAt, readInto, text, varint, type FieldReaders } from '../../core/wire/proto-fields';
import { fastElseGeneral } from '../shared/fast-path';
import { BODY_START, readMetricPayloadPieces, type FieldAt } from './parse-v2-proto-direct';
import type { ProtoReader } from '../../core/wire/proto-reader';

const WHAT = 'v2 series';

interface PayloadDraft {
  payload: MetricsPayload;
  /** series records met so far, kept or not: the index in error paths */
  met: number;
}

/** A series being read: its type stays undefined when the number is one we do not know. */
type SeriesDraft = Omit<Series, 'type' | 'tags'> & { type: SeriesType | undefined; tags: string[] };

const hasType = (s: SeriesDraft): s is SeriesDraft & Series => s.type !== undefined;

// the field tables are made once, not per message read (see readInto)
const PAYLOAD: FieldReaders<PayloadDraft> = {
  1: messageAt(
    'series',
    (d) => d.met,
    (m, d) => {
      const series = seriesFrom(m, d.payload);
      if (series) d.payload.series.push(series);
      d.met++;
    },
  ),
};

const SERIES: FieldReaders<SeriesDraft> = {
  1: messageAt(
    'resources',
    (s) => s.resources.length,
    (m, s) => s.resources.push(resourceFrom(m)),
  ),
  2: text((v, s) => (s.metric = v)),
  3: text((v, s) => s.tags.push(v)),
  4: messageAt(
    'points',
    (s) => s.points.length,
    (m, s) => s.points.push(pointFrom(m)),
  ),
  // the last type sent wins, as protobuf has it; a number we do not know drops the series
  5: varint((m, s) => (s.type = SERIES_TYPE_BY_NUMBER.get(m.int32()))),
  6: text((v, s) => (s.unit = v)),
  7: text((v, s) => (s.sourceTypeName = v)),
  8: varint((m, s) => (s.interval = int64Number(m))),
};

const POINT: FieldReaders<SeriesPoint> = {
  1: fixed64((m, p) => (p.value = m.double())),
  2: varint((m, p) => (p.timestamp = int64Number(m))),
};

const RESOURCE: FieldReaders<MetricResource> = {
  1: text((v, res) => (res.type = v)),
  2: text((v, res) => (res.name = v)),
};

/**
 * The whole body: read straight through (metrics-v2-proto-direct.ts) and, from a field that reader
 * gives up on, by the generic path, whose answer or error decides; the two parts joined.
 */
export function decodeMetricPayload(body: Uint8Array): MetricsPayload {
  const whole = emptyPayload();
  decodeMetricPayloadInPieces(body, Infinity, (piece) => {
    for (const s of piece.series) whole.series.push(s);
    addDrops(whole.dropped, piece.dropped);
  });
  return whole;
}

/**
 * As decodeMetricPayload, handed to `take` in pieces of at most `pieceSize` series, so that a
 * large body's parsed series need not all be alive at once (route-common.ts). Whatever the
 * direct reader gives up on is read by the generic path from that field on, as the last piece.
 */
export function decodeMetricPayloadInPieces(body: Uint8Array, pieceSize: number, take: (piece: MetricsPayload) => void): void {
  fastElseGeneral(
    (progress) => readMetricPayloadPieces(body, pieceSize, take, progress),
    (from) => take(decodeMetricPayloadGeneric(body, from)),
    BODY_START,
  );
}

/** The body from the top-level field at `from.at` on, its series records numbered from `from.met` in error paths. */
export function decodeMetricPayloadGeneric(body: Uint8Array, from: FieldAt = BODY_START): MetricsPayload {
  return decodeProtobuf(
    WHAT,
    body,
    'MetricPayload',
    (r) => {
      const draft: PayloadDraft = { payload: emptyPayload(), met: from.met };
      readInto(r, PAYLOAD, draft);
      return draft.payload;
    },
    from.at,
  );
}

function seriesFrom(r: ProtoReader, payload: MetricsPayload): Series | undefined {
  const s: SeriesDraft = { metric: '', type: 'gauge', points: [], tags: [], resources: [], interval: 0, unit: '', sourceTypeName: '' };
  readInto(r, SERIES, s);
  if (s.metric === '') r.fail('metric name is empty');
  if (hasType(s)) return s;
  countDrop(payload.dropped, 'unknown_type', s.points.length);
  return undefined;
}

function pointFrom(r: ProtoReader): SeriesPoint {
  const point: SeriesPoint = { timestamp: 0, value: 0 };
  readInto(r, POINT, point);
  return point;
}

function resourceFrom(r: ProtoReader): MetricResource {
  const resource: MetricResource = { type: '', name: '' };
  readInto(r, RESOURCE, resource);
  return resource;
}
