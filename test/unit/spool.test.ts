import { appendFileSync, existsSync, fsync, fsyncSync, ftruncateSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpoolFullError, SpoolWriteError } from '../../src/core/errors';
import { DiskSpool, segmentSizeFor, type SpoolEvent, type SpoolIo, type SpoolOptions } from '../../src/core/export/spool';
import type { EncodedExport } from '../../src/core/otlp/encode';
import { replyTo } from '../helpers/error-reply';

const req = (n: number, size = 100): EncodedExport => ({ signal: n % 2 ? 'logs' : 'metrics', records: n, body: Buffer.alloc(size, n % 256) });
const options = (overrides: Partial<SpoolOptions> = {}): SpoolOptions => ({ dir: mkdtempSync(join(tmpdir(), 'spool-')), maxBytes: 1_000_000, segmentBytes: 1_000, fsync: 'always', ...overrides });

function drainAll(spool: DiskSpool): EncodedExport[] {
  const out: EncodedExport[] = [];
  for (let r = spool.next(); r; r = spool.next()) {
    out.push(r.request);
    spool.ack(r);
  }
  return out;
}

describe('DiskSpool', () => {
  it('returns records in append order, across segment rotations, and deletes delivered segments', async () => {
    const o = options();
    const spool = DiskSpool.open(o);
    for (let i = 1; i <= 30; i++) await spool.append([req(i)]);
    expect(readdirSync(o.dir).filter((f) => f.endsWith('.seg')).length).toBeGreaterThan(2);
    const got = drainAll(spool);
    expect(got.map((r) => r.records)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(got[4]!.body.equals(req(5).body)).toBe(true);
    expect(got[4]!.signal).toBe('logs');
    expect(spool.bytes).toBe(0);
    expect(readdirSync(o.dir).filter((f) => f.endsWith('.seg')).length).toBe(1);
    spool.close();
  });

  it('resumes after a restart where the acknowledged cursor stood', async () => {
    const o = options();
    const first = DiskSpool.open(o);
    for (let i = 1; i <= 10; i++) await first.append([req(i)]);
    for (let i = 0; i < 4; i++) first.ack(first.next()!);
    first.close();
    const second = DiskSpool.open(o);
    expect(drainAll(second).map((r) => r.records)).toEqual([5, 6, 7, 8, 9, 10]);
    second.close();
  });

  it('cuts a torn record off the end (crash mid-write) and keeps everything before it', async () => {
    const o = options({ segmentBytes: 1_000_000 });
    const spool = DiskSpool.open(o);
    for (let i = 1; i <= 3; i++) await spool.append([req(i)]);
    spool.close();
    const seg = join(o.dir, readdirSync(o.dir).find((f) => f.endsWith('.seg'))!);
    appendFileSync(seg, Buffer.from([0x50, 0, 0, 0, 1, 2, 3])); // a header of a record never finished
    const reopened = DiskSpool.open(o);
    expect(drainAll(reopened).map((r) => r.records)).toEqual([1, 2, 3]);
    await reopened.append([req(4)]);
    expect(drainAll(reopened).map((r) => r.records)).toEqual([4]);
    reopened.close();
  });

  it('drops a record whose checksum does not match at the tail on recovery', async () => {
    const o = options({ segmentBytes: 1_000_000 });
    const spool = DiskSpool.open(o);
    await spool.append([req(1)]);
    await spool.append([req(2)]);
    spool.close();
    const seg = join(o.dir, readdirSync(o.dir).find((f) => f.endsWith('.seg'))!);
    const data = readFileSync(seg);
    data[data.length - 1] ^= 0xff;
    writeFileSync(seg, data);
    const reopened = DiskSpool.open(o);
    expect(drainAll(reopened).map((r) => r.records)).toEqual([1]);
    expect(statSync(seg).size).toBeLessThan(data.length);
    reopened.close();
  });

  it('refuses with 503 + Retry-After when full, and accepts again once drained', async () => {
    const spool = DiskSpool.open(options({ maxBytes: 500 }));
    await spool.append([req(1), req(2), req(3)]);
    const err = await spool.append([req(4), req(5)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpoolFullError);
    expect(replyTo(err).status).toBe(503);
    expect(replyTo(err).headers['Retry-After']).toBeDefined();
    drainAll(spool);
    await expect(spool.append([req(4), req(5)])).resolves.toBeUndefined();
    spool.close();
  });

  it('counts pending bytes across restarts', async () => {
    const o = options();
    const spool = DiskSpool.open(o);
    await spool.append([req(1), req(2)]);
    const bytes = spool.bytes;
    expect(bytes).toBe(2 * (13 + 100));
    spool.close();
    const again = DiskSpool.open(o);
    expect(again.bytes).toBe(bytes);
    again.close();
  });

  it('ignores a cursor that points at a deleted segment', async () => {
    const o = options();
    const spool = DiskSpool.open(o);
    await spool.append([req(1)]);
    spool.close();
    writeFileSync(join(o.dir, 'cursor'), JSON.stringify({ segment: 999, offset: 5 }));
    const again = DiskSpool.open(o);
    expect(drainAll(again).map((r) => r.records)).toEqual([1]);
    again.close();
  });

  it('wakes a waiting drainer on append', async () => {
    const spool = DiskSpool.open(options());
    const abort = new AbortController();
    let woke = false;
    const waiting = spool.waitForData(abort.signal).then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(woke).toBe(false);
    await spool.append([req(1)]);
    await waiting;
    expect(woke).toBe(true);
    spool.close();
  });

  it('does not lose a torn tail in a segment truncated to zero', async () => {
    const o = options({ segmentBytes: 1_000_000 });
    const spool = DiskSpool.open(o);
    await spool.append([req(1)]);
    spool.close();
    const seg = join(o.dir, readdirSync(o.dir).find((f) => f.endsWith('.seg'))!);
    truncateSync(seg, 5);
    const again = DiskSpool.open(o);
    expect(again.next()).toBeUndefined();
    expect(again.bytes).toBe(0);
    again.close();
  });
});

const RECORD = 13 + 100; // one req() on disk
const MiB = 1024 * 1024;

const fsError = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: simulated`), { code });
const fail = (code: string): never => {
  throw fsError(code);
};

/**
 * The node:fs calls with faults on demand: `room` bytes left for appends (a write takes what fits
 * and fails with ENOSPC once nothing does, as a full disk does), and failing fsync, rename
 * (cursor and dead-letter files) and ftruncate.
 */
function faultyDisk() {
  const disk = { room: Infinity, failFsync: false, failRename: false, failTruncate: 0 };
  const io: SpoolIo = {
    writeSync: (fd, buffer, offset, length) => {
      if (disk.room <= 0) fail('ENOSPC');
      const n = writeSync(fd, buffer, offset, Math.min(length, disk.room));
      disk.room -= n;
      return n;
    },
    fsyncSync: (fd) => (disk.failFsync ? fail('EIO') : fsyncSync(fd)),
    fsync: (fd, callback) => (disk.failFsync ? setImmediate(() => callback(fsError('EIO'))) : fsync(fd, callback)),
    renameSync: (from, to) => (disk.failRename ? fail('EIO') : renameSync(from, to)),
    ftruncateSync: (fd, length) => {
      if (disk.failTruncate > 0) {
        disk.failTruncate--;
        throw fsError('EIO');
      }
      ftruncateSync(fd, length);
    },
  };
  return { disk, io };
}

function openWithEvents(o: SpoolOptions): { spool: DiskSpool; events: SpoolEvent[] } {
  const spool = DiskSpool.open(o);
  const events: SpoolEvent[] = [];
  spool.onEvent((e) => events.push(e));
  return { spool, events };
}

const segmentFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.seg'))
    .sort();
const onlySegment = (dir: string): string => join(dir, segmentFiles(dir)[0]!);
const damagedBytes = (events: SpoolEvent[]): number => events.reduce((n, e) => n + (e.type === 'damaged' ? e.bytes : 0), 0);

/** What the spool keeps on disk, counted from the files themselves. */
function bytesOnDisk(dir: string): number {
  const deadLetters = join(dir, 'dead-letter');
  const sizes = (d: string, names: string[]): number => names.reduce((n, f) => n + statSync(join(d, f)).size, 0);
  return sizes(dir, segmentFiles(dir)) + (existsSync(deadLetters) ? sizes(deadLetters, readdirSync(deadLetters)) : 0);
}

async function appendEach(spool: DiskSpool, from: number, to: number): Promise<void> {
  for (let i = from; i <= to; i++) await spool.append([req(i)]);
}

/** A closed spool holding records 1..n. */
async function spoolWith(n: number, overrides: Partial<SpoolOptions> = { segmentBytes: 1_000_000 }): Promise<SpoolOptions> {
  const o = options(overrides);
  const spool = DiskSpool.open(o);
  await appendEach(spool, 1, n);
  spool.close();
  return o;
}

function flipByte(file: string, offset: number): void {
  const data = readFileSync(file);
  data[offset] ^= 0x5a;
  writeFileSync(file, data);
}

describe('DiskSpool on a full or failing disk', () => {
  it('answers ENOSPC with 503 + Retry-After, leaves no torn record, and keeps what was acknowledged after space returns (also across a restart)', async () => {
    const { disk, io } = faultyDisk();
    const o = options({ segmentBytes: 1_000_000, io });
    const { spool, events } = openWithEvents(o);
    await appendEach(spool, 1, 2);
    const before = statSync(onlySegment(o.dir)).size;
    disk.room = RECORD + 40; // the first record fits, the second is cut short
    const err = await spool.append([req(3), req(4)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpoolWriteError);
    expect(replyTo(err).status).toBe(503);
    expect(replyTo(err).headers['Retry-After']).toBeDefined();
    expect((err as Error).message).toContain('ENOSPC');
    expect(statSync(onlySegment(o.dir)).size).toBe(before);
    expect(events).toContainEqual(expect.objectContaining({ type: 'write-failed', operation: 'append' }));
    disk.room = Infinity;
    await appendEach(spool, 5, 6);
    spool.close();

    const { spool: again, events: reopened } = openWithEvents(o);
    expect(reopened).toEqual([]);
    expect(drainAll(again).map((r) => r.records)).toEqual([1, 2, 5, 6]);
    disk.room = 10;
    await expect(again.append([req(7)])).rejects.toBeInstanceOf(SpoolWriteError);
    disk.room = Infinity;
    await again.append([req(8)]);
    expect(drainAll(again).map((r) => r.records)).toEqual([8]);
    again.close();
  });

  it('after the disk refused an append, starts a new segment and deletes the delivered one, which is what frees a disk smaller than max-bytes', async () => {
    const { disk, io } = faultyDisk();
    const o = options({ segmentBytes: 1_000_000, io });
    const spool = DiskSpool.open(o);
    await appendEach(spool, 1, 3);
    const [full] = segmentFiles(o.dir);
    disk.room = 0;
    await expect(spool.append([req(4)])).rejects.toBeInstanceOf(SpoolWriteError);
    expect(drainAll(spool).map((r) => r.records)).toEqual([1, 2, 3]);
    disk.room = Infinity;
    await spool.append([req(5)]);
    expect(segmentFiles(o.dir)).not.toContain(full);
    expect(spool.diskBytes).toBe(RECORD);
    spool.close();
    expect(drainAll(DiskSpool.open(o)).map((r) => r.records)).toEqual([5]);
  });

  it('cuts a torn record before the next append when cutting it right away failed', async () => {
    const { disk, io } = faultyDisk();
    const o = options({ segmentBytes: 1_000_000, io });
    const spool = DiskSpool.open(o);
    await spool.append([req(1)]);
    disk.room = 50;
    disk.failTruncate = 2; // right after the failed write, and again before the next append
    await expect(spool.append([req(2)])).rejects.toBeInstanceOf(SpoolWriteError);
    expect(statSync(onlySegment(o.dir)).size).toBe(RECORD + 50);
    disk.room = Infinity;
    await expect(spool.append([req(3)])).rejects.toBeInstanceOf(SpoolWriteError);
    await spool.append([req(4)]);
    expect(statSync(onlySegment(o.dir)).size).toBe(2 * RECORD);
    spool.close();
    expect(drainAll(DiskSpool.open(o)).map((r) => r.records)).toEqual([1, 4]);
  });

  it('answers a failed fsync with 503 and reports it', async () => {
    const { disk, io } = faultyDisk();
    const { spool, events } = openWithEvents(options({ io }));
    disk.failFsync = true;
    const err = await spool.append([req(1)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpoolWriteError);
    expect(replyTo(err).status).toBe(503);
    expect(events).toContainEqual(expect.objectContaining({ type: 'write-failed', operation: 'fsync' }));
    disk.failFsync = false;
    spool.close();
  });

  it('never throws when the cursor cannot be written: the cursor lags, so a restart re-sends (duplicates, no loss)', async () => {
    const { disk, io } = faultyDisk();
    const o = options({ io });
    const { spool, events } = openWithEvents(o);
    await appendEach(spool, 1, 3);
    disk.failRename = true;
    expect(drainAll(spool).map((r) => r.records)).toEqual([1, 2, 3]);
    spool.close();
    expect(events.filter((e) => e.type === 'write-failed' && e.operation === 'cursor').length).toBeGreaterThan(0);
    disk.failRename = false;
    const again = DiskSpool.open(o);
    expect(drainAll(again).map((r) => r.records)).toEqual([1, 2, 3]);
    again.close();
    expect(drainAll(DiskSpool.open(o))).toEqual([]);
  });
});

describe('DiskSpool with damaged files', () => {
  it('loses only the record with a flipped byte in the middle of the last segment, at recovery (nothing after it is cut off)', async () => {
    const o = await spoolWith(10);
    const seg = onlySegment(o.dir);
    flipByte(seg, 4 * RECORD + 13 + 50); // inside record 5's body
    const { spool: again, events } = openWithEvents(o);
    expect(statSync(seg).size).toBe(10 * RECORD);
    expect(drainAll(again).map((r) => r.records)).toEqual([1, 2, 3, 4, 6, 7, 8, 9, 10]);
    expect(events).toEqual([{ type: 'damaged', segment: expect.stringMatching(/\.seg$/), offset: 4 * RECORD, bytes: RECORD, where: 'middle' }]);
    again.close();
  });

  it('loses only the record whose length field became impossible', async () => {
    const o = await spoolWith(5);
    const seg = onlySegment(o.dir);
    const data = readFileSync(seg);
    data.writeUInt32LE(0x00ffffff, 2 * RECORD);
    writeFileSync(seg, data);
    const { spool: again, events } = openWithEvents(o);
    expect(drainAll(again).map((r) => r.records)).toEqual([1, 2, 4, 5]);
    expect(damagedBytes(events)).toBe(RECORD);
    again.close();
  });

  it('skips a record damaged while running in an older segment, and the damaged tail of a segment, and delivers the rest', async () => {
    const o = options({ segmentBytes: 1_000 }); // 8 records a segment
    const { spool, events } = openWithEvents(o);
    await appendEach(spool, 1, 20);
    const [first, second] = segmentFiles(o.dir);
    flipByte(join(o.dir, first!), 2 * RECORD + 20); // record 3
    flipByte(join(o.dir, second!), 7 * RECORD + 20); // record 16, the last of its segment
    expect(drainAll(spool).map((r) => r.records)).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20]);
    expect(events.filter((e) => e.type === 'damaged')).toHaveLength(2);
    expect(damagedBytes(events)).toBe(2 * RECORD);
    expect(spool.bytes).toBe(0);
    spool.close();
  });

  it('reports the torn tail it cuts off on open', async () => {
    const o = await spoolWith(2);
    appendFileSync(onlySegment(o.dir), Buffer.alloc(30, 7));
    const { spool: again, events } = openWithEvents(o);
    expect(events).toEqual([expect.objectContaining({ type: 'damaged', offset: 2 * RECORD, bytes: 30, where: 'torn tail' })]);
    expect(drainAll(again).map((r) => r.records)).toEqual([1, 2]);
    again.close();
  });

  const firstSegmentId = (dir: string): number => Number(segmentFiles(dir)[0]!.slice(0, 20));
  const badCursors: [string, (dir: string) => string][] = [
    ['an offset past the end', (dir) => JSON.stringify({ segment: firstSegmentId(dir), offset: 1e9 })],
    ['a negative offset', (dir) => JSON.stringify({ segment: firstSegmentId(dir), offset: -RECORD })],
    ['an offset inside a record', (dir) => JSON.stringify({ segment: firstSegmentId(dir), offset: RECORD + 50 })],
    ['a missing segment', () => JSON.stringify({ segment: 999, offset: 0 })],
    ['a segment with older segments before it', (dir) => JSON.stringify({ segment: firstSegmentId(dir) + 1, offset: 0 })],
    ['offsets that are not integers', (dir) => JSON.stringify({ segment: firstSegmentId(dir), offset: 1.5 })],
    ['text that is not JSON', () => 'garbage'],
  ];
  it.each(badCursors)('starts over from the oldest segment, with a warning event, on a cursor with %s', async (_name, cursor) => {
    const o = options({ segmentBytes: 1_000 });
    const spool = DiskSpool.open(o);
    await appendEach(spool, 1, 12);
    for (let i = 0; i < 3; i++) spool.ack(spool.next()!);
    spool.close();
    writeFileSync(join(o.dir, 'cursor'), cursor(o.dir));
    const { spool: again, events } = openWithEvents(o);
    expect(events).toEqual([expect.objectContaining({ type: 'cursor-reset' })]);
    expect(drainAll(again).map((r) => r.records)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    again.close();
  });

  it('accepts a cursor on a record boundary without a warning', async () => {
    const o = await spoolWith(4, { segmentBytes: 1_000 });
    writeFileSync(join(o.dir, 'cursor'), JSON.stringify({ segment: firstSegmentId(o.dir), offset: 2 * RECORD }));
    const { spool: again, events } = openWithEvents(o);
    expect(events).toEqual([]);
    expect(drainAll(again).map((r) => r.records)).toEqual([3, 4]);
    again.close();
  });
});

describe('DiskSpool disk bound', () => {
  it('sizes segments at a sixteenth of max-bytes, between 1 and 64 MiB, never above the ceiling', () => {
    expect(segmentSizeFor(1024 * MiB, 64 * MiB)).toBe(64 * MiB);
    expect(segmentSizeFor(256 * MiB, 64 * MiB)).toBe(16 * MiB);
    expect(segmentSizeFor(4 * MiB, 64 * MiB)).toBe(MiB);
    expect(segmentSizeFor(4 * MiB, 1_000)).toBe(1_000);
  });

  it('keeps the bytes on disk within max-bytes, and frees delivered segments for new appends', async () => {
    const o = options({ maxBytes: 4_000, segmentBytes: 1_000 });
    const spool = DiskSpool.open(o);
    const delivered: number[] = [];
    let next = 1;
    let refusals = 0;
    for (let round = 0; round < 5; round++) {
      for (;;) {
        const err = await spool.append([req(next)]).catch((e: unknown) => e);
        expect(bytesOnDisk(o.dir)).toBeLessThanOrEqual(o.maxBytes);
        expect(spool.diskBytes).toBe(bytesOnDisk(o.dir));
        if (err) {
          expect(err).toBeInstanceOf(SpoolFullError);
          refusals++;
          break;
        }
        next++;
      }
      for (let i = 0; i < 12; i++) {
        const r = spool.next()!;
        delivered.push(r.request.records);
        spool.ack(r);
      }
      spool.next(); // the reader moves on, deleting the segment it finished
      expect(spool.diskBytes).toBe(bytesOnDisk(o.dir));
    }
    delivered.push(...drainAll(spool).map((r) => r.records));
    expect(refusals).toBe(5);
    expect(delivered).toEqual(Array.from({ length: next - 1 }, (_, i) => i + 1));
    spool.close();
  });
});

describe('DiskSpool dead letters', () => {
  it('keeps a dead letter on disk (counted against the bound) and takes it back in from replay/ on open', async () => {
    const o = options();
    const spool = DiskSpool.open(o);
    await appendEach(spool, 1, 3);
    spool.ack(spool.next()!);
    const bad = spool.next()!;
    const file = spool.deadLetter(bad);
    spool.ack(bad);
    spool.ack(spool.next()!);
    expect(file).toMatch(/^dead-letter\/.+\.rec$/);
    expect(spool.diskBytes).toBe(bytesOnDisk(o.dir));
    expect(spool.next()).toBeUndefined();
    spool.close();

    mkdirSync(join(o.dir, 'replay'));
    renameSync(join(o.dir, file), join(o.dir, 'replay', 'one.rec'));
    const { spool: again, events } = openWithEvents(o);
    expect(events).toEqual([{ type: 'replayed', file: 'one.rec', records: 1 }]);
    const replayed = drainAll(again);
    expect(replayed.map((r) => r.records)).toEqual([2]);
    expect(replayed[0]!.body.equals(req(2).body)).toBe(true);
    expect(readdirSync(join(o.dir, 'replay'))).toEqual([]);
    again.close();
  });
});

describe('DiskSpool reading merged records', () => {
  const of = (signal: EncodedExport['signal'], n: number): EncodedExport => ({ signal, records: n, body: Buffer.alloc(100, n) });
  /** The records a request read from the spool holds, from its bodies (of() fills each with its number). */
  const partsOf = (r: EncodedExport): number[] => Array.from({ length: r.body.length / 100 }, (_, i) => r.body[i * 100] as number);
  function readAll(spool: DiskSpool, maxBodyBytes: number): number[][] {
    const out: number[][] = [];
    for (let r = spool.next(maxBodyBytes); r; r = spool.next(maxBodyBytes)) {
      expect(r.parts).toBe(partsOf(r.request).length);
      expect(r.request.records).toBe(partsOf(r.request).reduce((a, b) => a + b, 0));
      out.push(partsOf(r.request));
      spool.ack(r);
    }
    return out;
  }

  it('merges the records of one signal that follow each other while their bodies fit, never across a signal change or a segment', async () => {
    const o = options({ segmentBytes: 6 * RECORD });
    const spool = DiskSpool.open(o);
    for (const [signal, n] of [
      ['logs', 1],
      ['logs', 2],
      ['logs', 3],
      ['metrics', 4],
      ['logs', 5],
      ['logs', 6],
      ['logs', 7],
      ['logs', 8],
      ['logs', 9],
    ] as const)
      await spool.append([of(signal, n)]);
    expect(segmentFiles(o.dir)).toHaveLength(2); // 1-6, 7-9
    expect(readAll(spool, 250)).toEqual([[1, 2], [3], [4], [5, 6], [7, 8], [9]]);
    expect(spool.bytes).toBe(0);
    spool.close();
    expect(drainAll(DiskSpool.open(o))).toEqual([]); // the cursor stands after all of them
  });

  it('stops a merged read at damage, then skips only the damaged record', async () => {
    const o = options({ segmentBytes: 1_000_000 });
    const { spool, events } = openWithEvents(o);
    for (let n = 1; n <= 6; n++) await spool.append([of('logs', n)]);
    flipByte(onlySegment(o.dir), 3 * RECORD + 40); // record 4
    expect(readAll(spool, 1_000_000)).toEqual([
      [1, 2, 3],
      [5, 6],
    ]);
    expect(damagedBytes(events)).toBe(RECORD);
    spool.close();
  });

  // a byte of a segment flipped, for each header byte of each record and bodies every 7th byte:
  // found at open (the last segment's tail is checked then) or by the reader while running, it
  // costs the record it is in and nothing else
  it.each(['at open', 'while running'])('a flipped byte (any header byte, bodies sampled) costs exactly the one record it is in (%s)', async (when) => {
    const records = 4;
    // real writes, no fsync: hundreds of spools are opened and closed here
    const io: SpoolIo = { writeSync: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length), fsyncSync: () => undefined, fsync: (_fd, callback) => callback(null), ftruncateSync, renameSync };
    const offsets = Array.from({ length: records * RECORD }, (_, at) => at).filter((at) => at % RECORD < 13 || at % 7 === 0);
    for (const at of offsets) {
      const o = options({ segmentBytes: 1_000_000, fsync: 'never', io });
      let spool = DiskSpool.open(o);
      for (let n = 1; n <= records; n++) await spool.append([of('logs', n)]);
      if (when === 'at open') spool.close();
      const data = readFileSync(onlySegment(o.dir));
      data[at] ^= 0xff;
      writeFileSync(onlySegment(o.dir), data);
      if (when === 'at open') spool = DiskSpool.open(o);
      const hit = Math.floor(at / RECORD) + 1;
      expect([at, readAll(spool, 0).flat()]).toEqual([at, [1, 2, 3, 4].filter((n) => n !== hit)]);
      spool.close();
    }
  });
});

describe('DiskSpool group commit', () => {
  it('runs one fsync at a time: the appends made while one runs share the next', async () => {
    const pending: (() => void)[] = [];
    let running = 0;
    let most = 0;
    let fsyncs = 0;
    const io: SpoolIo = {
      writeSync: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
      fsyncSync,
      fsync: (fd, callback) => {
        fsyncs++;
        most = Math.max(most, ++running);
        pending.push(() => {
          running--;
          fsync(fd, callback);
        });
      },
      renameSync,
      ftruncateSync,
    };
    const spool = DiskSpool.open(options({ io }));
    const first = spool.append([req(1)]);
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    const later = [spool.append([req(2)]), spool.append([req(3)])];
    await new Promise((r) => setImmediate(r));
    const late = spool.append([req(4)]); // a turn later, still while the first fsync runs
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(fsyncs).toBe(1);
    pending.shift()!();
    await first;
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()!();
    await Promise.all([...later, late]);
    expect([fsyncs, most]).toEqual([2, 1]);
    spool.close();
  });
});
