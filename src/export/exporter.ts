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

export interface ExportOutcome {
  accepted: number;
  rejected: number;
}
