/**
 * The DDSketch protobuf (DataDog/sketches-go `ddsketch.proto`) that tracers put in APM stats'
 * OkSummary / ErrorSummary: a log index mapping (gamma, indexOffset) and stores of bin counts.
 * Bin `k` holds the values in (gamma^(k-offset-1), gamma^(k-offset)]. An empty body is an empty
 * sketch.
 */
import type { DdSketch } from '../datadog';
import { fixed64, message, readFields, repeated, varint } from '../../../core/wire/proto-fields';
import { ProtoDecodeError, ProtoReader, WireType } from '../../../core/wire/proto-reader';
import { FieldError } from './fields';

function storeCounts(r: ProtoReader, into: Map<number, number>): void {
  const contiguous: number[] = [];
  let offset = 0;
  readFields(r, {
    1: message(
      () => 'binCounts',
      (m) => {
        let key = 0;
        let count = 0;
        readFields(m, { 1: varint((e) => (key = e.sint32())), 2: fixed64((e) => (count = e.double())) });
        into.set(key, (into.get(key) ?? 0) + count);
      },
    ),
    2: repeated(WireType.Fixed64, (m) => m.double(), contiguous),
    3: varint((m) => (offset = m.sint32())),
  });
  contiguous.forEach((count, i) => {
    into.set(offset + i, (into.get(offset + i) ?? 0) + count);
  });
}

/**
 * Counts are doubles on the wire. Only positive ones up to 2^32 describe hits (a 10 s stats
 * bucket never holds more), which also keeps any sum of them inside the uint64 OTLP counts.
 */
const MAX_COUNT = 2 ** 32;
const usable = (count: number): boolean => count > 0 && count <= MAX_COUNT;

/** Malformed sketch bytes are a FieldError, so the error names where in the stats payload they sat. */
export function decodeSketch(bytes: Uint8Array): DdSketch {
  try {
    return readSketch(new ProtoReader(bytes, 0, bytes.length, 'DDSketch'));
  } catch (err) {
    if (err instanceof ProtoDecodeError) throw new FieldError(err.message);
    throw err;
  }
}

function readSketch(r: ProtoReader): DdSketch {
  let gamma = 0;
  let indexOffset = 0;
  let zeroCount = 0;
  const positive = new Map<number, number>();
  const negative = new Map<number, number>();
  readFields(r, {
    1: message(
      () => 'mapping',
      (m) => readFields(m, { 1: fixed64((x) => (gamma = x.double())), 2: fixed64((x) => (indexOffset = x.double())) }),
    ),
    2: message(
      () => 'positiveValues',
      (m) => storeCounts(m, positive),
    ),
    3: message(
      () => 'negativeValues',
      (m) => storeCounts(m, negative),
    ),
    4: fixed64((m) => (zeroCount = m.double())),
  });
  if (positive.size > 0 && !(gamma > 1)) r.fail(`mapping.gamma must be > 1, got ${gamma}`);
  const bins = [...positive]
    .map(([key, count]) => ({ upper: gamma ** (key - indexOffset), count }))
    .filter((bin) => usable(bin.count) && Number.isFinite(bin.upper))
    .sort((a, b) => a.upper - b.upper);
  const zero = [zeroCount, ...negative.values()].filter(usable).reduce((a, b) => a + b, 0);
  return { bins, zeroCount: zero };
}
