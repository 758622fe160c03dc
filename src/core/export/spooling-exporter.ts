/**
 * With a spool, a request is acknowledged once it is durably on disk; a single drainer sends the
 * spooled requests to the collector in order and moves the cursor past a record only when the
 * collector accepted it, or refused it as invalid (INVALID_ARGUMENT: then it is kept in the
 * dead-letter folder). Every other failure — any other gRPC code, a deadline, a connection that
 * fails — is retried with a capped exponential backoff, forever: the sender was told the data is
 * safe, so the spool is its only copy. Without a spool the sidecar acknowledges synchronously
 * (OtlpGrpcExporter.export).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ExportRefusedError, ShuttingDownError } from '../errors';
import { rateLimited, type Logger } from '../observability/log';
import type { BridgeMetrics } from '../observability/metrics';
import type { EncodedExport } from '../otlp/encode';
import type { ExportOutcome, Exporter } from './exporter';
import type { OtlpGrpcExporter } from './otlp-grpc';
import { backoffDelays } from './retry-policy';
import type { DiskSpool, SpoolEvent, SpooledRecord } from './spool';

export type SpoolSender = Pick<OtlpGrpcExporter, 'send' | 'close'>;

export interface DeliveryTiming {
  /**
   * How long one delivery attempt may take, the sender's own quick retries of transient codes
   * included; it also caps the call's deadline, so it should be at least --otlp-timeout-ms (whose
   * default it has).
   */
  attemptMs: number;
  /** ceiling of the backoff between attempts */
  maxBackoffMs: number;
  /** at most one retry log line per message this often */
  logIntervalMs: number;
}

const DEFAULT_TIMING: DeliveryTiming = { attemptMs: 10_000, maxBackoffMs: 30_000, logIntervalMs: 10_000 };

/** Why an attempt did not get a record off the spool. */
interface Failure {
  signal: string;
  reason: string;
  error: string;
  records: number;
}

/** `work`'s result, or undefined as soon as `abort` fires: close() must not wait for a collector that never answers. */
function untilAborted<T>(work: Promise<T>, abort: AbortSignal): Promise<T | undefined> {
  if (abort.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    abort.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        abort.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        abort.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export class SpoolingExporter implements Exporter {
  private readonly abort = new AbortController();
  private readonly timing: DeliveryTiming;
  private readonly quietLog: Logger;
  private readonly drained: Promise<void>;

  constructor(
    private readonly spool: DiskSpool,
    private readonly sender: SpoolSender,
    private readonly metrics: BridgeMetrics,
    private readonly log: Logger,
    timing: Partial<DeliveryTiming> = {},
  ) {
    this.timing = { ...DEFAULT_TIMING, ...timing };
    this.quietLog = rateLimited(log, this.timing.logIntervalMs);
    spool.onEvent((event) => this.onSpoolEvent(event));
    this.updateGauges();
    if (spool.bytes > 0) log.info('resuming delivery of spooled data', { bytes: spool.bytes });
    this.drained = this.drain();
  }

  async export(requests: EncodedExport[]): Promise<ExportOutcome> {
    if (this.abort.signal.aborted) throw new ShuttingDownError();
    try {
      await this.spool.append(requests);
    } finally {
      this.updateGauges();
    }
    return { accepted: requests.reduce((n, r) => n + r.records, 0), rejected: 0 };
  }

  private updateGauges(): void {
    this.metrics.spoolBytes.set({}, this.spool.bytes);
    this.metrics.spoolDiskBytes.set({}, this.spool.diskBytes);
  }

  private onSpoolEvent(event: SpoolEvent): void {
    switch (event.type) {
      case 'damaged':
        this.metrics.spoolDamagedBytes.inc({}, event.bytes);
        this.log.error('spool damaged: skipped bytes that hold no whole record; the records in them are lost', { segment: event.segment, offset: event.offset, bytes: event.bytes, where: event.where });
        return;
      case 'cursor-reset':
        this.log.warn('spool cursor unusable; delivering from the oldest segment again (duplicates, no loss)', { problem: event.problem, start: event.start });
        return;
      case 'write-failed':
        this.metrics.spoolWriteErrors.inc({ operation: event.operation });
        // one rate limit per operation: failing cursor writes must not hide failing appends
        this.quietLog.warn(`spool ${event.operation} failed`, { operation: event.operation, error: event.error.message });
        return;
      case 'replayed':
        this.log.info('replayed a file into the spool', { file: event.file, records: event.records });
    }
  }

  private async drain(): Promise<void> {
    const abort = this.abort.signal;
    let delays = backoffDelays(100, this.timing.maxBackoffMs);
    while (!abort.aborted) {
      const failure = await this.step(abort);
      if (abort.aborted) return;
      if (!failure) {
        delays = backoffDelays(100, this.timing.maxBackoffMs);
        continue;
      }
      const delay = delays.next().value;
      this.metrics.spoolRetries.inc({ signal: failure.signal, reason: failure.reason });
      this.quietLog.warn('spooled data not delivered; retrying', { ...failure, retryInMs: delay });
      await sleep(delay, undefined, { signal: abort }).catch(() => undefined);
    }
  }

  /** Delivers the oldest spooled record, or waits for one. */
  private async step(abort: AbortSignal): Promise<Failure | undefined> {
    let record: SpooledRecord | undefined;
    try {
      record = this.spool.next();
    } catch (err) {
      return { signal: 'unknown', reason: 'spool_read', error: (err as Error).message, records: 0 };
    } finally {
      this.updateGauges();
    }
    if (!record) {
      await this.spool.waitForData(abort);
      return undefined;
    }
    return this.deliver(record, abort);
  }

  private async deliver(record: SpooledRecord, abort: AbortSignal): Promise<Failure | undefined> {
    const { signal, records } = record.request;
    try {
      await untilAborted(this.sender.send(record.request, Date.now() + this.timing.attemptMs, abort), abort);
    } catch (err) {
      if (abort.aborted) return undefined;
      const refusal = err instanceof ExportRefusedError ? err : undefined;
      if (refusal?.permanent) return this.deadLetter(record, refusal.message);
      return { signal, reason: refusal?.codeName ?? 'error', error: (err as Error).message, records };
    }
    // aborted: the collector may have it or not; it stays spooled and is sent again on the next start
    if (abort.aborted) return undefined;
    this.spool.ack(record);
    this.updateGauges();
    return undefined;
  }

  /** The collector says the data itself is invalid: resending cannot help, so it waits for an operator in dead-letter/. */
  private deadLetter(record: SpooledRecord, error: string): Failure | undefined {
    const { signal, records } = record.request;
    let file: string;
    try {
      file = this.spool.deadLetter(record);
    } catch (err) {
      return { signal, reason: 'dead_letter_write', error: (err as Error).message, records };
    }
    this.spool.ack(record);
    this.updateGauges();
    this.metrics.recordsRejected.inc({ signal }, records);
    this.metrics.spoolDeadLetters.inc({ signal }, records);
    this.quietLog.error('collector refused spooled data as invalid; kept it in the dead-letter folder', { signal, records, file, error });
    return undefined;
  }

  /** Returns once the drainer stopped, without waiting for a call in flight: its record stays spooled. */
  async close(): Promise<void> {
    this.abort.abort();
    await this.drained;
    this.spool.close();
    await this.sender.close();
  }
}
