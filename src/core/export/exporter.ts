import { freeNow } from '../owned-buffers';
import type { EncodedExport } from '../otlp/encode';

/**
 * Where encoded export requests go: the collector (OtlpGrpcExporter), the durable spool in front
 * of it (SpoolingExporter), through CoalescingExporter. `export` resolves only once the data is
 * safe (that is what lets a route answer 2xx); it rejects with a domain error (src/core/errors.ts):
 * unavailable or a retryable refusal for anything worth retrying, a permanent refusal for data that
 * can never be taken.
 */
export interface Exporter {
  export(requests: EncodedExport[]): Promise<ExportOutcome>;
  /**
   * Exports in flight get up to `graceMs` (each exporter has a default) to finish; those still
   * waiting then fail with 503, and later ones at once.
   */
  close(graceMs?: number): Promise<void>;
}

/** Records of the export call the batch went out in, which batches coalesced with it share. */
export interface ExportOutcome {
  accepted: number;
  rejected: number;
}

/**
 * Once the collector (or the spool, which copies them) has a request's bytes, nothing reads them
 * again: routes only wait for the outcome.
 */
export const freeBodies = (requests: readonly EncodedExport[]): void =>
  requests.forEach((r) => {
    freeNow(r.body);
  });
