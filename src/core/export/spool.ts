/**
 * A durable FIFO of encoded OTLP export requests on local disk (at-least-once delivery).
 *
 * Layout: append-only segment files `<20-digit id>.seg`, each a run of records
 *   [u32 body length][u32 crc32 of the rest][u8 signal][u32 record count][body]
 * and a `cursor` file naming the first record not yet acknowledged by the collector. Appends are
 * fsynced before the sender hears 2xx (policy `always`, group-committed so concurrent requests
 * share one fsync); an append that fails (disk full, I/O error) is cut back off the segment and
 * answered 503, so nothing written after it can be hidden behind a half-written record. The cursor
 * is replaced atomically (write, fsync, rename) at most every CURSOR_INTERVAL_MS: after a crash it
 * can only lag, which re-sends acknowledged records — duplicates, never loss.
 *
 * Damage costs only the damaged bytes: a reader that meets a record with an impossible length or
 * a bad checksum resumes at the next offset where a whole record with a good checksum starts. On
 * open, only a torn tail of the last segment (a crash mid-write) is cut off, and a cursor that
 * cannot be right sends the reader back to the oldest segment.
 *
 * Records the collector calls invalid are moved to `dead-letter/`; files put into `replay/` are
 * appended to the spool on the next open (docs/operations.md, Spool, dead letters and replay).
 */
