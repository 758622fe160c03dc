import { ftruncateSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExportRefusedError, UnavailableError } from '../../src/core/errors';
import { GrpcStatus, statusName } from '../../src/core/export/grpc-client';
import { isPermanent } from '../../src/core/export/retry-policy';
import { DiskSpool, type SpoolIo, type SpoolOptions } from '../../src/core/export/spool';
import { SpoolingExporter, type SpoolSender } from '../../src/core/export/spooling-exporter';
import { createLogger, type Logger } from '../../src/core/observability/log';
import { BridgeMetrics } from '../../src/core/observability/metrics';
import type { EncodedExport } from '../../src/core/otlp/encode';
import { replyTo } from '../helpers/error-reply';

const BODY = 50;
const req = (n: number): EncodedExport => ({ signal: 'logs', records: n, body: Buffer.alloc(BODY, n) });
const options = (overrides: Partial<SpoolOptions> = {}): SpoolOptions => ({ dir: mkdtempSync(join(tmpdir(), 'spool-exporter-')), maxBytes: 1_000_000, segmentBytes: 1_000_000, fsync: 'always', ...overrides });
const FAST = { maxBackoffMs: 5, batchBytes: 1_000_000 };

const noSpace = (): never => {
  throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' });
};
/** Real writes and renames, no fsync (these tests fake other faults). */
const NO_SYNC_IO: SpoolIo = { writeSync: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length), fsyncSync: () => undefined, fsync: (_fd, callback) => callback(null), ftruncateSync, renameSync };

/** What the collector answers a call, given the spooled records merged into it. */
type Outcome = (parts: number[]) => Promise<number>;
const accept: Outcome = () => Promise.resolve(0);
const refuse =
  (code: GrpcStatus): Outcome =>
  () =>
    Promise.reject(new ExportRefusedError(code, statusName(code), 'simulated', isPermanent(code)));

/** The records of each request merged into `body`: req(n)'s body is BODY bytes of n. */
const partsOf = (body: Buffer): number[] => Array.from({ length: body.length / BODY }, (_, i) => body[i * BODY] as number);

/** A collector stand-in: the n-th call gets the n-th scripted outcome, every later call `rest`. */
class FakeSender implements SpoolSender {
  /** each call's spooled records (the requests merged into it) */
  readonly calls: { parts: number[]; at: number }[] = [];
  /** the spooled records accepted, in order */
  readonly accepted: number[] = [];
  constructor(
    private readonly script: Outcome[],
    private readonly rest: Outcome = accept,
  ) {}

  async sendOnce(request: EncodedExport): Promise<number> {
    const parts = partsOf(request.body);
    this.calls.push({ parts, at: Date.now() });
    const rejected = await (this.script[this.calls.length - 1] ?? this.rest)(parts);
    this.accepted.push(...parts);
    return rejected;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function capturingLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { log: createLogger('debug', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)), lines };
}

