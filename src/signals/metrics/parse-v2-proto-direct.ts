/**
 * The agent's /api/v2/series MetricPayload read in straight loops over the bytes. The generic path
 * (metrics-v2-proto.ts) dispatches every field through a reader table and makes a ProtoReader per
 * series, point and resource; on series, parsing was ~38 % of the sidecar's route work, and this
 * payload is the agent's most frequent one.
 *
 * It only answers for bodies it reads without a doubt: a truncated or oversized field, a varint
 * past 2^49, a field number 0, a group or an empty metric name makes it give up (shared/fast-path.ts),
 * and the generic path reads the body from that top-level field on and gives the only answer, or
 * the error with its field path. For what it accepts it applies the generic path's rules: unknown fields, and known fields
 * with another wire type, are skipped; the last value of a repeated scalar field wins; a series of
 * an unknown type is dropped and its points counted.
 */
import { countDrop, emptyPayload, SERIES_TYPE_BY_NUMBER, type MetricResource, type MetricsPayload, type Series, type SeriesPoint, type SeriesType } from './datadog';
import { stringAt, WireType } from '../../core/wire/proto-reader';
import { GIVE_UP, type Progress } from '../shared/fast-path';

/** A cursor over one body; `end` is the end of the message being read. */
class Cursor {
  pos = 0;

  constructor(readonly bytes: Buffer) {}

