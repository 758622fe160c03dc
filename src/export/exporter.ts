import type { EncodedExport } from '../otlp/encode';
import type { SignalBatch } from '../otlp/model';

/**
 * Where translated batches go. `export` resolves only once the collector has accepted the data
 * (that is what lets a route answer 2xx); it rejects with an HttpError whose status is the reply
 * the sender should get: 503 for anything worth retrying, 4xx for data that can never be taken.
 */
export interface Exporter {
  export(batch: SignalBatch): Promise<ExportOutcome>;
  close(): Promise<void>;
}

/** Records of the export call the batch went out in, which batches coalesced with it share. */
export interface ExportOutcome {
  accepted: number;
  rejected: number;
}

/**
 * Where encoded requests go: the collector (OtlpGrpcExporter), or the durable spool in front of
 * it (SpoolingExporter). Resolves, like Exporter.export, only once the data is safe.
 */
export interface Delivery {
  deliver(requests: EncodedExport[]): Promise<ExportOutcome>;
  close(): Promise<void>;
}
