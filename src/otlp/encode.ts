/**
 * Encodes a {@link SignalBatch} into OTLP Export*ServiceRequest bodies no larger than a byte limit.
 *
 * Every record (log record, span, metric data point) is encoded exactly once into a scratch
 * buffer, together with the fields that surround it (resource, scope, metric name and kind).
 * Those pieces form a tree of {@link Frame}s whose sizes are known, so splitting is arithmetic:
 * a body is assembled by copying pieces and writing the length prefixes, never by re-encoding.
 */
import { TooLargeError } from '../core/errors';
import type {
  AnyValue,
  ExponentialBuckets,
  ExponentialHistogramDataPoint,
  HistogramDataPoint,
  InstrumentationScope,
  KeyValue,
  LogRecord,
  Metric,
  MetricSink,
  NumberDataPoint,
  RecordSink,
  Resource,
  Signal,
  SignalBatch,
  Span,
  SpanEvent,
  SpanLink,
} from './model';
import { own } from '../memory/owned-buffers';
import { lenFieldSize, ProtoWriter } from './writer';

export interface EncodedExport {
  signal: Signal;
  body: Buffer;
  /** Log records, spans or metric data points in this body. */
  records: number;
}

const RECORD_NOUN: Record<Signal, string> = {
  logs: 'log record',
  traces: 'span',
  metrics: 'metric data point',
};

/** One record is bigger than an export may be; retrying or splitting cannot help, hence too large rather than unavailable. */
export class RecordTooLargeError extends TooLargeError {
  constructor(
    readonly signal: Signal,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`${signal}: a single ${RECORD_NOUN[signal]} encodes to ${size} bytes with its resource and ` + `scope, more than the ${maxBytes}-byte limit of one OTLP export`);
  }
}

export function encodeExportRequests(batch: SignalBatch, maxBytes: number): EncodedExport[] {
  const scratch = ProtoWriter.scratch();
  return packBodies(batch.signal, scratch, encodeTree(scratch, batch), maxBytes);
}

/** Copies the bodies out of the scratch, which then goes back for the next request. */
function packBodies(signal: Signal, scratch: ProtoWriter, request: Frame, maxBytes: number): EncodedExport[] {
  try {
    if (request.records === 0) return [];
    const packer = new Packer(signal, scratch.bytes(), maxBytes, request);
    packer.placeChildren(request, [request]);
    packer.flush();
    return packer.bodies;
  } finally {
    scratch.recycle();
  }
}

/**
 * A translator's sink: each record or metric is encoded as it is handed over, so no translated
 * model outlives its own translation. Keeping a request's records alive until the end made every
 * young-generation GC during the request copy all of them (a third of the sidecar's CPU on traces;
 * docs/decisions/003-own-otlp-encoder.md). `requests` gives the same bodies as encodeExportRequests
 * does for the model. `C` is what a scope holds until then: encoded records, or encoded metrics.
 */
abstract class StreamEncoder<C> {
  protected readonly scratch = ProtoWriter.scratch();
  private readonly resources: ResourceEnvelope<{ scope: InstrumentationScope; contents: C[] }>[] = [];
  private taken = false;

  constructor(private readonly signal: Signal) {}

  group(resource: Resource, scope: InstrumentationScope): C[] {
    const contents: C[] = [];
    this.resources.push({ resource, scopes: [{ scope, contents }] });
    return contents;
  }

  /** Once only: the scratch buffer goes back to be reused by the next request. */
  requests(maxBytes: number): EncodedExport[] {
    if (this.taken) throw new Error(`${this.constructor.name}.requests() was already called: its scratch buffer is gone`);
    this.taken = true;
    return packBodies(
      this.signal,
      this.scratch,
      requestFrame(this.scratch, this.resources, (s) => this.pieces(s.contents)),
      maxBytes,
    );
  }

  protected abstract pieces(contents: C[]): Piece[];
}

/** Spans (translate/traces/chain.ts) and log records (translate/logs/chain.ts). */
export class RecordStreamEncoder<R> extends StreamEncoder<Slice> implements RecordSink<R, Slice[]> {
  constructor(
    signal: 'logs' | 'traces',
    private readonly writeRecord: (w: ProtoWriter, record: R) => void,
  ) {
    super(signal);
  }

