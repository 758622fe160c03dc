/**
 * Batching toward the collector: requests of one signal handed over in the same event-loop turn
 * (intake requests that arrived together) go out as one export. Each export call costs about the
 * same fixed CPU in the gRPC client and in the collector whatever its size, so for senders that
 * post small batches that fixed cost dominated. A lone request waits only for the end of the
 * current turn (setImmediate). Under load, a short window (`windowMs`) lets the requests of a few
 * turns share an export too: see the constructor.
 *
 * Requests are merged as bytes, the records of equal resources and scopes under one of each
 * (merge-resources.ts).
 *
 * Every caller still resolves only once the shared export has been accepted, so a 2xx still means
 * the data is safe. When the shared export is refused for good (data the collector calls
 * invalid), one caller's data must not cost the others theirs: each caller's requests are then
 * delivered on their own, so only the culprit gets the refusal.
 */
import { ExportRefusedError } from '../errors';
import { own } from '../owned-buffers';
import type { EncodedExport } from '../otlp/encode';
import { mergeByResource } from '../otlp/merge-resources';
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
 * A run of requests becomes one request with the records of equal resources and scopes under one
 * of each (merge-resources.ts), so what they share is decoded and stored once. Each request keeps
 * its own bytes for the fallback to one export per sender. Requests that cannot be merged so go
 * out concatenated (protobuf appends repeated fields), each re-pointed at its bytes inside the
 * concatenation: otherwise every byte was held twice until the shared export returned, and such
 * Buffers, when they outlive two young-generation GCs, wait for a full GC to be freed
 * (docs/decisions/005-early-buffer-freeing.md).
 */
export function packRequests(signal: Signal, requests: readonly EncodedExport[], maxBytes: number): EncodedExport[] {
  const packed: EncodedExport[] = [];
  let run: EncodedExport[] = [];
  let runBytes = 0;
  const close = (): void => {
    if (run.length === 1) packed.push(run[0] as EncodedExport);
    else if (run.length > 1) packed.push({ signal, body: mergeRun(run, runBytes), records: run.reduce((n, r) => n + r.records, 0) });
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

/** The run as one body: merged by resource, or else concatenated with each request re-pointed into it. */
function mergeRun(run: EncodedExport[], bytes: number): Buffer {
  const merged = mergeByResource(run.map((r) => r.body));
  if (merged) return own(merged);
  const whole = own(
    Buffer.concat(
      run.map((r) => r.body),
      bytes,
    ),
  );
  let at = 0;
  for (const request of run) {
    const length = request.body.length;
    request.body = whole.subarray(at, at + length);
    at += length;
  }
  return whole;
}

/** A permanent refusal: retrying the same bytes cannot help, but another grouping might. */
const isPermanent = (err: unknown): boolean => err instanceof ExportRefusedError && err.permanent;

/** Per signal: requests not yet sent, and when the last export of it left. */
interface SignalQueue {
  waiting: Waiting[];
  waitingBytes: number;
  lastSentAt: number;
  /** set while requests are held for the window */
  deadline: NodeJS.Timeout | undefined;
}

const bytesOf = (requests: readonly EncodedExport[]): number => requests.reduce((n, r) => n + r.body.length, 0);

export class CoalescingExporter implements Exporter {
  private readonly queues = new Map<Signal, SignalQueue>();
  private scheduled: NodeJS.Immediate | undefined;

  /**
   * `windowMs`: while a signal is busy (its last export left less than `windowMs` ago), its
   * requests are held until `windowMs` after that export and go out together; a request of an idle
   * signal leaves at the end of its turn. 0 sends each turn's requests at once. See
   * docs/decisions/008-export-window.md.
   */
  constructor(
    private readonly inner: Exporter,
    private readonly maxBytes: number,
    private readonly metrics: BridgeMetrics,
    private readonly windowMs = 0,
    private readonly now: () => number = () => performance.now(),
  ) {}

  export(requests: EncodedExport[]): Promise<ExportOutcome> {
    const signal = requests[0]?.signal;
    if (signal === undefined) return Promise.resolve({ accepted: 0, rejected: 0 });
    return new Promise((resolve, reject) => {
      const queue = this.queueOf(signal);
      queue.waiting.push({ requests, resolve, reject });
      queue.waitingBytes += bytesOf(requests);
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  private queueOf(signal: Signal): SignalQueue {
    let queue = this.queues.get(signal);
    if (!queue) this.queues.set(signal, (queue = { waiting: [], waitingBytes: 0, lastSentAt: -Infinity, deadline: undefined }));
    return queue;
  }

  /**
   * The end of the turn: each signal's requests go out now when the signal is idle or they fill an
   * export; otherwise they wait for the window that its last export opened to close.
   */
  private flush(): void {
    this.scheduled = undefined;
    for (const [signal, queue] of this.queues) {
      if (queue.waiting.length === 0) continue;
      const wait = queue.lastSentAt + this.windowMs - this.now();
      if (wait <= 0 || queue.waitingBytes >= this.maxBytes) this.release(signal, queue);
      else queue.deadline ??= setTimeout(() => this.release(signal, queue), wait);
    }
  }

  private release(signal: Signal, queue: SignalQueue): void {
    clearTimeout(queue.deadline);
    queue.deadline = undefined;
    const waiting = queue.waiting;
    if (waiting.length === 0) return;
    queue.waiting = [];
    queue.waitingBytes = 0;
    queue.lastSentAt = this.now();
    void this.send(signal, waiting);
  }

  /** Resolves once every caller in `queue` has its answer. */
  private send(signal: Signal, queue: Waiting[]): Promise<void> {
    if (queue.length === 1) {
      const [only] = queue as [Waiting];
      return this.inner.export(only.requests).then((outcome) => {
        freeBodies(only.requests);
        only.resolve(outcome);
      }, only.reject);
    }
    this.metrics.coalescedBatches.inc({ signal }, queue.length);
    const shared = packRequests(
      signal,
      queue.flatMap((w) => w.requests),
      this.maxBytes,
    );
    return this.inner.export(shared).then(
      (outcome) => {
        // failed exports keep their bodies for the fallback below
        freeBodies(shared);
        for (const w of queue) freeBodies(w.requests);
        for (const w of queue) w.resolve(outcome);
      },
      async (err: unknown) => {
        if (!isPermanent(err)) {
          for (const w of queue) w.reject(err);
          return;
        }
        await Promise.all(queue.map((w) => this.inner.export(w.requests).then(w.resolve, w.reject)));
      },
    );
  }

  /** What is waiting (for the end of the turn or an export in flight) goes out now, under the same grace as the rest. */
  async close(graceMs?: number): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    for (const [signal, queue] of this.queues) this.release(signal, queue);
    await this.inner.close(graceMs);
  }
}
