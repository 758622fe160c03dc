/**
 * A durable FIFO of encoded OTLP export requests on local disk (at-least-once delivery).
 *
 * Layout: append-only segment files `<20-digit id>.seg`, each a run of records
 *   [u32 body length][u32 crc32 of the rest][u8 signal][u32 record count][body]
 * and a `cursor` file naming the first record not yet acknowledged by the collector. Appends are
 * fsynced before the sender hears 2xx (policy `always`, group-committed so concurrent requests
 * share one fsync). The cursor is replaced atomically (write + rename) but not fsynced: after a
 * crash it can only lag, which re-sends acknowledged records — duplicates, never loss. A torn
 * record at the end of the last segment (crash mid-write, never acknowledged) is cut off on open.
 */
import { closeSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { EncodedExport } from '../otlp/encode';
import type { Signal } from '../otlp/model';
import { HttpError } from '../server/errors';

export type FsyncPolicy = 'always' | 'never';

export interface SpoolOptions {
  dir: string;
  maxBytes: number;
  segmentBytes: number;
  fsync: FsyncPolicy;
}

export interface SpooledRecord {
  request: EncodedExport;
  segment: number;
  end: number;
}

const HEADER = 13;
const SIGNALS: readonly Signal[] = ['logs', 'traces', 'metrics'];
const segmentName = (id: number): string => `${String(id).padStart(20, '0')}.seg`;

function encodeRecord(r: EncodedExport): Buffer {
  const out = Buffer.allocUnsafe(HEADER + r.body.length);
  out.writeUInt32LE(r.body.length, 0);
  out.writeUInt8(SIGNALS.indexOf(r.signal), 8);
  out.writeUInt32LE(r.records, 9);
  r.body.copy(out, HEADER);
  out.writeUInt32LE(crc32(out.subarray(8)), 4);
  return out;
}

export class SpoolFullError extends HttpError {
  constructor(maxBytes: number) {
    super(503, `local spool is full (${maxBytes} bytes); retry later`, { 'Retry-After': '10' });
  }
}

export class DiskSpool {
  private segments: number[] = [];
  private writeFd = -1;
  private writeSegment = 0;
  private writeOffset = 0;
  private readSegment = 0;
  private readOffset = 0;
  private readFd = -1;
  private readFdSegment = -1;
  private pendingBytes = 0;
  private pendingSync: Promise<void> | undefined;
  private wakeDrainer: (() => void) | undefined;

  private constructor(private readonly options: SpoolOptions) {}

  /** Opens (or creates) the spool in `options.dir`, recovering from whatever a crash left. */
  static open(options: SpoolOptions): DiskSpool {
    const spool = new DiskSpool(options);
    spool.recover();
    return spool;
  }

  /** Bytes appended but not yet acknowledged by the collector. */
  get bytes(): number {
    return this.pendingBytes;
  }

  private recover(): void {
    mkdirSync(this.options.dir, { recursive: true });
    this.segments = readdirSync(this.options.dir)
      .filter((f) => /^\d{20}\.seg$/.test(f))
      .map((f) => Number(f.slice(0, 20)))
      .sort((a, b) => a - b);
    if (this.segments.length === 0) this.segments = [1];
    const last = this.segments[this.segments.length - 1] as number;
    this.writeSegment = last;
    this.writeFd = openSync(this.path(last), 'a+');
    this.writeOffset = this.validLength(last);
    if (this.writeOffset < statSync(this.path(last)).size) ftruncateSync(this.writeFd, this.writeOffset);
    const cursor = this.readCursor();
    const start = cursor && this.segments.includes(cursor.segment) ? cursor : { segment: this.segments[0] as number, offset: 0 };
    this.readSegment = start.segment;
    this.readOffset = Math.min(start.offset, this.sizeOf(start.segment));
    this.pendingBytes = this.segments.filter((s) => s >= this.readSegment).reduce((sum, s) => sum + this.sizeOf(s), 0) - this.readOffset;
  }

  /** Length of the prefix of a segment made of whole records with good checksums. */
  private validLength(segment: number): number {
    const data = readFileSync(this.path(segment));
    let offset = 0;
    while (offset + HEADER <= data.length) {
      const length = data.readUInt32LE(offset);
      const end = offset + HEADER + length;
      if (end > data.length || crc32(data.subarray(offset + 8, end)) !== data.readUInt32LE(offset + 4)) break;
      offset = end;
    }
    return offset;
  }

  private path(segment: number): string {
    return join(this.options.dir, segmentName(segment));
  }

  private sizeOf(segment: number): number {
    return segment === this.writeSegment ? this.writeOffset : statSync(this.path(segment)).size;
  }

  private readCursor(): { segment: number; offset: number } | undefined {
    try {
      const c = JSON.parse(readFileSync(join(this.options.dir, 'cursor'), 'utf8')) as { segment: number; offset: number };
      return Number.isSafeInteger(c.segment) && Number.isSafeInteger(c.offset) ? c : undefined;
    } catch {
      return undefined;
    }
  }

  private writeCursor(): void {
    const tmp = join(this.options.dir, 'cursor.tmp');
    writeFileSync(tmp, JSON.stringify({ segment: this.readSegment, offset: this.readOffset }));
    renameSync(tmp, join(this.options.dir, 'cursor'));
  }

  /** Appends requests durably (per the fsync policy); 503 when the spool is full. */
  async append(requests: readonly EncodedExport[]): Promise<void> {
    const records = requests.map(encodeRecord);
    const size = records.reduce((sum, r) => sum + r.length, 0);
    if (this.pendingBytes + size > this.options.maxBytes) throw new SpoolFullError(this.options.maxBytes);
    if (this.writeOffset > 0 && this.writeOffset + size > this.options.segmentBytes) this.rotate();
    for (const record of records) {
      let written = 0;
      while (written < record.length) written += writeSync(this.writeFd, record, written, record.length - written);
    }
    this.writeOffset += size;
    this.pendingBytes += size;
    if (this.options.fsync === 'always') await this.sync();
    this.wakeDrainer?.();
  }

  /** One fsync for every append that arrived since the last one started (group commit). */
  private sync(): Promise<void> {
    if (!this.pendingSync) {
      this.pendingSync = new Promise((resolve, reject) =>
        setImmediate(() => {
          this.pendingSync = undefined;
          fsync(this.writeFd, (err) => (err ? reject(new HttpError(503, `cannot fsync the spool: ${err.message}`)) : resolve()));
        }),
      );
    }
    return this.pendingSync;
  }

  private rotate(): void {
    fsyncSync(this.writeFd);
    closeSync(this.writeFd);
    this.writeSegment += 1;
    this.segments.push(this.writeSegment);
    this.writeFd = openSync(this.path(this.writeSegment), 'a+');
    this.writeOffset = 0;
  }

  /** The oldest record not yet acknowledged, or undefined when everything was delivered. */
  next(): SpooledRecord | undefined {
    for (;;) {
      const size = this.sizeOf(this.readSegment);
      if (this.readOffset + HEADER <= size) break;
      if (this.readSegment === this.writeSegment) return undefined;
      this.retireReadSegment();
    }
    const fd = this.readFdFor(this.readSegment);
    const header = Buffer.alloc(HEADER);
    readSync(fd, header, 0, HEADER, this.readOffset);
    const length = header.readUInt32LE(0);
    const record = Buffer.alloc(HEADER + length);
    readSync(fd, record, 0, record.length, this.readOffset);
    if (crc32(record.subarray(8)) !== header.readUInt32LE(4)) {
      throw new Error(`spool segment ${segmentName(this.readSegment)} is corrupt at byte ${this.readOffset}`);
    }
    const signal = SIGNALS[header.readUInt8(8)] as Signal;
    return { request: { signal, records: header.readUInt32LE(9), body: record.subarray(HEADER) }, segment: this.readSegment, end: this.readOffset + record.length };
  }

  /** The collector has this record: move past it for good. */
  ack(record: SpooledRecord): void {
    this.pendingBytes -= record.end - this.readOffset;
    this.readOffset = record.end;
    this.writeCursor();
  }

  /** Skips whatever is left of an unreadable segment; the caller logs the loss. */
  skipSegment(): number {
    const lost = this.sizeOf(this.readSegment) - this.readOffset;
    this.pendingBytes -= lost;
    if (this.readSegment === this.writeSegment) this.readOffset = this.writeOffset;
    else this.retireReadSegment();
    this.writeCursor();
    return lost;
  }

  private retireReadSegment(): void {
    const done = this.readSegment;
    if (this.readFdSegment === done) {
      closeSync(this.readFd);
      this.readFdSegment = -1;
    }
    this.segments = this.segments.filter((s) => s !== done);
    this.readSegment = this.segments[0] ?? this.writeSegment;
    this.readOffset = 0;
    this.writeCursor();
    unlinkSync(this.path(done));
  }

  private readFdFor(segment: number): number {
    if (this.readFdSegment !== segment) {
      if (this.readFdSegment >= 0) closeSync(this.readFd);
      this.readFd = openSync(this.path(segment), 'r');
      this.readFdSegment = segment;
    }
    return this.readFd;
  }

  /** Resolves when an append happens (or at once if records are waiting) or on abort. */
  waitForData(abort: AbortSignal): Promise<void> {
    if (this.pendingBytes > 0 || abort.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.wakeDrainer = undefined;
        abort.removeEventListener('abort', done);
        resolve();
      };
      this.wakeDrainer = done;
      abort.addEventListener('abort', done, { once: true });
    });
  }

  close(): void {
    fsyncSync(this.writeFd);
    closeSync(this.writeFd);
    if (this.readFdSegment >= 0) closeSync(this.readFd);
  }
}