import { closeSync, fsync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { SpoolFullError, SpoolWriteError } from '../errors';
import type { EncodedExport } from '../otlp/encode';
import type { Signal } from '../otlp/model';

export type FsyncPolicy = 'always' | 'never';

/** The calls through which a full or failing disk shows itself; tests replace them to simulate one. */
export interface SpoolIo {
  writeSync(fd: number, buffer: Buffer, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  fsync(fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void;
  renameSync(from: string, to: string): void;
  ftruncateSync(fd: number, length: number): void;
}

const NODE_IO: SpoolIo = { writeSync: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length), fsyncSync, fsync, renameSync, ftruncateSync };

export interface SpoolOptions {
  dir: string;
  /** bound on the bytes the spool keeps on disk: segments (delivered or not) and dead letters */
  maxBytes: number;
  /** ceiling on one segment's size; segments are kept to segmentSizeFor(maxBytes) below it */
  segmentBytes: number;
  fsync: FsyncPolicy;
  io?: SpoolIo;
}

/** One spooled record, or consecutive records of one signal read as one request (next(maxBodyBytes)). */
export interface SpooledRecord {
  request: EncodedExport;
  segment: number;
  start: number;
  end: number;
  /** how many spooled records it holds */
  parts: number;
}

/** What the spool met that its owner should log or count; kept until someone listens (open happens first). */
export type SpoolEvent =
  | { type: 'damaged'; segment: string; offset: number; bytes: number; where: 'middle' | 'torn tail' }
  | { type: 'cursor-reset'; problem: string; start: string }
  | { type: 'write-failed'; operation: 'append' | 'fsync' | 'cursor' | 'delete' | 'dead-letter' | 'replay'; error: Error }
  | { type: 'replayed'; file: string; records: number };

const HEADER = 13;
const MiB = 1024 * 1024;
const CURSOR_INTERVAL_MS = 100;
const DEAD_LETTER_DIR = 'dead-letter';
const REPLAY_DIR = 'replay';
const SIGNALS: readonly Signal[] = ['logs', 'traces', 'metrics'];
const segmentName = (id: number): string => `${String(id).padStart(20, '0')}.seg`;

/**
 * Segments are a sixteenth of the bound (1–64 MiB): a segment is freed only once wholly
 * delivered, so this is the most delivered data that can still count against max-bytes.
 */
export const segmentSizeFor = (maxBytes: number, ceiling: number): number => Math.min(ceiling, Math.max(MiB, Math.min(64 * MiB, Math.floor(maxBytes / 16))));

function encodeRecord(r: EncodedExport): Buffer {
  const out = Buffer.allocUnsafe(HEADER + r.body.length);
  out.writeUInt32LE(r.body.length, 0);
  out.writeUInt8(SIGNALS.indexOf(r.signal), 8);
  out.writeUInt32LE(r.records, 9);
  r.body.copy(out, HEADER);
  out.writeUInt32LE(crc32(out.subarray(8)), 4);
  return out;
}

/** End of the whole, checksummed record starting at `offset`, or undefined when none starts there. */
function recordEnd(data: Buffer, offset: number): number | undefined {
  if (offset + HEADER > data.length || (data[offset + 8] as number) >= SIGNALS.length) return undefined;
  const end = offset + HEADER + data.readUInt32LE(offset);
  if (end > data.length || crc32(data.subarray(offset + 8, end)) !== data.readUInt32LE(offset + 4)) return undefined;
  return end;
}

/** The first offset after `from` where a whole record starts, or data.length when none does. */
function resync(data: Buffer, from: number): number {
  for (let offset = from + 1; offset + HEADER <= data.length; offset++) if (recordEnd(data, offset) !== undefined) return offset;
  return data.length;
}

/** The whole records and the damaged stretches of `data`, in order: damage ends where the next whole record starts. */
function* pieces(data: Buffer): Generator<{ start: number; end: number; whole: boolean }> {
  for (let start = 0; start < data.length; ) {
    const end = recordEnd(data, start);
    const next = end ?? resync(data, start);
    yield { start, end: next, whole: end !== undefined };
    start = next;
  }
}

/** Whether a reader walking `data` from its start stops at `offset` (a record or the damage before one). */
function isPieceStart(data: Buffer, offset: number): boolean {
  for (const piece of pieces(data)) if (piece.start >= offset) return piece.start === offset;
  return false;
}

function decodeRecord(record: Buffer): EncodedExport {
  return { signal: SIGNALS[record.readUInt8(8)] as Signal, records: record.readUInt32LE(9), body: record.subarray(HEADER) };
}

const sizeOfFiles = (dir: string): number => listFiles(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => !f.endsWith('.tmp'))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

export class DiskSpool {
  private readonly io: SpoolIo;
  private readonly segmentBytes: number;
  private segments: number[] = [];
  private writeFd = -1;
  private writeSegment = 0;
  private writeOffset = 0;
  /** a failed append may have left part of a record after writeOffset: cut before the next one */
  private tornWrite = false;
  /** the last append failed for want of space (or a failing disk) */
  private diskRefused = false;
  private readSegment = 0;
  private readOffset = 0;
  private readFd = -1;
  private readFdSegment = -1;
  private pendingBytes = 0;
  private usedBytes = 0;
  private cursorDirty = false;
  private cursorWrittenAt = 0;
  /** an fsync is running */
  private syncing = false;
  /** appends waiting for the next fsync */
  private readonly syncWaiters: { resolve(): void; reject(err: Error): void }[] = [];
  /** descriptors of segments rotated away while an fsync was running */
  private readonly closeAfterSync: number[] = [];
  private wakeDrainer: (() => void) | undefined;
  private readonly events: SpoolEvent[] = [];
  private listener: ((event: SpoolEvent) => void) | undefined;

  private constructor(private readonly options: SpoolOptions) {
    this.io = options.io ?? NODE_IO;
    this.segmentBytes = segmentSizeFor(options.maxBytes, options.segmentBytes);
  }

  /** Opens (or creates) the spool in `options.dir`, recovering from whatever a crash left, then takes in `replay/`. */
  static open(options: SpoolOptions): DiskSpool {
    const spool = new DiskSpool(options);
    spool.recover();
    spool.replay();
    return spool;
  }

  /** Bytes appended but not yet acknowledged by the collector. */
  get bytes(): number {
    return this.pendingBytes;
  }

  /** Bytes the spool holds on disk, which max-bytes bounds: segments, delivered or not, and dead letters. */
  get diskBytes(): number {
    return this.usedBytes;
  }

  /** Hands over the events so far and every later one. */
  onEvent(listener: (event: SpoolEvent) => void): void {
    this.listener = listener;
    for (const event of this.events.splice(0)) listener(event);
  }

  private report(event: SpoolEvent): void {
    if (this.listener) this.listener(event);
    else this.events.push(event);
  }

  private recover(): void {
    mkdirSync(this.options.dir, { recursive: true });
    this.segments = listFiles(this.options.dir)
      .filter((f) => /^\d{20}\.seg$/.test(f))
      .map((f) => Number(f.slice(0, 20)));
    if (this.segments.length === 0) this.segments = [1];
    const last = this.segments[this.segments.length - 1] as number;
    this.writeSegment = last;
    this.writeFd = openSync(this.path(last), 'a+');
    this.cutTornTail(last);
    this.usedBytes = this.segments.reduce((sum, s) => sum + this.sizeOf(s), 0) + sizeOfFiles(join(this.options.dir, DEAD_LETTER_DIR));
    const start = this.startingPoint();
    this.readSegment = start.segment;
    this.readOffset = start.offset;
    this.pendingBytes = this.segments.filter((s) => s >= this.readSegment).reduce((sum, s) => sum + this.sizeOf(s), 0) - this.readOffset;
  }

  /** A crash mid-append leaves part of a record at the end; damage before whole records is left to the reader. */
  private cutTornTail(segment: number): void {
    const data = readFileSync(this.path(segment));
    this.writeOffset = 0;
    for (const piece of pieces(data)) if (piece.whole) this.writeOffset = piece.end;
    if (this.writeOffset === data.length) return;
    ftruncateSync(this.writeFd, this.writeOffset);
    this.report({ type: 'damaged', segment: segmentName(segment), offset: this.writeOffset, bytes: data.length - this.writeOffset, where: 'torn tail' });
  }

  /** Where the cursor says delivery stands, or the oldest segment's start when it cannot be right. */
  private startingPoint(): { segment: number; offset: number } {
    const oldest = { segment: this.segments[0] as number, offset: 0 };
    let raw: string;
    try {
      raw = readFileSync(join(this.options.dir, 'cursor'), 'utf8');
    } catch {
      return oldest; // nothing acknowledged yet
    }
    const checked = this.checkCursor(raw);
    if (typeof checked !== 'string') return checked;
    this.report({ type: 'cursor-reset', problem: `cursor ${JSON.stringify(raw.slice(0, 200))}: ${checked}`, start: segmentName(oldest.segment) });
    return oldest;
  }

  /** The cursor's position, or what is wrong with it. */
  private checkCursor(raw: string): { segment: number; offset: number } | string {
    let cursor: { segment?: unknown; offset?: unknown };
    try {
      cursor = JSON.parse(raw) as typeof cursor;
    } catch {
      return 'not JSON';
    }
    const { segment, offset } = cursor ?? {};
    if (!Number.isSafeInteger(segment) || !Number.isSafeInteger(offset)) return 'segment and offset must be integers';
    const at = { segment: segment as number, offset: offset as number };
    if (at.offset < 0) return 'negative offset';
    if (!this.segments.includes(at.segment)) return `segment ${segmentName(at.segment)} does not exist`;
    if (at.segment !== this.segments[0]) return `older segments than ${segmentName(at.segment)} were not deleted`;
    if (at.offset > this.sizeOf(at.segment)) return `offset past the end of ${segmentName(at.segment)} (${this.sizeOf(at.segment)} bytes)`;
    if (at.offset < this.sizeOf(at.segment) && !isPieceStart(readFileSync(this.path(at.segment)), at.offset)) return 'offset is not on a record boundary';
    return at;
  }

  /** Appends the records of every file in `replay/` (an operator put them there), oldest name first. */
  private replay(): void {
    const dir = join(this.options.dir, REPLAY_DIR);
    for (const file of listFiles(dir)) {
      const data = readFileSync(join(dir, file));
      const records: Buffer[] = [];
      for (const piece of pieces(data)) {
        if (piece.whole) records.push(data.subarray(piece.start, piece.end));
        else this.report({ type: 'damaged', segment: `${REPLAY_DIR}/${file}`, offset: piece.start, bytes: piece.end - piece.start, where: 'middle' });
      }
      try {
        this.writeRecords(records);
        this.io.fsyncSync(this.writeFd);
        unlinkSync(join(dir, file));
      } catch (err) {
        this.report({ type: 'write-failed', operation: 'replay', error: err as Error });
        return; // the rest stays in replay/ for the next start
      }
      this.report({ type: 'replayed', file, records: records.length });
    }
  }

  private path(segment: number): string {
    return join(this.options.dir, segmentName(segment));
  }

  private sizeOf(segment: number): number {
    return segment === this.writeSegment ? this.writeOffset : statSync(this.path(segment)).size;
  }

  /** Moves the cursor file (lagging at most CURSOR_INTERVAL_MS unless forced); a failure only costs duplicates after a crash. */
  private writeCursor(force: boolean): void {
    this.cursorDirty = true;
    if (force || Date.now() - this.cursorWrittenAt >= CURSOR_INTERVAL_MS) this.flushCursor();
  }

  private flushCursor(): void {
    if (!this.cursorDirty) return;
    this.cursorWrittenAt = Date.now();
    try {
      this.writeDurably(join(this.options.dir, 'cursor'), Buffer.from(JSON.stringify({ segment: this.readSegment, offset: this.readOffset })));
      this.cursorDirty = false;
    } catch (err) {
      this.report({ type: 'write-failed', operation: 'cursor', error: err as Error });
    }
  }

  /** Readers see either the old file or the whole new one (write a temporary, fsync, rename); a failure leaves neither behind. */
  private writeDurably(path: string, data: Buffer): void {
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      try {
        for (let written = 0; written < data.length; ) written += this.io.writeSync(fd, data, written, data.length - written);
        if (this.options.fsync === 'always') this.io.fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      this.io.renameSync(tmp, path);
    } catch (err) {
      unlinkSync(tmp);
      throw err;
    }
  }

  /** Appends requests durably (per the fsync policy); 503 when the spool is full or the disk refuses. */
  async append(requests: readonly EncodedExport[]): Promise<void> {
    this.writeRecords(requests.map(encodeRecord));
    this.wakeDrainer?.();
    if (this.options.fsync === 'always') await this.sync();
  }

  /** All of the records or none of them. */
  private writeRecords(records: readonly Buffer[]): void {
    const size = records.reduce((sum, r) => sum + r.length, 0);
    try {
      // a disk smaller than max-bytes fills before the bound does: only freeing the segment helps
      if (this.diskRefused || this.usedBytes + size > this.options.maxBytes) this.reclaimDeliveredWriteSegment();
      if (this.usedBytes + size > this.options.maxBytes) throw new SpoolFullError(this.options.maxBytes);
      if (this.tornWrite) this.cutTornWrite();
      if (this.writeOffset > 0 && this.writeOffset + size > this.segmentBytes) this.rotate();
      this.tornWrite = true;
      for (const record of records) {
        for (let written = 0; written < record.length; ) written += this.io.writeSync(this.writeFd, record, written, record.length - written);
      }
      this.tornWrite = false;
      this.diskRefused = false;
    } catch (err) {
      if (err instanceof SpoolFullError) throw err;
      this.diskRefused = true;
      this.report({ type: 'write-failed', operation: 'append', error: err as Error });
      this.tryCutTornWrite();
      throw new SpoolWriteError(err);
    }
    this.writeOffset += size;
    this.pendingBytes += size;
    this.usedBytes += size;
  }

  private tryCutTornWrite(): void {
    try {
      if (this.tornWrite) this.cutTornWrite();
    } catch {
      // stays flagged: the next append cuts it first or fails too
    }
  }

  private cutTornWrite(): void {
    this.io.ftruncateSync(this.writeFd, this.writeOffset);
    this.tornWrite = false;
  }

  /**
   * Group commit: one fsync at a time, shared by every append made before it starts; appends made
   * while it runs wait for the next one. An fsync per event-loop turn instead, on a slow disk,
   * queued up in libuv's thread pool faster than they finished, and each append waited for all
   * of those queued before its own.
   */
  private sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.syncWaiters.push({ resolve, reject });
      if (!this.syncing) this.startSync();
    });
  }

  /** Waits for the end of the turn, so that the appends of one turn share the fsync. */
  private startSync(): void {
    this.syncing = true;
    setImmediate(() => {
      const group = this.syncWaiters.splice(0);
      this.io.fsync(this.writeFd, (err) => {
        this.syncing = false;
        for (const fd of this.closeAfterSync.splice(0)) closeSync(fd);
        if (err) this.report({ type: 'write-failed', operation: 'fsync', error: err });
        for (const waiter of group) {
          if (err) waiter.reject(new SpoolWriteError(err));
          else waiter.resolve();
        }
        if (this.syncWaiters.length > 0) this.startSync();
      });
    });
  }

  /** The old segment is made durable before the new one takes writes; if it cannot be, nothing changes. */
  private rotate(): void {
    const next = this.writeSegment + 1;
    const fd = openSync(this.path(next), 'a+');
    try {
      this.io.fsyncSync(this.writeFd);
    } catch (err) {
      closeSync(fd);
      unlinkSync(this.path(next));
      throw err;
    }
    // an fsync in flight still has the old descriptor: closing it now could fail that fsync, or
    // point it at whatever file takes the number next
    if (this.syncing) this.closeAfterSync.push(this.writeFd);
    else closeSync(this.writeFd);
    this.writeFd = fd;
    this.writeSegment = next;
    this.segments.push(next);
    this.writeOffset = 0;
  }

  /** Everything was delivered but the write segment still holds it: start a new one and delete the old. */
  private reclaimDeliveredWriteSegment(): void {
    if (this.readSegment !== this.writeSegment || this.readOffset !== this.writeOffset || this.writeOffset === 0) return;
    this.rotate();
    this.retireReadSegment();
  }

  /**
   * The oldest record not yet acknowledged (damaged bytes before it skipped and reported), or
   * undefined when everything was delivered. With `maxBodyBytes`, the records of the same signal
   * that follow it in its segment come along, merged into one request, while the bodies fit: an
   * export request's only field is repeated, so requests concatenated are the request holding
   * them all.
   */
  next(maxBodyBytes = 0): SpooledRecord | undefined {
    for (;;) {
      const size = this.sizeOf(this.readSegment);
      if (this.readOffset >= size) {
        if (this.readSegment === this.writeSegment) {
          this.flushCursor();
          return undefined;
        }
        this.retireReadSegment();
        continue;
      }
      const record = this.readRecord(size);
      if (record) return record.request.body.length < maxBodyBytes ? this.withFollowers(record, size, maxBodyBytes) : record;
      this.skipDamage(size);
    }
  }

  private readRecord(size: number): SpooledRecord | undefined {
    const fd = this.readFdFor(this.readSegment);
    const header = Buffer.alloc(HEADER);
    if (readSync(fd, header, 0, HEADER, this.readOffset) < HEADER) return undefined;
    const length = header.readUInt32LE(0);
    if (this.readOffset + HEADER + length > size) return undefined;
    const record = Buffer.allocUnsafe(HEADER + length);
    const got = readSync(fd, record, 0, record.length, this.readOffset);
    if (recordEnd(record.subarray(0, got), 0) !== record.length) return undefined;
    return { request: decodeRecord(record), segment: this.readSegment, start: this.readOffset, end: this.readOffset + record.length, parts: 1 };
  }

  /** `first` and the whole records of its signal after it, up to the first damage, while the bodies fit in `maxBodyBytes`. */
  private withFollowers(first: SpooledRecord, size: number, maxBodyBytes: number): SpooledRecord {
    const { signal } = first.request;
    const budget = maxBodyBytes - first.request.body.length;
    // twice the bodies' budget holds every record whose body fits, headers included, as long as
    // bodies are at least as long as a header (no request worth sending is shorter)
    const chunk = Buffer.allocUnsafe(Math.min(size - first.end, 2 * budget));
    const data = chunk.subarray(0, readSync(this.readFdFor(first.segment), chunk, 0, chunk.length, first.end));
    const bodies = [first.request.body];
    let bodyBytes = first.request.body.length;
    let records = first.request.records;
    let at = 0;
    for (let end = recordEnd(data, at); end !== undefined; end = recordEnd(data, at)) {
      const next = decodeRecord(data.subarray(at, end));
      if (next.signal !== signal || bodyBytes + next.body.length > maxBodyBytes) break;
      bodies.push(next.body);
      bodyBytes += next.body.length;
      records += next.records;
      at = end;
    }
    if (bodies.length === 1) return first;
    return { request: { signal, records, body: Buffer.concat(bodies, bodyBytes) }, segment: first.segment, start: first.start, end: first.end + at, parts: bodies.length };
  }

  /** Moves the reader to the next whole record in its segment (or the segment's end), reporting what it passed. */
  private skipDamage(size: number): void {
    const rest = Buffer.allocUnsafe(size - this.readOffset);
    const got = readSync(this.readFdFor(this.readSegment), rest, 0, rest.length, this.readOffset);
    const found = resync(rest.subarray(0, got), 0);
    const bytes = found < got ? found : rest.length;
    this.report({ type: 'damaged', segment: segmentName(this.readSegment), offset: this.readOffset, bytes, where: 'middle' });
    this.pendingBytes -= bytes;
    this.readOffset += bytes;
    this.writeCursor(false);
  }

  /** The collector has this record (or these records): move past it for good. */
  ack(record: SpooledRecord): void {
    this.pendingBytes -= record.end - this.readOffset;
    this.readOffset = record.end;
    this.writeCursor(false);
  }

  /**
   * Keeps a record the collector called invalid as `dead-letter/<ms>-<segment>-<offset>.rec` (the
   * spool's own record format, so a file moved to `replay/` is taken back in as it is). Throws
   * when it cannot be written: the record then stays spooled.
   */
  deadLetter(record: SpooledRecord): string {
    const dir = join(this.options.dir, DEAD_LETTER_DIR);
    const file = `${Date.now()}-${segmentName(record.segment).slice(0, 20)}-${record.start}.rec`;
    const data = encodeRecord(record.request);
    try {
      mkdirSync(dir, { recursive: true });
      this.writeDurably(join(dir, file), data);
    } catch (err) {
      this.report({ type: 'write-failed', operation: 'dead-letter', error: err as Error });
      throw err;
    }
    this.usedBytes += data.length;
    return join(DEAD_LETTER_DIR, file);
  }

  /** Deletes a delivered segment, then moves the cursor: a crash between leaves a cursor naming a missing segment, which sends the reader to the oldest one (the next). */
  private retireReadSegment(): void {
    const done = this.readSegment;
    const size = this.sizeOf(done);
    if (this.readFdSegment === done) {
      closeSync(this.readFd);
      this.readFdSegment = -1;
    }
    this.segments = this.segments.filter((s) => s !== done);
    this.readSegment = this.segments[0] as number;
    this.readOffset = 0;
    try {
      unlinkSync(this.path(done));
      this.usedBytes -= size;
    } catch (err) {
      this.report({ type: 'write-failed', operation: 'delete', error: err as Error });
    }
    this.writeCursor(true);
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
    this.flushCursor();
    try {
      this.io.fsyncSync(this.writeFd);
    } catch (err) {
      this.report({ type: 'write-failed', operation: 'fsync', error: err as Error });
    }
    closeSync(this.writeFd);
    if (!this.syncing) for (const fd of this.closeAfterSync.splice(0)) closeSync(fd);
    if (this.readFdSegment >= 0) closeSync(this.readFd);
  }
}
