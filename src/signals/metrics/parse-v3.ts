/**
 * POST /api/intake/metrics/v3/{series,sketches}: the agent's columnar `Payload` (agent 7.81+;
 * docs/translation.md, v3 columnar intake). Strings sit in base-1 dictionaries (0 = empty); each
 * series is one entry in the per-series columns, whose dictionary refs are delta-encoded across the
 * whole column; point timestamps are delta-encoded across all points; sketch bin keys within each
 * point. Any reference outside its dictionary, or a column shorter than the series need, is a 400:
 * the columns no longer line up, so nothing after that point can be trusted.
 *
 * Framing: the agent compresses the MetricData field header and every column as separate zstd
 * streams and concatenates them (datadog-agent `pkg/serializer/internal/metrics/
 * iterable_series_v3.go`); decompressed back to back they form exactly one Payload, which is what
 * the server hands us. Should a body ever hold several concatenated Payload messages, protobuf
 * would merge their columns into one, and the second payload's dictionary refs would point into
 * the first one's dictionaries; so each `metricData` occurrence is decoded as its own block, with
 * its own dictionaries and delta accumulators, and the payload-wide metadata applies to all.
 *
 * Series and sketches are read from either path: the type word says which each entry is. Origin
 * info (dictOriginInfo, originInfoRefs: which Datadog product sent a series) has no OTLP
 * counterpart and is not read; that also spares us a pre-release agent revision that wrote
 * 4-value origin tuples where the published format has triples.
 */
import { countDrop, emptyPayload, SERIES_TYPE_BY_NUMBER, type MetricResource, type MetricsPayload, type SeriesPoint, type SketchPoint } from './datadog';
import { MalformedInputError } from '../../core/errors';
import { bytes, decodeProtobuf, int64Number, message, readFields, repeated, sint64Number, text, uint32sIn, uint64Number } from '../../core/wire/proto-fields';
import { ProtoReader, WireType } from '../../core/wire/proto-reader';

const WHAT = 'v3 metrics';

const METRIC_SKETCH = 4;
const VALUE_ZERO = 0x00;
const VALUE_SINT64 = 0x10;
const VALUE_FLOAT32 = 0x20;
const VALUE_FLOAT64 = 0x30;
const FLAG_HAS_UNIT = 0x200;

/**
 * Tagsets may splice in earlier tagsets, so a few bytes can describe a huge tag list (each
 * splice of the previous set doubles it). Real payloads stay far below this.
 */
export const MAX_EXPANDED_TAGS = 4_000_000;

interface MetricData {
  dictNameStr: Uint8Array;
  dictTagStr: Uint8Array;
  dictTagsets: number[];
  dictResourceStr: Uint8Array;
  dictResourceLen: number[];
  dictResourceType: number[];
  dictResourceName: number[];
  dictSourceTypeName: Uint8Array;
  dictUnitStr: Uint8Array;
  types: number[];
  nameRefs: number[];
  tagsetRefs: number[];
  resourcesRefs: number[];
  intervals: number[];
  numPoints: number[];
  sourceTypeNameRefs: number[];
  unitRefs: number[];
  timestamps: number[];
  valsSint64: number[];
  valsFloat32: number[];
  valsFloat64: number[];
  sketchNumBins: number[];
  sketchBinKeys: number[];
  sketchBinCnts: number[];
}

interface PayloadMetadata {
  tags: string[];
  /** flat [type, name, type, name, …] */
  resources: string[];
}

export function decodeV3Payload(body: Uint8Array): MetricsPayload {
  // the dictionaries are themselves length-prefixed byte runs, read after the outer message:
  // their wire errors must become the same 400
  return decodeProtobuf(WHAT, body, 'Payload', (r) => {
    const { blocks, metadata } = readPayload(r);
    const payload = emptyPayload();
    for (const block of blocks) decodeBlock(block, metadata, payload);
    return payload;
  });
}

