/**
 * POST /api/beta/sketches (and /api/v1/sketches): protobuf `SketchPayload`.
 * Each sketch carries one Dogsketch per flush interval: summary (cnt, min, max, sum) and
 * parallel bin keys `k` (sint32) and counts `n`. The legacy `distributions` form is no longer
 * written by any agent and is skipped, as upstream does.
 */
import { emptyPayload, hostResources, type MetricsPayload, type Sketch, type SketchPoint } from './datadog';
import { decodeProtobuf, fixed64, int64Number, messageAt, readInto, text, uint32sIn, varint, type FieldReaders } from '../../core/wire/proto-fields';
import type { ProtoReader } from '../../core/wire/proto-reader';

const WHAT = 'sketches';

/** The body being read: the piece not yet handed over, and sketches met so far (the index in error paths). */
interface PiecesDraft {
  piece: MetricsPayload;
  met: number;
  pieceSize: number;
  take: (piece: MetricsPayload) => void;
}

// the field tables are made once, not per message read (see readInto)
const PAYLOAD: FieldReaders<PiecesDraft> = {
  1: messageAt(
    'sketches',
    (d) => d.met,
    (m, d) => {
      d.met++;
      if (d.piece.sketches.push(sketchFrom(m)) === d.pieceSize) {
        d.take(d.piece);
        d.piece = emptyPayload();
      }
    },
  ),
};

const SKETCH: FieldReaders<Sketch> = {
  1: text((v, s) => (s.metric = v)),
  // the last host sent wins, as protobuf has it
  2: text((v, s) => (s.resources = hostResources(v))),
  4: text((v, s) => s.tags.push(v)),
  7: messageAt(
    'dogsketches',
    (s) => s.points.length,
    (m, s) => s.points.push(dogsketchFrom(m)),
  ),
};

const DOGSKETCH: FieldReaders<SketchPoint> = {
  1: varint((m, p) => (p.timestamp = int64Number(m))),
  2: varint((m, p) => (p.count = int64Number(m))),
  3: fixed64((m, p) => (p.min = m.double())),
  4: fixed64((m, p) => (p.max = m.double())),
  6: fixed64((m, p) => (p.sum = m.double())),
  7: uint32sIn(true, (p: SketchPoint) => p.keys),
  8: uint32sIn(false, (p: SketchPoint) => p.counts),
};

/**
 * Hands the body's sketches to `take` in order, in pieces of at most `pieceSize`, so that a large
 * body's parsed sketches need not all be alive at once (route-common.ts). A malformed sketch
 * stops it with the error of its field path, after the pieces before it were handed over.
 */
export function decodeSketchPayloadInPieces(body: Uint8Array, pieceSize: number, take: (piece: MetricsPayload) => void): void {
  decodeProtobuf(WHAT, body, 'SketchPayload', (r) => {
    const draft: PiecesDraft = { piece: emptyPayload(), met: 0, pieceSize, take };
    readInto(r, PAYLOAD, draft);
    take(draft.piece);
  });
}

export function decodeSketchPayload(body: Uint8Array): MetricsPayload {
  let whole = emptyPayload();
  // one piece, handed over at the end
  decodeSketchPayloadInPieces(body, Infinity, (piece) => (whole = piece));
  return whole;
}

function sketchFrom(r: ProtoReader): Sketch {
  const sketch: Sketch = { metric: '', tags: [], resources: [], points: [] };
  readInto(r, SKETCH, sketch);
  if (sketch.metric === '') r.fail('metric name is empty');
  return sketch;
}

function dogsketchFrom(r: ProtoReader): SketchPoint {
  const point: SketchPoint = { timestamp: 0, count: 0, sum: 0, min: 0, max: 0, keys: [], counts: [] };
  readInto(r, DOGSKETCH, point);
  if (point.keys.length !== point.counts.length) r.fail(`${point.keys.length} bin keys (k) but ${point.counts.length} counts (n)`);
  return point;
}
