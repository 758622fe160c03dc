/**
 * With a spool, a request is acknowledged once it is durably on disk; a single drainer sends the
 * spooled requests to the collector in order, retrying until the collector accepts each one, and
 * only then moves the cursor past it. Without a spool the sidecar acknowledges synchronously
 * (OtlpGrpcExporter.export).
 */
import type { Logger } from '../observability/log';
import type { BridgeMetrics } from '../observability/metrics';
import type { EncodedExport } from '../otlp/encode';
import { HttpError } from '../server/errors';
import type { ExportOutcome, Exporter } from './exporter';
import type { OtlpGrpcExporter } from './otlp-grpc';
import type { DiskSpool } from './spool';

export class SpoolingExporter implements Exporter {
  private readonly abort = new AbortController();
  private readonly drained: Promise<void>;

  constructor(
    private readonly spool: DiskSpool,
    private readonly sender: OtlpGrpcExporter,
    private readonly metrics: BridgeMetrics,
    private readonly log: Logger,
  ) {
    this.metrics.spoolBytes.set({}, spool.bytes);
    if (spool.bytes > 0) log.info('resuming delivery of spooled data', { bytes: spool.bytes });
    this.drained = this.drain();
  }

  async export(requests: EncodedExport[]): Promise<ExportOutcome> {
    if (this.abort.signal.aborted) throw new HttpError(503, 'shutting down; retry later', { 'Retry-After': '5' });
    await this.spool.append(requests);
    this.metrics.spoolBytes.set({}, this.spool.bytes);
    return { accepted: requests.reduce((n, r) => n + r.records, 0), rejected: 0 };
  }

  private async drain(): Promise<void> {
    const abort = this.abort.signal;
    while (!abort.aborted) {
      const record = this.nextRecord();
      if (!record) {
        await this.spool.waitForData(abort);
        continue;
      }
      try {
        await this.sender.send(record.request, Infinity, abort);
      } catch (err) {
        if (abort.aborted) return; // stays spooled; resumed on the next start
        // only a permanent refusal gets here: it can never be delivered, so it must not block the rest
        this.metrics.recordsRejected.inc({ signal: record.request.signal }, record.request.records);
        this.log.error('collector refused spooled data permanently; dropped', { signal: record.request.signal, records: record.request.records, error: (err as Error).message });
      }
      this.spool.ack(record);
      this.metrics.spoolBytes.set({}, this.spool.bytes);
    }
  }

  private nextRecord(): ReturnType<DiskSpool['next']> {
    try {
      return this.spool.next();
    } catch (err) {
      const lost = this.spool.skipSegment();
      this.log.error('spool segment unreadable; skipped the rest of it', { error: (err as Error).message, bytes: lost });
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.drained;
    this.spool.close();
    await this.sender.close();
  }
}