function readPayload(r: ProtoReader): { blocks: MetricData[]; metadata: PayloadMetadata } {
  const blocks: MetricData[] = [];
  const metadata: PayloadMetadata = { tags: [], resources: [] };
  readFields(r, {
    2: message(
      () => 'metadata',
      (m) => readFields(m, { 1: text((v) => metadata.tags.push(v)), 2: text((v) => metadata.resources.push(v)) }),
    ),
    3: message(
      () => `metricData[${blocks.length}]`,
      (m) => blocks.push(readMetricData(m)),
    ),
  });
  if (metadata.resources.length % 2 !== 0) throw new MalformedInputError(`${WHAT}: metadata.resources must be [type, name] pairs, got ${metadata.resources.length} strings`);
  return { blocks, metadata };
}

function readMetricData(r: ProtoReader): MetricData {
  const empty = new Uint8Array(0);
  const d: MetricData = {
    dictNameStr: empty,
    dictTagStr: empty,
    dictTagsets: [],
    dictResourceStr: empty,
    dictResourceLen: [],
    dictResourceType: [],
    dictResourceName: [],
    dictSourceTypeName: empty,
    dictUnitStr: empty,
    types: [],
    nameRefs: [],
    tagsetRefs: [],
    resourcesRefs: [],
    intervals: [],
    numPoints: [],
    sourceTypeNameRefs: [],
    unitRefs: [],
    timestamps: [],
    valsSint64: [],
    valsFloat32: [],
    valsFloat64: [],
    sketchNumBins: [],
    sketchBinKeys: [],
    sketchBinCnts: [],
  };
  const sint64s = (into: number[]) => repeated(WireType.Varint, sint64Number, into);
  const uint64s = (into: number[]) => repeated(WireType.Varint, uint64Number, into);
  readFields(r, {
    1: bytes((v) => (d.dictNameStr = v)),
    2: bytes((v) => (d.dictTagStr = v)),
    3: sint64s(d.dictTagsets),
    4: bytes((v) => (d.dictResourceStr = v)),
    5: repeated(WireType.Varint, int64Number, d.dictResourceLen),
    6: sint64s(d.dictResourceType),
    7: sint64s(d.dictResourceName),
    8: bytes((v) => (d.dictSourceTypeName = v)),
    10: uint64s(d.types),
    11: sint64s(d.nameRefs),
    12: sint64s(d.tagsetRefs),
    13: sint64s(d.resourcesRefs),
    14: uint64s(d.intervals),
    15: uint64s(d.numPoints),
    16: sint64s(d.timestamps),
    17: sint64s(d.valsSint64),
    18: repeated(WireType.Fixed32, (m) => m.float(), d.valsFloat32),
    19: repeated(WireType.Fixed64, (m) => m.double(), d.valsFloat64),
    20: uint64s(d.sketchNumBins),
    21: uint32sIn(true, () => d.sketchBinKeys),
    22: uint32sIn(false, () => d.sketchBinCnts),
    23: sint64s(d.sourceTypeNameRefs),
    25: bytes((v) => (d.dictUnitStr = v)),
    26: sint64s(d.unitRefs),
  });
  return d;
}

// ---------------------------------------------------------------- dictionaries

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false });

/** `(uvarint length, bytes)*` → base-1 list. Tags tolerate invalid UTF-8 (replaced); other strings must be valid. */
function stringDictionary(raw: Uint8Array, name: string, lenient = false): string[] {
  const dict = [''];
  const r = new ProtoReader(raw, 0, raw.length, name);
  while (!r.done) {
    const entry = r.bytesView();
    try {
      dict.push((lenient ? lenientUtf8 : strictUtf8).decode(entry));
    } catch {
      throw new MalformedInputError(`${WHAT}: ${name}[${dict.length}] is not valid UTF-8`);
    }
  }
  return dict;
}