  /** A varint below 2^49 (what the generic path reads as a number without BigInt), else give up. */
  varint(end: number): number {
    const bytes = this.bytes;
    let value = 0;
    for (let scale = 1; scale < 2 ** 49; scale *= 128) {
      if (this.pos >= end) throw GIVE_UP;
      const byte = bytes[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
    throw GIVE_UP;
  }

  /** The end of the length-delimited field starting here. */
  lengthEnd(end: number): number {
    const length = this.varint(end);
    if (length > end - this.pos) throw GIVE_UP;
    return this.pos + length;
  }

  string(end: number): string {
    const to = this.lengthEnd(end);
    const at = this.pos;
    this.pos = to;
    return stringAt(this.bytes, at, to - at);
  }

  double(end: number): number {
    if (end - this.pos < 8) throw GIVE_UP;
    const at = this.pos;
    this.pos += 8;
    return this.bytes.readDoubleLE(at);
  }

  /** The next field's key (field number << 3 | wire type). */
  key(end: number): number {
    const key = this.varint(end);
    // field number 0, or a key the generic reader refuses as wider than 32 bits
    if (key < 8 || key > 0xffff_ffff) throw GIVE_UP;
    return key;
  }

  skip(wire: number, end: number): void {
    switch (wire) {
      case WireType.Varint:
        // any length up to ten bytes: skipped values are never read
        for (let n = 0; ; n++) {
          if (n === 10 || this.pos >= end) throw GIVE_UP;
          if ((this.bytes[this.pos++] as number) < 0x80) return;
        }
      case WireType.Fixed64:
        if (end - this.pos < 8) throw GIVE_UP;
        this.pos += 8;
        return;
      case WireType.Len:
        this.pos = this.lengthEnd(end);
        return;
      case WireType.Fixed32:
        if (end - this.pos < 4) throw GIVE_UP;
        this.pos += 4;
        return;
      default:
        throw GIVE_UP;
    }
  }
}

const LEN = WireType.Len;
const VARINT = WireType.Varint;
const TAG_KEY = (3 << 3) | LEN;

/** A tag run's bytes as sent, and its tags decoded once. */
interface InternedTags {
  bytes: Buffer;
  tags: readonly string[];
}

const TAG_RUN_BITS = 11;
const tagRuns: (InternedTags | undefined)[] = new Array(2 ** TAG_RUN_BITS);

/** One step of a multiplicative hash (rotate, xor, multiply by 2^32/φ): every input bit reaches the top bits, which pick the slot. */
const mix = (hash: number, word: number): number => Math.imul(((hash << 5) | (hash >>> 27)) ^ word, 0x9e3779b1);

/**
 * The tags of the run of tag fields starting at the key at `at`: one frozen array per distinct
 * run of bytes, process-wide, so the series of one container (and the same series in the next
 * flush) share it, and the translator can memoize by the array itself. Placed by a hash of the
 * bytes in one of two slots and compared in full, so the cache stays bounded and a collision only
 * replaces.
 */
function tagRun(c: Cursor, at: number, end: number): readonly string[] {
  const bytes = c.bytes;
  c.pos = at;
  let hash = 0;
  while (c.pos < end && bytes[c.pos] === TAG_KEY) {
    c.pos++;
    const to = c.lengthEnd(end);
    let i = c.pos;
    // four bytes a step, a quarter of the multiplies of hashing byte by byte (~2 % of the series route)
    for (; i + 4 <= to; i += 4) hash = mix(hash, (bytes[i] as number) | ((bytes[i + 1] as number) << 8) | ((bytes[i + 2] as number) << 16) | ((bytes[i + 3] as number) << 24));
    for (; i < to; i++) hash = mix(hash, bytes[i] as number);
    hash = mix(hash, TAG_KEY); // the end of a tag: "ab","c" and "a","bc" differ
    c.pos = to;
  }
  const runEnd = c.pos;
  const first = hash >>> (32 - TAG_RUN_BITS);
  const second = (hash >>> 10) & (2 ** TAG_RUN_BITS - 1);
  const known = sameRun(tagRuns[first], bytes, at, runEnd) ?? sameRun(tagRuns[second], bytes, at, runEnd);
  if (known !== undefined) return known;
  const tags: string[] = [];
  for (c.pos = at; c.pos < runEnd; ) {
    c.pos++;
    tags.push(c.string(runEnd));
  }
  // two places a run may live: a run only displaces another when both of its places are taken
  const slot = tagRuns[first] === undefined ? first : tagRuns[second] === undefined ? second : hash & 1 ? first : second;
  tagRuns[slot] = { bytes: Buffer.from(bytes.subarray(at, runEnd)), tags: Object.freeze(tags) };
  return tags;
}

function sameRun(known: InternedTags | undefined, bytes: Buffer, at: number, end: number): readonly string[] | undefined {
  return known !== undefined && known.bytes.length === end - at && bytes.compare(known.bytes, 0, known.bytes.length, at, end) === 0 ? known.tags : undefined;
}

function resource(c: Cursor, end: number): MetricResource {
  const res: MetricResource = { type: '', name: '' };
  while (c.pos < end) {
    const key = c.key(end);
    if (key === ((1 << 3) | LEN)) res.type = c.string(end);
    else if (key === ((2 << 3) | LEN)) res.name = c.string(end);
    else c.skip(key & 7, end);
  }
  return res;
}

function point(c: Cursor, end: number): SeriesPoint {
  const p: SeriesPoint = { timestamp: 0, value: 0 };
  while (c.pos < end) {
    const key = c.key(end);
    if (key === ((1 << 3) | WireType.Fixed64)) p.value = c.double(end);
    else if (key === ((2 << 3) | VARINT)) p.timestamp = c.varint(end);
    else c.skip(key & 7, end);
  }
  return p;
}

/** One series; undefined when its type is one we do not know (its points are counted as dropped). */
function series(c: Cursor, end: number, payload: MetricsPayload): Series | undefined {
  let type: SeriesType | undefined = 'gauge';
  const s: Series = { metric: '', type: 'gauge', points: [], tags: [], resources: [], interval: 0, unit: '', sourceTypeName: '' };
  while (c.pos < end) {
    const at = c.pos;
    const key = c.key(end);
    switch (key) {
      case (1 << 3) | LEN: {
        const to = c.lengthEnd(end);
        s.resources.push(resource(c, to));
        break;
      }
      case (2 << 3) | LEN:
        s.metric = c.string(end);
        break;
      case TAG_KEY: {
        // a key written in more than one byte is read alone; a second run (tags split around
        // other fields) is appended to the first as a new array
        const run = c.bytes[at] === TAG_KEY ? tagRun(c, at, end) : [c.string(end)];
        s.tags = s.tags.length === 0 ? run : [...s.tags, ...run];
        break;
      }
      case (4 << 3) | LEN: {
        const to = c.lengthEnd(end);
        s.points.push(point(c, to));
        break;
      }
      case (5 << 3) | VARINT:
        // int32: the generic path keeps the low 32 bits, two's complement
        type = SERIES_TYPE_BY_NUMBER.get(c.varint(end) | 0);
        break;
      case (6 << 3) | LEN:
        s.unit = c.string(end);
        break;
      case (7 << 3) | LEN:
        s.sourceTypeName = c.string(end);
        break;
      case (8 << 3) | VARINT:
        s.interval = c.varint(end);
        break;
      default:
        c.skip(key & 7, end);
    }
  }
  if (s.metric === '') throw GIVE_UP; // an error, with its field path, from the generic path
  if (type === undefined) {
    countDrop(payload.dropped, 'unknown_type', s.points.length);
    return undefined;
  }
  s.type = type;
  return s;
}

/** Where the direct reader has got to: the top-level field at byte `at`, with `met` series records before it. */
export interface FieldAt {
  at: number;
  met: number;
}

export const BODY_START: FieldAt = { at: 0, met: 0 };

/**
 * Hands the series of `body` to `take` in order, in pieces of at most `pieceSize` kept series
 * (the last piece may be empty but carries the drop counts). When it gives up it has handed over
 * everything before the top-level field in `progress`: a MetricPayload's top-level fields are
 * independent records, so the generic path can read the rest from there and give its answer, or
 * its error with the field path, for the rest alone.
 */
export function readMetricPayloadPieces(body: Uint8Array, pieceSize: number, take: (piece: MetricsPayload) => void, progress: Progress<FieldAt>): void {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const c = new Cursor(bytes);
  const end = bytes.length;
  let piece = emptyPayload();
  let at = 0;
  let met = 0;
  try {
    while (c.pos < end) {
      at = c.pos;
      const key = c.key(end);
      if (key === ((1 << 3) | LEN)) {
        const to = c.lengthEnd(end);
        const s = series(c, to, piece);
        met++;
        if (s && piece.series.push(s) === pieceSize) {
          take(piece);
          piece = emptyPayload();
        }
      } else c.skip(key & 7, end);
    }
  } catch (err) {
    progress.at = { at, met };
    throw err;
  } finally {
    // what was read before the field it stops at, whether it finished or gave up
    take(piece);
  }
}