  add(records: Slice[], record: R): void {
    records.push(encodeSlice(this.scratch, this.writeRecord, record));
  }

  protected pieces(records: Slice[]): Piece[] {
    return records;
  }
}

/**
 * Metrics (translate/metrics/chain.ts). Before it, metric routes kept the whole request's model
 * until the end; on sketches those dead models, promoted to the old generation, were what pushed
 * the sidecar's peak RSS past 150 MiB while waiting for a mark-compact.
 */
export class MetricStreamEncoder extends StreamEncoder<EncodedMetric> implements MetricSink<EncodedMetric[], EncodedMetric> {
  constructor() {
    super('metrics');
  }

  metric(metrics: EncodedMetric[], metric: Metric): EncodedMetric {
    const encoded = encodeMetric(this.scratch, metric);
    metrics.push(encoded);
    return encoded;
  }

  addPoints(into: EncodedMetric, metric: Metric): void {
    encodePoints(this.scratch, metric, into.points);
  }

  protected pieces(metrics: EncodedMetric[]): Piece[] {
    return metrics.map(metricFrame);
  }
}

export const spanStreamEncoder = (): RecordStreamEncoder<Span> => new RecordStreamEncoder('traces', writeSpan);
export const logStreamEncoder = (): RecordStreamEncoder<LogRecord> => new RecordStreamEncoder('logs', writeLogRecord);

// ---------------------------------------------------------------- the piece tree

/** A byte range of the scratch buffer holding encoded fields. */
interface Slice {
  start: number;
  end: number;
}

/**
 * A message with one repeated (or single) message field, `childField`, that may be spread over
 * several bodies; each body then carries a copy of `head` and `tail` around its share.
 */
interface Frame {
  head: Slice;
  childField: number;
  children: Piece[];
  tail: Slice;
  /** Encoded size of the message's payload (without its own tag and length). */
  size: number;
  records: number;
}

/** A Frame, or a Slice holding one encoded record. */
type Piece = Frame | Slice;

const NOTHING: Slice = { start: 0, end: 0 };

const isFrame = (piece: Piece): piece is Frame => 'children' in piece;
const sliceSize = (slice: Slice): number => slice.end - slice.start;
const pieceSize = (piece: Piece): number => (isFrame(piece) ? piece.size : sliceSize(piece));
const pieceRecords = (piece: Piece): number => (isFrame(piece) ? piece.records : 1);
const bareSize = (frame: Frame): number => sliceSize(frame.head) + sliceSize(frame.tail);

/** Containers without a single record are dropped: an empty resource or metric exports nothing. */
function makeFrame(head: Slice, childField: number, pieces: Piece[], tail: Slice): Frame {
  const children = pieces.filter((piece) => pieceRecords(piece) > 0);
  let size = sliceSize(head) + sliceSize(tail);
  let records = 0;
  for (const child of children) {
    size += lenFieldSize(childField, pieceSize(child));
    records += pieceRecords(child);
  }
  return { head, childField, children, tail, size, records };
}

function emptyCopy(frame: Frame): Frame {
  return { ...frame, children: [], size: bareSize(frame), records: 0 };
}

/** Runs `write` against the scratch writer and remembers where its bytes landed. */
function encodeSlice<T>(w: ProtoWriter, write: (w: ProtoWriter, value: T) => void, value: T): Slice {
  const start = w.length;
  write(w, value);
  return { start, end: w.length };
}

// ---------------------------------------------------------------- packing

/**
 * Fills bodies in record order. A container goes into the current body whole if it fits, else
 * into a fresh body whole if it fits there, and only otherwise is it opened and its children
 * placed one by one, so resources and metrics are split only when they must be.
 */
class Packer {
  readonly bodies: EncodedExport[] = [];
  /** The body being filled: partial copies of the frames on the current path, request first. */
  private open: Frame[];
  /** The original frame each entry of `open` copies, to tell whether a path is still open. */
  private originals: Frame[];
  /** Payload sizes of each level of `open` computed by the last {@link project}. */
  private readonly projected: number[] = [];

  constructor(
    private readonly signal: Signal,
    private readonly scratch: Buffer,
    private readonly maxBytes: number,
    private readonly request: Frame,
  ) {
    this.open = [emptyCopy(request)];
    this.originals = [request];
  }