/** Groups of (count, count delta-encoded refs); a negative running ref splices in an earlier tagset. */
function tagsetDictionary(packed: readonly number[], tagStrings: readonly string[], metadataTags: readonly string[]): string[][] {
  const tagsets: string[][] = [[]];
  let expanded = 0;
  for (let i = 0; i < packed.length; ) {
    const size = packed[i++] as number;
    if (size < 0 || size > packed.length - i) throw new MalformedInputError(`${WHAT}: dictTagsets[${i - 1}] announces ${size} tags, ${packed.length - i} entries left`);
    const tags: string[] = [];
    let ref = 0;
    for (const end = i + size; i < end; i++) {
      ref += packed[i] as number;
      const added = ref < 0 ? entry(tagsets, -ref, 'dictTagsets (splice)') : [entry(tagStrings, ref, 'dictTagStr')];
      expanded += added.length;
      if (expanded > MAX_EXPANDED_TAGS) throw new MalformedInputError(`${WHAT}: tagsets expand to more than ${MAX_EXPANDED_TAGS} tags`);
      for (const tag of added) tags.push(tag);
    }
    tagsets.push(tags);
  }
  if (metadataTags.length === 0) return tagsets;
  if (expanded + tagsets.length * metadataTags.length > MAX_EXPANDED_TAGS) throw new MalformedInputError(`${WHAT}: tagsets with metadata tags expand to more than ${MAX_EXPANDED_TAGS} tags`);
  return tagsets.map((tags) => unionTags(tags, metadataTags));
}

function unionTags(tags: readonly string[], extra: readonly string[]): string[] {
  const present = new Set(tags);
  return [...tags, ...extra.filter((t) => !present.has(t))];
}

/** dictResourceLen gives each set's size; type and name refs restart their delta at every set. */
function resourceDictionary(d: MetricData, strings: readonly string[], metadataResources: readonly string[]): MetricResource[][] {
  const extra: MetricResource[] = [];
  for (let i = 0; i < metadataResources.length; i += 2) extra.push({ type: metadataResources[i] as string, name: metadataResources[i + 1] as string });
  // the reference decoders leave the empty set (ref 0) empty: payload resources join only real sets
  const sets: MetricResource[][] = [[]];
  let start = 0;
  for (const size of d.dictResourceLen) {
    const end = start + size;
    if (size < 0 || end > d.dictResourceType.length || end > d.dictResourceName.length) throw new MalformedInputError(`${WHAT}: dictResourceLen[${sets.length - 1}] = ${size} runs past dictResourceType/dictResourceName`);
    const set: MetricResource[] = [];
    let typeRef = 0;
    let nameRef = 0;
    for (let i = start; i < end; i++) {
      typeRef += d.dictResourceType[i] as number;
      nameRef += d.dictResourceName[i] as number;
      set.push({ type: entry(strings, typeRef, 'dictResourceStr'), name: entry(strings, nameRef, 'dictResourceStr') });
    }
    sets.push([...set, ...extra]);
    start = end;
  }
  return sets;
}

function entry<T>(dict: readonly T[], ref: number, name: string): T {
  if (ref < 0 || ref >= dict.length) throw new MalformedInputError(`${WHAT}: reference ${ref} is outside ${name} (${dict.length - 1} entries)`);
  return dict[ref] as T;
}

// ---------------------------------------------------------------- columns

/** Reads a column front to back; running out means the columns do not line up. */
class Column {
  private at = 0;
  private sum = 0;
  constructor(
    private readonly name: string,
    private readonly values: readonly number[],
  ) {}

  next(): number {
    if (this.at >= this.values.length) throw new MalformedInputError(`${WHAT}: ${this.name} has only ${this.values.length} entries, the series need more`);
    return this.values[this.at++] as number;
  }

  /** The next value of a delta-encoded column. */
  nextDelta(): number {
    this.sum += this.next();
    return this.sum;
  }

  take(n: number): number[] {
    if (n > this.values.length - this.at) throw new MalformedInputError(`${WHAT}: ${this.name} has only ${this.values.length - this.at} entries left, a sketch point needs ${n}`);
    this.at += n;
    return this.values.slice(this.at - n, this.at);
  }
}

