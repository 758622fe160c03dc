/**
 * With a spool, a request is acknowledged once it is durably on disk, each request as records of
 * its own, so that damage on disk costs only the request it hit; the intake never waits on the
 * collector. A single drainer sends the spooled records to the collector in order, those of one
 * signal that follow each other merged into one call up to --export-max-bytes, and moves the
 * cursor past them only when the collector accepted them, or refused one as invalid
 * (INVALID_ARGUMENT: it is kept in the dead-letter folder). Every other failure — any other gRPC
 * code, a deadline, a connection that fails — is retried forever (the sender was told the data is
 * safe, so the spool is its only copy), after a backoff capped at maxBackoffMs: that cap is how
 * long a collector that recovered can wait for the drainer to notice. Each attempt is one call
 * with the whole --otlp-timeout-ms deadline. Without a spool the sidecar acknowledges
 * synchronously (OtlpGrpcExporter.export).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ExportRefusedError, ShuttingDownError } from '../errors';
import { rateLimited, type Logger } from '../observability/log';
import type { BridgeMetrics } from '../observability/metrics';
import type { EncodedExport } from '../otlp/encode';
import { freeBodies, type ExportOutcome, type Exporter } from './exporter';
import type { OtlpGrpcExporter } from './otlp-grpc';
import { backoffDelays } from './retry-policy';
import type { DiskSpool, SpoolEvent, SpooledRecord } from './spool';

export type SpoolSender = Pick<OtlpGrpcExporter, 'sendOnce' | 'close'>;

export interface DeliveryOptions {
  /** bodies of consecutive spooled records of one signal go out in one call up to this (--export-max-bytes) */
  batchBytes: number;
  /**
   * Ceiling of the backoff between attempts. With the collector back, the drainer tries again
   * within it, then sends a backlog of B bytes in B / batchBytes calls: issue 33 asks for
   * everything spooled delivered within 10 s of an outage's end.
   */
  maxBackoffMs: number;
  /** at most one retry log line per message this often */
  logIntervalMs: number;
}

const DEFAULT_OPTIONS: Omit<DeliveryOptions, 'batchBytes'> = { maxBackoffMs: 2_000, logIntervalMs: 10_000 };
const FIRST_BACKOFF_MS = 100;

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
  private readonly options: DeliveryOptions;
  private readonly quietLog: Logger;
  private readonly drained: Promise<void>;
  /**
   * Records to send one at a time before merging again. After a failure the next attempt carries
   * one record (it only has to find out whether the collector takes data again); after a merged
   * call refused as invalid, each of its records goes alone, so only the one refused is set aside.
   */
  private singlesLeft = 0;

  constructor(
    private readonly spool: DiskSpool,
    private readonly sender: SpoolSender,
    private readonly metrics: BridgeMetrics,
    private readonly log: Logger,
    options: Pick<DeliveryOptions, 'batchBytes'> & Partial<DeliveryOptions>,
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this.quietLog = rateLimited(log, this.options.logIntervalMs);
    spool.onEvent((event) => this.onSpoolEvent(event));
    this.updateGauges();
    if (spool.bytes > 0) log.info('resuming delivery of spooled data', { bytes: spool.bytes });
    this.drained = this.drain();
  }

  /** Resolves once `requests` are on disk (the spool copies them, so their bodies are freed). */
  async export(requests: EncodedExport[]): Promise<ExportOutcome> {
    if (this.abort.signal.aborted) throw new ShuttingDownError();
    try {
      await this.spool.append(requests);
    } finally {
      freeBodies(requests);
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
    const fresh = (): Generator<number, never> => backoffDelays(FIRST_BACKOFF_MS, this.options.maxBackoffMs);
    let delays = fresh();
    while (!abort.aborted) {
      const failure = await this.step(abort);
      if (abort.aborted) return;
      if (!failure) {
        delays = fresh();
        continue;
      }
      const delay = delays.next().value;
      this.metrics.spoolRetries.inc({ signal: failure.signal, reason: failure.reason });
      this.quietLog.warn('spooled data not delivered; retrying', { ...failure, retryInMs: delay });
      await sleep(delay, undefined, { signal: abort }).catch(() => undefined);
    }
  }

  /** Delivers the oldest spooled records, or waits for some. */
  private async step(abort: AbortSignal): Promise<Failure | undefined> {
    let batch: SpooledRecord | undefined;
    try {
      batch = this.spool.next(this.singlesLeft > 0 ? 0 : this.options.batchBytes);
    } catch (err) {
      return { signal: 'unknown', reason: 'spool_read', error: (err as Error).message, records: 0 };
    } finally {
      this.updateGauges();
    }
    if (!batch) {
      await this.spool.waitForData(abort);
      return undefined;
    }
    return this.deliver(batch, abort);
  }

  private async deliver(batch: SpooledRecord, abort: AbortSignal): Promise<Failure | undefined> {
    const { signal, records } = batch.request;
    try {
      await untilAborted(this.sender.sendOnce(batch.request, abort), abort);
    } catch (err) {
      if (abort.aborted) return undefined;
      const refusal = err instanceof ExportRefusedError ? err : undefined;
      if (refusal?.permanent && batch.parts > 1) {
        // the collector is up and refuses something in there: find it at once, no backoff
        this.singlesLeft = batch.parts;
        return undefined;
      }
      if (refusal?.permanent) return this.deadLetter(batch, refusal.message);
      this.singlesLeft = Math.max(this.singlesLeft, 1);
      return { signal, reason: refusal?.codeName ?? 'error', error: (err as Error).message, records };
    }
    // aborted: the collector may have it or not; it stays spooled and is sent again on the next start
    if (abort.aborted) return undefined;
    this.passed(batch);
    return undefined;
  }

  /** The drainer moves past `batch` for good. */
  private passed(batch: SpooledRecord): void {
    this.spool.ack(batch);
    this.singlesLeft = Math.max(0, this.singlesLeft - batch.parts);
    this.updateGauges();
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
    this.passed(record);
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