  placeChildren(frame: Frame, path: Frame[]): void {
    for (const child of frame.children) this.place(child, path);
  }

  flush(): void {
    const body = this.open[0];
    if (body.records > 0) this.bodies.push({ signal: this.signal, body: this.serialize(body), records: body.records });
    this.open = [emptyCopy(this.request)];
    this.originals = [this.request];
  }

  /** `path` lists the frames enclosing `piece`, from the request down to its parent. */
  private place(piece: Piece, path: Frame[]): void {
    if (this.tryAppend(piece, path)) return;
    const aloneSize = this.project(piece, path, 0);
    if (aloneSize <= this.maxBytes) {
      this.flush();
      this.tryAppend(piece, path);
      return;
    }
    if (!isFrame(piece)) throw new RecordTooLargeError(this.signal, aloneSize, this.maxBytes);
    path.push(piece);
    this.placeChildren(piece, path);
    path.pop();
  }

  private tryAppend(piece: Piece, path: Frame[]): boolean {
    const shared = this.sharedDepth(path);
    if (this.project(piece, path, shared) > this.maxBytes) return false;
    this.commit(piece, path, shared);
    return true;
  }

  /** How many leading frames of `path` are already open in the current body. */
  private sharedDepth(path: Frame[]): number {
    let depth = 0;
    while (depth < path.length && depth < this.originals.length && this.originals[depth] === path[depth]) depth++;
    return depth;
  }

  /**
   * Body size if `piece` were added under `path`, reusing the first `shared` open frames and
   * opening copies of the rest. Walks up level by level because a grown child can also grow
   * its parent's length prefix.
   */
  private project(piece: Piece, path: Frame[], shared: number): number {
    const last = path.length - 1;
    let added = lenFieldSize(path[last].childField, pieceSize(piece));
    for (let level = last; ; level--) {
      const reused = level < shared;
      const before = reused ? this.open[level].size : bareSize(path[level]);
      const after = before + added;
      this.projected[level] = after;
      if (level === 0) return after;
      const field = path[level - 1].childField;
      added = lenFieldSize(field, after) - (reused ? lenFieldSize(field, before) : 0);
    }
  }

  /** Applies the sizes of the {@link project} call made with the same arguments. */
  private commit(piece: Piece, path: Frame[], shared: number): void {
    this.open.length = shared;
    this.originals.length = shared;
    for (let level = shared; level < path.length; level++) {
      const copy = emptyCopy(path[level]);
      this.open[level - 1].children.push(copy);
      this.open.push(copy);
      this.originals.push(path[level]);
    }
    this.open[path.length - 1].children.push(piece);
    const records = pieceRecords(piece);
    for (let level = 0; level < path.length; level++) {
      this.open[level].size = this.projected[level];
      this.open[level].records += records;
    }
  }

  private serialize(body: Frame): Buffer {
    const out = new ProtoWriter(body.size);
    writePayload(out, this.scratch, body);
    if (out.length !== body.size) {
      throw new Error(`OTLP encoder bug: ${this.signal} body is ${out.length} bytes, computed ${body.size}`);
    }
    return own(out.bytes());
  }
}

function writePayload(out: ProtoWriter, scratch: Buffer, frame: Frame): void {
  out.raw(scratch, frame.head.start, frame.head.end);
  for (const child of frame.children) {
    out.lenPrefix(frame.childField, pieceSize(child));
    if (isFrame(child)) writePayload(out, scratch, child);
    else out.raw(scratch, child.start, child.end);
  }
  out.raw(scratch, frame.tail.start, frame.tail.end);
}

// ---------------------------------------------------------------- signal layouts

/** Export*ServiceRequest field 1 holds the Resource* entries. */
const REQUEST_RESOURCES = 1;

/**
 * ResourceLogs/Spans/Metrics and ScopeLogs/Spans/Metrics share one layout: field 1 is the
 * resource or scope, field 2 the repeated contents, field 3 the schema URL.
 */
const ENVELOPE = { header: 1, contents: 2, schemaUrl: 3 } as const;