function decodeBlock(d: MetricData, metadata: PayloadMetadata, payload: MetricsPayload): void {
  const names = stringDictionary(d.dictNameStr, 'dictNameStr');
  const tagsets = tagsetDictionary(d.dictTagsets, stringDictionary(d.dictTagStr, 'dictTagStr', true), metadata.tags);
  const resourceSets = resourceDictionary(d, stringDictionary(d.dictResourceStr, 'dictResourceStr'), metadata.resources);
  const sourceTypeNames = stringDictionary(d.dictSourceTypeName, 'dictSourceTypeName');
  const units = stringDictionary(d.dictUnitStr, 'dictUnitStr');

  const col = (name: keyof MetricData): Column => new Column(name, d[name] as number[]);
  const [nameRefs, tagsetRefs, resourcesRefs, sourceTypeNameRefs, unitRefs] = [col('nameRefs'), col('tagsetRefs'), col('resourcesRefs'), col('sourceTypeNameRefs'), col('unitRefs')];
  const [intervals, numPoints] = [col('intervals'), col('numPoints')];
  const values: Values = { timestamps: col('timestamps'), sint64: col('valsSint64'), float32: col('valsFloat32'), float64: col('valsFloat64'), numBins: col('sketchNumBins'), binKeys: col('sketchBinKeys'), binCounts: col('sketchBinCnts') };

  for (const [index, word] of d.types.entries()) {
    const metric = entry(names, nameRefs.nextDelta(), 'dictNameStr');
    const tags = entry(tagsets, tagsetRefs.nextDelta(), 'dictTagsets');
    const resources = entry(resourceSets, resourcesRefs.nextDelta(), 'dictResourceLen');
    const sourceTypeName = entry(sourceTypeNames, sourceTypeNameRefs.nextDelta(), 'dictSourceTypeName');
    const unit = (word & FLAG_HAS_UNIT) !== 0 ? entry(units, unitRefs.nextDelta(), 'dictUnitStr') : '';
    const interval = intervals.next();
    const count = numPoints.next();
    if (metric === '') throw new MalformedInputError(`${WHAT}: series ${index} has an empty metric name`);
    const metricType = word & 0x0f;
    const valueType = word & 0xf0;
    if (metricType === METRIC_SKETCH) {
      const points = repeat(count, () => sketchPoint(values, valueType));
      payload.sketches.push({ metric, tags, resources, points });
      continue;
    }
    const points = repeat(count, () => seriesPoint(values, valueType));
    const type = metricType === 0 ? undefined : SERIES_TYPE_BY_NUMBER.get(metricType);
    if (type) payload.series.push({ metric, type, points, tags, resources, interval, unit, sourceTypeName });
    else countDrop(payload.dropped, 'unknown_type', points.length);
  }
}

/** `count` comes from the payload: read point by point, so a huge count fails on the first missing timestamp instead of allocating. */
function repeat<T>(count: number, read: () => T): T[] {
  const out: T[] = [];
  for (let i = 0; i < count; i++) out.push(read());
  return out;
}

interface Values {
  timestamps: Column;
  sint64: Column;
  float32: Column;
  float64: Column;
  numBins: Column;
  binKeys: Column;
  binCounts: Column;
}

/** The value column a value type names; Zero values are not stored. */
function valueColumn(v: Values, valueType: number): Column | undefined {
  switch (valueType) {
    case VALUE_ZERO:
      return undefined;
    case VALUE_SINT64:
      return v.sint64;
    case VALUE_FLOAT32:
      return v.float32;
    case VALUE_FLOAT64:
      return v.float64;
    default:
      throw new MalformedInputError(`${WHAT}: unknown value type 0x${valueType.toString(16)}`);
  }
}

function seriesPoint(v: Values, valueType: number): SeriesPoint {
  const column = valueColumn(v, valueType);
  return { timestamp: v.timestamps.nextDelta(), value: column ? column.next() : 0 };
}

/** Sum, Min, Max in the value column (in that order), then Count, always in valsSint64. */
function sketchPoint(v: Values, valueType: number): SketchPoint {
  const timestamp = v.timestamps.nextDelta();
  const column = valueColumn(v, valueType);
  const [sum, min, max] = column ? [column.next(), column.next(), column.next()] : [0, 0, 0];
  const count = v.sint64.next();
  const bins = v.numBins.next();
  const keys = v.binKeys.take(bins);
  for (let i = 1; i < keys.length; i++) keys[i] = (keys[i] as number) + (keys[i - 1] as number);
  return { timestamp, count, sum, min, max, keys, counts: v.binCounts.take(bins) };
}
