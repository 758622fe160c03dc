/**
 * POST /api/beta/sketches (and /api/v1/sketches): protobuf `SketchPayload` (intake-protocol.md
 * §9.1). Each sketch carries one Dogsketch per flush interval: summary (cnt, min, max, sum) and
 * parallel bin keys `k` (sint32) and counts `n`. The legacy `distributions` form is no longer
 * written by any agent and is skipped, as upstream does.
 */
import { emptyPayload, hostResources, type MetricsPayload, type Sketch, type SketchPoint } from '../datadog/metrics';
import { decodeProtobuf, fixed64, int64Number, message, readFields, repeated, text, varint } from './metrics-proto';
import { WireType, type ProtoReader } from './proto-reader';

const WHAT = 'sketches';

export function decodeSketchPayload(body: Uint8Array): MetricsPayload {
  return decodeProtobuf(WHAT, body, 'SketchPayload', (r) => {
    const payload = emptyPayload();
    readFields(r, { 1: message(() => `sketches[${payload.sketches.length}]`, (m) => payload.sketches.push(sketchFrom(m))) });
    return payload;
  });
}

function sketchFrom(r: ProtoReader): Sketch {
  const sketch: Sketch = { metric: '', tags: [], resources: [], points: [] };
  let host = '';
  readFields(r, {
    1: text((v) => (sketch.metric = v)),
    2: text((v) => (host = v)),
    4: text((v) => sketch.tags.push(v)),
    7: message(() => `dogsketches[${sketch.points.length}]`, (m) => sketch.points.push(dogsketchFrom(m))),
  });
  if (sketch.metric === '') r.fail('metric name is empty');
  return { ...sketch, resources: hostResources(host) };
}

function dogsketchFrom(r: ProtoReader): SketchPoint {
  const point: SketchPoint = { timestamp: 0, count: 0, sum: 0, min: 0, max: 0, keys: [], counts: [] };
  readFields(r, {
    1: varint((m) => (point.timestamp = int64Number(m))),
    2: varint((m) => (point.count = int64Number(m))),
    3: fixed64((m) => (point.min = m.double())),
    4: fixed64((m) => (point.max = m.double())),
    6: fixed64((m) => (point.sum = m.double())),
    7: repeated(WireType.Varint, (m) => m.sint32(), point.keys),
    8: repeated(WireType.Varint, (m) => m.uint32(), point.counts),
  });
  if (point.keys.length !== point.counts.length) r.fail(`${point.keys.length} bin keys (k) but ${point.counts.length} counts (n)`);
  return point;
}