function encodeTree(w: ProtoWriter, batch: SignalBatch): Frame {
  switch (batch.signal) {
    case 'logs':
      return requestFrame(
        w,
        batch.resources.map((r) => ({ ...r, scopes: r.scopeLogs })),
        (scope) => scope.logRecords.map((log) => encodeSlice(w, writeLogRecord, log)),
      );
    case 'traces':
      return requestFrame(
        w,
        batch.resources.map((r) => ({ ...r, scopes: r.scopeSpans })),
        (scope) => scope.spans.map((span) => encodeSlice(w, writeSpan, span)),
      );
    case 'metrics':
      return requestFrame(
        w,
        batch.resources.map((r) => ({ ...r, scopes: r.scopeMetrics })),
        (scope) => scope.metrics.map((metric) => metricFrame(encodeMetric(w, metric))),
      );
  }
}

interface ScopeEnvelope {
  scope: InstrumentationScope;
  schemaUrl?: string;
}

interface ResourceEnvelope<S extends ScopeEnvelope> {
  resource: Resource;
  scopes: S[];
  schemaUrl?: string;
}

function requestFrame<S extends ScopeEnvelope>(w: ProtoWriter, resources: ResourceEnvelope<S>[], contentsOf: (scope: S) => Piece[]): Frame {
  const entries = resources.map((r) =>
    envelopeFrame(
      w,
      encodeSlice(w, writeResourceField, r.resource),
      r.scopes.map((s) => envelopeFrame(w, encodeSlice(w, writeScopeField, s.scope), contentsOf(s), s.schemaUrl)),
      r.schemaUrl,
    ),
  );
  return makeFrame(NOTHING, REQUEST_RESOURCES, entries, NOTHING);
}

const writeResourceField = (w: ProtoWriter, resource: Resource): void => writeMessage(w, ENVELOPE.header, resource, writeResource);

const writeScopeField = (w: ProtoWriter, scope: InstrumentationScope): void => writeMessage(w, ENVELOPE.header, scope, writeScope);

function writeSchemaUrl(w: ProtoWriter, schemaUrl: string | undefined): void {
  if (schemaUrl) w.stringField(ENVELOPE.schemaUrl, schemaUrl);
}

function envelopeFrame(w: ProtoWriter, header: Slice, contents: Piece[], schemaUrl: string | undefined): Frame {
  const tail = encodeSlice(w, writeSchemaUrl, schemaUrl);
  return makeFrame(header, ENVELOPE.contents, contents, tail);
}

/** A metric's bytes in the scratch: its header, its points, and the aggregation fields after them. */
interface EncodedMetric {
  head: Slice;
  /** the Metric field of its kind (gauge = 5, sum = 7, histogram = 9, exponential histogram = 10) */
  kindField: number;
  points: Slice[];
  tail: Slice;
}

function encodeMetric(w: ProtoWriter, metric: Metric): EncodedMetric {
  const head = encodeSlice(w, writeMetricHeader, metric);
  const points: Slice[] = [];
  encodePoints(w, metric, points);
  const [kindField, aggregation] = metricKind(metric);
  return { head, kindField, points, tail: encodeSlice(w, writeAggregation, aggregation) };
}

function metricKind(metric: Metric): [field: number, aggregation: Aggregation] {
  if ('gauge' in metric) return [5, { temporality: 0, isMonotonic: false }];
  if ('sum' in metric) return [7, { temporality: metric.sum.aggregationTemporality, isMonotonic: metric.sum.isMonotonic }];
  if ('histogram' in metric) return [9, { temporality: metric.histogram.aggregationTemporality, isMonotonic: false }];
  return [10, { temporality: metric.exponentialHistogram.aggregationTemporality, isMonotonic: false }];
}

function encodePoints(w: ProtoWriter, metric: Metric, into: Slice[]): void {
  if ('gauge' in metric) encodeEach(w, metric.gauge.dataPoints, writeNumberDataPoint, into);
  else if ('sum' in metric) encodeEach(w, metric.sum.dataPoints, writeNumberDataPoint, into);
  else if ('histogram' in metric) encodeEach(w, metric.histogram.dataPoints, writeHistogramDataPoint, into);
  else encodeEach(w, metric.exponentialHistogram.dataPoints, writeExponentialHistogramDataPoint, into);
}

function encodeEach<P>(w: ProtoWriter, points: readonly P[], write: (w: ProtoWriter, point: P) => void, into: Slice[]): void {
  for (const point of points) into.push(encodeSlice(w, write, point));
}