/** Polls until `done` holds; the bound only keeps a broken drainer from hanging the suite. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
  }
}

async function exportEach(exporter: SpoolingExporter, from: number, to: number): Promise<void> {
  for (let i = from; i <= to; i++) await exporter.export([req(i)]);
}

describe('SpoolingExporter', () => {
  it('retries UNAUTHENTICATED, UNIMPLEMENTED, INTERNAL, deadlines and connection errors until the collector accepts, losing nothing', async () => {
    const sender = new FakeSender([
      refuse(GrpcStatus.UNAUTHENTICATED),
      refuse(GrpcStatus.UNAUTHENTICATED),
      refuse(GrpcStatus.UNIMPLEMENTED),
      refuse(GrpcStatus.INTERNAL),
      refuse(GrpcStatus.DEADLINE_EXCEEDED),
      () => Promise.reject(new Error('connect ECONNREFUSED')),
    ]);
    const metrics = new BridgeMetrics();
    const spool = DiskSpool.open(options());
    const exporter = new SpoolingExporter(spool, sender, metrics, capturingLog().log, FAST);
    await exportEach(exporter, 1, 4);
    await until(() => sender.accepted.length === 4, 'four deliveries');
    expect(sender.accepted).toEqual([1, 2, 3, 4]);
    // after a failure, one record at a time until the collector takes one
    expect(sender.calls.slice(0, 7).map((c) => c.parts)).toEqual([[1], [1], [1], [1], [1], [1], [1]]);
    const retries = (reason: string): number => metrics.spoolRetries.get({ signal: 'logs', reason });
    expect([retries('UNAUTHENTICATED'), retries('UNIMPLEMENTED'), retries('INTERNAL'), retries('DEADLINE_EXCEEDED'), retries('error')]).toEqual([2, 1, 1, 1, 1]);
    expect(metrics.recordsRejected.get({ signal: 'logs' })).toBe(0);
    await until(() => metrics.spoolBytes.get() === 0, 'the spool to empty');
    await exporter.close();
  });

  it('logs retries through a rate limit: one line per interval however many attempts fail', async () => {
    const sender = new FakeSender(Array.from({ length: 8 }, () => refuse(GrpcStatus.UNAVAILABLE)));
    const metrics = new BridgeMetrics();
    const { log, lines } = capturingLog();
    const exporter = new SpoolingExporter(DiskSpool.open(options()), sender, metrics, log, { ...FAST, logIntervalMs: 60_000 });
    await exporter.export([req(1)]);
    await until(() => sender.accepted.length === 1, 'the delivery');
    expect(metrics.spoolRetries.get({ signal: 'logs', reason: 'UNAVAILABLE' })).toBe(8);
    expect(lines.filter((l) => l.msg === 'spooled data not delivered; retrying')).toEqual([expect.objectContaining({ level: 'warn', reason: 'UNAVAILABLE', records: 1 })]);
    await exporter.close();
  });

  it('moves a record the collector calls invalid to dead-letter/, delivers the rest, and replays it from replay/ after a restart', async () => {
    const o = options();
    const sender = new FakeSender([], (parts) => (parts.includes(2) ? refuse(GrpcStatus.INVALID_ARGUMENT)(parts) : accept(parts)));
    const metrics = new BridgeMetrics();
    const { log, lines } = capturingLog();
    const exporter = new SpoolingExporter(DiskSpool.open(o), sender, metrics, log, FAST);
    await exportEach(exporter, 1, 3);
    await until(() => sender.accepted.length === 2, 'two deliveries');
    expect(sender.accepted).toEqual([1, 3]);
    expect(metrics.spoolDeadLetters.get({ signal: 'logs' })).toBe(2);
    expect(metrics.spoolRetries.get({ signal: 'logs', reason: 'INVALID_ARGUMENT' })).toBe(0);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: expect.stringContaining('dead-letter') }));
    await exporter.close();

    const [letter] = readdirSync(join(o.dir, 'dead-letter'));
    mkdirSync(join(o.dir, 'replay'));
    renameSync(join(o.dir, 'dead-letter', letter!), join(o.dir, 'replay', letter!));
    const replaySender = new FakeSender([]);
    const again = new SpoolingExporter(DiskSpool.open(o), replaySender, new BridgeMetrics(), capturingLog().log, FAST);
    await until(() => replaySender.accepted.length === 1, 'the replayed record');
    expect(replaySender.accepted).toEqual([2]);
    await again.close();
  });

  it('keeps a record spooled and retries when its dead letter cannot be written', async () => {
    const o = options();
    let failRename = true;
    const io = { ...NO_SYNC_IO, renameSync: (from: string, to: string) => (failRename ? noSpace() : renameSync(from, to)) };
    const sender = new FakeSender([], refuse(GrpcStatus.INVALID_ARGUMENT));
    const metrics = new BridgeMetrics();
    const exporter = new SpoolingExporter(DiskSpool.open({ ...o, io }), sender, metrics, capturingLog().log, FAST);
    await exporter.export([req(1)]);
    await until(() => metrics.spoolRetries.get({ signal: 'logs', reason: 'dead_letter_write' }) >= 1, 'a failed dead letter');
    expect(metrics.spoolWriteErrors.get({ operation: 'dead-letter' })).toBeGreaterThanOrEqual(1);
    expect(metrics.spoolBytes.get()).toBeGreaterThan(0);
    failRename = false;
    await until(() => metrics.spoolDeadLetters.get({ signal: 'logs' }) === 1, 'the dead letter');
    expect(sender.calls.length).toBeGreaterThanOrEqual(2);
    expect(readdirSync(join(o.dir, 'dead-letter'))).toHaveLength(1);
    await exporter.close();
  });

  it('closes while the collector never answers, keeping the record in flight spooled for the next start', async () => {
    const o = options();
    const sender = new FakeSender([], () => new Promise<number>(() => undefined));
    const exporter = new SpoolingExporter(DiskSpool.open(o), sender, new BridgeMetrics(), capturingLog().log, FAST);
    await exporter.export([req(7)]);
    await until(() => sender.calls.length === 1, 'the call');
    await exporter.close();
    expect(replyTo(await exporter.export([req(8)]).catch((e: unknown) => e)).status).toBe(503);
    const spool = DiskSpool.open(o);
    expect(spool.next()?.request.records).toBe(7);
    spool.close();
  });

  it('answers a disk that refuses the append with 503 + Retry-After, and counts it', async () => {
    const noRoom = { ...NO_SYNC_IO, writeSync: noSpace };
    const metrics = new BridgeMetrics();
    const exporter = new SpoolingExporter(DiskSpool.open(options({ io: noRoom })), new FakeSender([]), metrics, capturingLog().log, FAST);
    const err = await exporter.export([req(1)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(replyTo(err).status).toBe(503);
    expect(replyTo(err).headers['Retry-After']).toBeDefined();
    expect(metrics.spoolWriteErrors.get({ operation: 'append' })).toBe(1);
    await exporter.close();
  });

  it('logs and counts damage the spool found, delivering everything else', async () => {
    const o = options();
    const first = DiskSpool.open(o);
    for (let i = 1; i <= 5; i++) await first.append([req(i)]);
    first.close();
    const seg = join(o.dir, readdirSync(o.dir).find((f) => f.endsWith('.seg'))!);
    const data = readFileSync(seg);
    data[63 * 2 + 20] ^= 1; // inside record 3 (63 bytes each)
    writeFileSync(seg, data);
    const sender = new FakeSender([]);
    const metrics = new BridgeMetrics();
    const { log, lines } = capturingLog();
    const exporter = new SpoolingExporter(DiskSpool.open(o), sender, metrics, log, FAST);
    await until(() => sender.accepted.length === 4, 'four deliveries');
    expect(sender.accepted).toEqual([1, 2, 4, 5]);
    expect(metrics.spoolDamagedBytes.get()).toBe(63);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', bytes: 63, offset: 126 }));
    await exporter.close();
  });
});

describe('SpoolingExporter delivery', () => {
  /** A spool already holding records 1..n, as a restart or an outage leaves it. */
  async function spoolHolding(n: number): Promise<DiskSpool> {
    const spool = DiskSpool.open(options());
    for (let i = 1; i <= n; i++) await spool.append([req(i)]);
    return spool;
  }

  it('during an outage one record per attempt; once the collector is back, the backlog merged into calls of up to batchBytes', async () => {
    let down = true;
    const sender = new FakeSender([], (parts) => (down ? refuse(GrpcStatus.UNAVAILABLE)(parts) : accept(parts)));
    const exporter = new SpoolingExporter(await spoolHolding(12), sender, new BridgeMetrics(), capturingLog().log, { ...FAST, batchBytes: 5 * BODY });
    await until(() => sender.calls.length >= 3, 'failed attempts');
    down = false;
    const failed = sender.calls.length;
    await until(() => sender.accepted.length === 12, 'the backlog');
    expect(sender.calls[0]!.parts).toEqual([1, 2, 3, 4, 5]);
    expect(sender.calls.slice(1, failed).every((c) => c.parts.length === 1)).toBe(true);
    expect(sender.calls.slice(failed).map((c) => c.parts)).toEqual([[1], [2, 3, 4, 5, 6], [7, 8, 9, 10, 11], [12]]);
    await exporter.close();
  });

  it('a merged call refused as invalid: its records go one at a time, only the refused one is dead-lettered, nothing waits on a backoff', async () => {
    const sender = new FakeSender([], (parts) => (parts.includes(3) ? refuse(GrpcStatus.INVALID_ARGUMENT)(parts) : accept(parts)));
    const metrics = new BridgeMetrics();
    const exporter = new SpoolingExporter(await spoolHolding(6), sender, metrics, capturingLog().log, { batchBytes: 1_000_000, maxBackoffMs: 60_000 });
    await until(() => metrics.spoolBytes.get() === 0, 'every record');
    expect(sender.calls.map((c) => c.parts)).toEqual([[1, 2, 3, 4, 5, 6], [1], [2], [3], [4], [5], [6]]);
    expect(sender.accepted).toEqual([1, 2, 4, 5, 6]);
    expect(metrics.spoolDeadLetters.get({ signal: 'logs' })).toBe(3);
    expect(metrics.spoolRetries.get({ signal: 'logs', reason: 'INVALID_ARGUMENT' })).toBe(0);
    await exporter.close();
  });

  it('acknowledges appends while the collector never answers: the intake waits only for the disk', async () => {
    const sender = new FakeSender([], () => new Promise<number>(() => undefined));
    const exporter = new SpoolingExporter(DiskSpool.open(options()), sender, new BridgeMetrics(), capturingLog().log, FAST);
    await exportEach(exporter, 1, 20);
    expect(sender.calls).toHaveLength(1);
    await exporter.close();
  });
});
