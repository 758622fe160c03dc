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

const req = (n: number): EncodedExport => ({ signal: 'logs', records: n, body: Buffer.alloc(50, n) });
const options = (overrides: Partial<SpoolOptions> = {}): SpoolOptions => ({ dir: mkdtempSync(join(tmpdir(), 'spool-exporter-')), maxBytes: 1_000_000, segmentBytes: 1_000_000, fsync: 'always', ...overrides });
const FAST = { maxBackoffMs: 5 };

const noSpace = (): never => {
  throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' });
};
/** Real writes and renames, no fsync (these tests fake other faults). */
const NO_SYNC_IO: SpoolIo = { writeSync: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length), fsyncSync: () => undefined, fsync: (_fd, callback) => callback(null), ftruncateSync, renameSync };

type Outcome = () => Promise<number>;
const accept: Outcome = () => Promise.resolve(0);
const refuse =
  (code: GrpcStatus): Outcome =>
  () =>
    Promise.reject(new ExportRefusedError(code, statusName(code), 'simulated', isPermanent(code)));

/** A collector stand-in: the n-th call gets the n-th scripted outcome, every later call `rest`. */
class FakeSender implements SpoolSender {
  readonly calls: { records: number; giveUpAt: number; at: number }[] = [];
  readonly accepted: number[] = [];
  constructor(
    private readonly script: Outcome[],
    private readonly rest: Outcome = accept,
  ) {}

  async send(request: EncodedExport, giveUpAt: number): Promise<number> {
    this.calls.push({ records: request.records, giveUpAt, at: Date.now() });
    const rejected = await (this.script[this.calls.length - 1] ?? this.rest)();
    this.accepted.push(request.records);
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
    expect(sender.calls.slice(0, 7).map((c) => c.records)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    const retries = (reason: string): number => metrics.spoolRetries.get({ signal: 'logs', reason });
    expect([retries('UNAUTHENTICATED'), retries('UNIMPLEMENTED'), retries('INTERNAL'), retries('DEADLINE_EXCEEDED'), retries('error')]).toEqual([2, 1, 1, 1, 1]);
    expect(metrics.recordsRejected.get({ signal: 'logs' })).toBe(0);
    expect(sender.calls.every((c) => Number.isFinite(c.giveUpAt) && c.giveUpAt > c.at)).toBe(true);
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
    const sender = new FakeSender([accept, refuse(GrpcStatus.INVALID_ARGUMENT)]);
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