/**
 * Metric{name, description, unit, <kind> {data_points = 1, temporality...}}: two nested frames so
 * that a split keeps the name, kind, temporality and monotonicity around every share of points.
 */
const metricFrame = (m: EncodedMetric): Frame => makeFrame(m.head, m.kindField, [makeFrame(NOTHING, 1, m.points, m.tail)], NOTHING);

// ---------------------------------------------------------------- field writers
// Field numbers are those of proto/opentelemetry/proto/**; proto3 defaults are left out except
// where the schema makes a zero meaningful (oneof members, `optional` fields).

function writeMessage<T>(w: ProtoWriter, field: number, value: T, write: (w: ProtoWriter, value: T) => void): void {
  const lengthAt = w.beginLen(field);
  write(w, value);
  w.endLen(lengthAt);
}

function writeId(w: ProtoWriter, field: number, id: Uint8Array | undefined): void {
  if (id !== undefined && id.length > 0) w.bytesField(field, id);
}

function writeAttributes(w: ProtoWriter, field: number, attributes: readonly KeyValue[] | undefined): void {
  if (attributes === undefined) return;
  for (const attribute of attributes) {
    const { key, value } = attribute;
    if ('string' in value && w.shortStringKeyValueField(field, key, value.string)) continue;
    writeMessage(w, field, attribute, writeKeyValue);
  }
}

function writeKeyValue(w: ProtoWriter, kv: KeyValue): void {
  if (kv.key) w.stringField(1, kv.key);
  const lengthAt = w.beginLen(2);
  writeAnyValue(w, kv.value);
  w.endLen(lengthAt);
}

/** A oneof: the member is written even when it holds its type's default. */
function writeAnyValue(w: ProtoWriter, value: AnyValue): void {
  if ('string' in value) w.stringField(1, value.string);
  else if ('bool' in value) w.boolField(2, value.bool);
  else if ('int' in value) w.int64Field(3, value.int);
  else if ('double' in value) w.doubleField(4, value.double);
  else if ('array' in value) {
    const lengthAt = w.beginLen(5);
    for (const item of value.array) writeMessage(w, 1, item, writeAnyValue);
    w.endLen(lengthAt);
  } else if ('kvlist' in value) {
    const lengthAt = w.beginLen(6);
    writeAttributes(w, 1, value.kvlist);
    w.endLen(lengthAt);
  } else w.bytesField(7, value.bytes);
}

function writeResource(w: ProtoWriter, resource: Resource): void {
  writeAttributes(w, 1, resource.attributes);
}

function writeScope(w: ProtoWriter, scope: InstrumentationScope): void {
  if (scope.name) w.stringField(1, scope.name);
  if (scope.version) w.stringField(2, scope.version);
  writeAttributes(w, 3, scope.attributes);
}

function writeLogRecord(w: ProtoWriter, log: LogRecord): void {
  if (log.timeUnixNano) w.fixed64Field(1, log.timeUnixNano);
  if (log.severityNumber) w.int32Field(2, log.severityNumber);
  if (log.severityText) w.stringField(3, log.severityText);
  if (log.body !== undefined) writeMessage(w, 5, log.body, writeAnyValue);
  writeAttributes(w, 6, log.attributes);
  if (log.flags) w.fixed32Field(8, log.flags);
  writeId(w, 9, log.traceId);
  writeId(w, 10, log.spanId);
  if (log.observedTimeUnixNano) w.fixed64Field(11, log.observedTimeUnixNano);
  if (log.eventName) w.stringField(12, log.eventName);
}

function writeSpan(w: ProtoWriter, span: Span): void {
  writeId(w, 1, span.traceId);
  writeId(w, 2, span.spanId);
  if (span.traceState) w.stringField(3, span.traceState);
  writeId(w, 4, span.parentSpanId);
  if (span.name) w.stringField(5, span.name);
  if (span.kind) w.int32Field(6, span.kind);
  if (span.startTimeUnixNano) w.fixed64Field(7, span.startTimeUnixNano);
  if (span.endTimeUnixNano) w.fixed64Field(8, span.endTimeUnixNano);
  writeAttributes(w, 9, span.attributes);
  for (const event of span.events) writeMessage(w, 11, event, writeSpanEvent);
  for (const link of span.links) writeMessage(w, 13, link, writeSpanLink);
  if (span.status !== undefined) writeMessage(w, 15, span.status, writeStatus);
  if (span.flags) w.fixed32Field(16, span.flags);
}

