import { appendFileSync, mkdtempSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskSpool, SpoolFullError, type SpoolOptions } from '../../src/export/spool';
import type { EncodedExport } from '../../src/otlp/encode';

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
    expect((err as SpoolFullError).status).toBe(503);
    expect((err as SpoolFullError).headers['Retry-After']).toBeDefined();
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
