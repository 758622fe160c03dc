import { encodeExportRequests, type EncodedExport } from '../otlp/encode';
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

/**
 * Encodes `batch` at once and hands only the bytes to `deliver`, so the translated model is not
 * kept alive while the collector (or the disk) answers — an async function would keep its `batch`
 * parameter alive across every await. A failure to encode becomes a rejection, like any other.
 */
export function encodedThen<T>(batch: SignalBatch, maxBytes: number, deliver: (requests: EncodedExport[]) => Promise<T>): Promise<T> {
  let requests: EncodedExport[];
  try {
    requests = encodeExportRequests(batch, maxBytes);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  return deliver(requests);
}