function writeSpanEvent(w: ProtoWriter, event: SpanEvent): void {
  if (event.timeUnixNano) w.fixed64Field(1, event.timeUnixNano);
  if (event.name) w.stringField(2, event.name);
  writeAttributes(w, 3, event.attributes);
}

function writeSpanLink(w: ProtoWriter, link: SpanLink): void {
  writeId(w, 1, link.traceId);
  writeId(w, 2, link.spanId);
  if (link.traceState) w.stringField(3, link.traceState);
  writeAttributes(w, 4, link.attributes);
  if (link.flags) w.fixed32Field(6, link.flags);
}

function writeStatus(w: ProtoWriter, status: NonNullable<Span['status']>): void {
  if (status.message) w.stringField(2, status.message);
  if (status.code) w.int32Field(3, status.code);
}

function writeMetricHeader(w: ProtoWriter, metric: Metric): void {
  if (metric.name) w.stringField(1, metric.name);
  if (metric.description) w.stringField(2, metric.description);
  if (metric.unit) w.stringField(3, metric.unit);
}

interface Aggregation {
  temporality: number;
  isMonotonic: boolean;
}

function writeAggregation(w: ProtoWriter, { temporality, isMonotonic }: Aggregation): void {
  if (temporality) w.int32Field(2, temporality);
  if (isMonotonic) w.boolField(3, true);
}

function writePointTimes(w: ProtoWriter, point: { startTimeUnixNano: bigint; timeUnixNano: bigint }): void {
  if (point.startTimeUnixNano) w.fixed64Field(2, point.startTimeUnixNano);
  if (point.timeUnixNano) w.fixed64Field(3, point.timeUnixNano);
}

function writeOptionalDouble(w: ProtoWriter, field: number, value: number | undefined): void {
  if (value !== undefined) w.doubleField(field, value);
}

function writeNumberDataPoint(w: ProtoWriter, point: NumberDataPoint): void {
  writePointTimes(w, point);
  // The value is a oneof: 0 is a measurement and must be sent.
  if ('double' in point.value) w.doubleField(4, point.value.double);
  else w.sfixed64Field(6, point.value.int);
  writeAttributes(w, 7, point.attributes);
  if (point.flags) w.varintField(8, point.flags);
}

function writeHistogramDataPoint(w: ProtoWriter, point: HistogramDataPoint): void {
  writePointTimes(w, point);
  if (point.count) w.fixed64Field(4, point.count);
  writeOptionalDouble(w, 5, point.sum);
  if (point.bucketCounts.length > 0) w.packedFixed64Field(6, point.bucketCounts);
  if (point.explicitBounds.length > 0) w.packedDoubleField(7, point.explicitBounds);
  writeAttributes(w, 9, point.attributes);
  if (point.flags) w.varintField(10, point.flags);
  writeOptionalDouble(w, 11, point.min);
  writeOptionalDouble(w, 12, point.max);
}

function writeExponentialHistogramDataPoint(w: ProtoWriter, point: ExponentialHistogramDataPoint): void {
  writeAttributes(w, 1, point.attributes);
  writePointTimes(w, point);
  if (point.count) w.fixed64Field(4, point.count);
  writeOptionalDouble(w, 5, point.sum);
  if (point.scale) w.sint32Field(6, point.scale);
  if (point.zeroCount) w.fixed64Field(7, point.zeroCount);
  writeMessage(w, 8, point.positive, writeBuckets);
  writeMessage(w, 9, point.negative, writeBuckets);
  if (point.flags) w.varintField(10, point.flags);
  writeOptionalDouble(w, 12, point.min);
  writeOptionalDouble(w, 13, point.max);
  if (point.zeroThreshold) w.doubleField(14, point.zeroThreshold);
}

function writeBuckets(w: ProtoWriter, buckets: ExponentialBuckets): void {
  if (buckets.offset) w.sint32Field(1, buckets.offset);
  if (buckets.bucketCounts.length > 0) w.packedUint64Field(2, buckets.bucketCounts);
}
