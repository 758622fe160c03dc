/**
 * Batching toward the collector: requests of one signal handed over in the same event-loop turn
 * (intake requests that arrived together) go out as one export. Each export call costs about the
 * same fixed CPU in the gRPC client and in the collector whatever its size, so for senders that
 * post small batches that fixed cost dominated. A lone request waits only for the end of the
 * current turn (setImmediate).
 *
 * Requests are merged as bytes: an Export*ServiceRequest holds one repeated field, so two encoded
 * requests concatenated are the request holding the resources of both (protobuf merges repeated
 * fields by appending).
 *
 * Every caller still resolves only once the shared export has been accepted, so a 2xx still means
 * the data is safe. When the shared export is refused for good (data the collector calls
 * invalid), one caller's data must not cost the others theirs: each caller's requests are then
 * delivered on their own, so only the culprit gets the refusal.
 */
import { ExportRefusedError } from '../errors';
import { own } from '../owned-buffers';
import type { EncodedExport } from '../otlp/encode';
import type { Signal } from '../otlp/model';
import type { BridgeMetrics } from '../observability/metrics';
import { freeBodies, type ExportOutcome, type Exporter } from './exporter';

interface Waiting {
  requests: EncodedExport[];
  resolve(outcome: ExportOutcome): void;
  reject(err: unknown): void;
}

/**
 * The requests of one signal packed into as few bodies of at most `maxBytes` as their order
 * allows; a request is never split, so one already at the limit goes out alone.
 *
 * A merged request's parts are re-pointed at their bytes inside the merged body (the same bytes,
 * still a complete request each, as the fallback to one export per sender needs): otherwise every
 * byte was held twice until the shared export returned, and such Buffers, when they outlive two
 * young-generation GCs, wait for a full GC to be freed
 * (docs/decisions/005-early-buffer-freeing.md).
 */
export function packRequests(signal: Signal, requests: readonly EncodedExport[], maxBytes: number): EncodedExport[] {
  const packed: EncodedExport[] = [];
  let run: EncodedExport[] = [];
  let runBytes = 0;
  const close = (): void => {
    if (run.length === 1) packed.push(run[0] as EncodedExport);
    else if (run.length > 1) packed.push({ signal, body: mergeBodies(run, runBytes), records: run.reduce((n, r) => n + r.records, 0) });
    run = [];
    runBytes = 0;
  };
  for (const request of requests) {
    if (runBytes + request.body.length > maxBytes) close();
    run.push(request);
    runBytes += request.body.length;
  }
  close();
  return packed;
}

/** One body holding the run's bodies back to back; each request's body becomes its view into it. */
function mergeBodies(run: EncodedExport[], bytes: number): Buffer {
  const merged = own(
    Buffer.concat(
      run.map((r) => r.body),
      bytes,
    ),
  );
  let at = 0;
  for (const request of run) {
    const length = request.body.length;
    request.body = merged.subarray(at, at + length);
    at += length;
  }
  return merged;
}

/** A permanent refusal: retrying the same bytes cannot help, but another grouping might. */
const isPermanent = (err: unknown): boolean => err instanceof ExportRefusedError && err.permanent;

export class CoalescingExporter implements Exporter {
  private readonly waiting = new Map<Signal, Waiting[]>();
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    private readonly inner: Exporter,
    private readonly maxBytes: number,
    private readonly metrics: BridgeMetrics,
  ) {}

  export(requests: EncodedExport[]): Promise<ExportOutcome> {
    const signal = requests[0]?.signal;
    if (signal === undefined) return Promise.resolve({ accepted: 0, rejected: 0 });
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { requests, resolve, reject };
      const queue = this.waiting.get(signal);
      if (queue) queue.push(waiting);
      else this.waiting.set(signal, [waiting]);
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = undefined;
    for (const [signal, queue] of this.waiting) this.send(signal, queue);
    this.waiting.clear();
  }

  private send(signal: Signal, queue: Waiting[]): void {
    if (queue.length === 1) {
      const [only] = queue as [Waiting];
      this.inner.export(only.requests).then((outcome) => {
        freeBodies(only.requests);
        only.resolve(outcome);
      }, only.reject);
      return;
    }
    this.metrics.coalescedBatches.inc({ signal }, queue.length);
    const shared = packRequests(
      signal,
      queue.flatMap((w) => w.requests),
      this.maxBytes,
    );
    this.inner.export(shared).then(
      (outcome) => {
        // failed exports keep their bodies for the fallback below
        freeBodies(shared);
        for (const w of queue) w.resolve(outcome);
      },
      (err: unknown) => {
        if (!isPermanent(err)) {
          for (const w of queue) w.reject(err);
          return;
        }
        for (const w of queue) this.inner.export(w.requests).then(w.resolve, w.reject);
      },
    );
  }

  /** What is waiting for the end of the turn goes out now, under the same grace as the rest. */
  async close(graceMs?: number): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.flush();
    await this.inner.close(graceMs);
  }
}
