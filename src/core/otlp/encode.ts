/**
 * Encodes a {@link SignalBatch} into OTLP Export*ServiceRequest bodies no larger than a byte limit.
 * This is the encoder's API; its parts are the piece tree (pieces.ts), each signal's place in it
 * (layout.ts), the size-splitting packer (packer.ts) and the field writers (fields/).
 *
 * Every record (log record, span, metric data point) is encoded exactly once into a scratch
 * buffer, together with the fields that surround it (resource, scope, metric name and kind).
 * Those pieces form a tree of {@link Frame}s whose sizes are known, so splitting is arithmetic:
 * a body is assembled by copying pieces and writing the length prefixes, never by re-encoding.
 */
import { TooLargeError } from '../errors';
import type { InstrumentationScope, LogRecord, Metric, MetricSink, RecordSink, Resource, Signal, SignalBatch, Span } from './model';
import { writeLogRecord } from './fields/logs';
import { writeSpan } from './fields/traces';
import { type EncodedMetric, encodeMetric, encodePoints, encodeTree, metricFrame, type ResourceEnvelope, requestFrame } from './layout';
import { packBodies } from './packer';
import { encodeSlice, type Frame, type Piece, type Slice } from './pieces';
import { ProtoWriter } from '../wire/proto-writer';

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
  return packExports(batch.signal, scratch, encodeTree(scratch, batch), maxBytes);
}

/** The packer's bodies as exports of `signal`; a record that fits no body is a {@link RecordTooLargeError}. */
function packExports(signal: Signal, scratch: ProtoWriter, request: Frame, maxBytes: number): EncodedExport[] {
  const tooLarge = (size: number): Error => new RecordTooLargeError(signal, size, maxBytes);
  return packBodies(scratch, request, maxBytes, tooLarge).map(({ body, records }) => ({ signal, body, records }));
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
    return packExports(
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
