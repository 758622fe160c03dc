/**
 * What the primary and its workers say to each other over the cluster's IPC channel (advanced
 * serialization: bigints and byte arrays cross as they are). Each side asks the other with a
 * numbered request and gets one reply; Channel pairs them up, bounded in time, so that a side that
 * died or hangs costs its peer a timeout, never a hang.
 */
import type { KeyValue } from '../../core/otlp/model';
import type { FamilySnapshot } from '../../core/observability/metrics';
import type { StreamState } from '../../signals/metrics/start-times';

/** What a request taught the caches that the other workers must see. */
export interface Lessons {
  /** low, high, low, high, …: 128-bit trace ids' halves (TraceIdCache) */
  traceIds: bigint[];
  /** host → its attributes from agent host metadata (HostMetadataTable) */
  hosts: [string, readonly KeyValue[]][];
  /** env, integration service, base service (ServiceIdentities) */
  services: [string, string, string][];
}

/** What every worker is told: the part of Lessons that each keeps whole (trace ids are asked for instead). */
export type Broadcast = Pick<Lessons, 'hosts' | 'services'>;

/** `ok` once its intake listens */
export type WorkerStatus = 'starting' | 'ok' | 'stopping';

/** Worker → primary. */
export type WorkerRequest =
  /** the worker starts: which one it is, and what the others already learned */
  | { type: 'hello' }
  | { type: 'ready'; listen: string }
  /** the sender's 2xx waits for the reply */
  | { type: 'publish'; lessons: Lessons }
  /** what a request missed: 64-bit trace ids to widen and metric streams (stored keys) this worker does not carry */
  | { type: 'lookup'; traceIds: bigint[]; streams: string[] };

/** Primary → worker. */
export type PrimaryRequest =
  | { type: 'adopt'; lessons: Broadcast }
  /** hand these metric streams over: another worker carries them on */
  | { type: 'release'; streams: string[] }
  | { type: 'stats' }
  | { type: 'stop' };

export interface Hello {
  index: number;
  workers: number;
  known: Broadcast;
}

export interface Found {
  /** by position in the lookup; undefined where no worker announced the high half */
  highs: (bigint | undefined)[];
  /** by position; undefined where the stream is new to every worker */
  streams: (StreamState | undefined)[];
}

export interface Stats {
  status: WorkerStatus;
  metrics: FamilySnapshot[];
}

/** The reply each request gets. */
export type ReplyTo<R extends { type: string }> = R extends { type: 'hello' } ? Hello : R extends { type: 'lookup' } ? Found : R extends { type: 'release' } ? (StreamState | undefined)[] : R extends { type: 'stats' } ? Stats : null;

type Envelope = { request: number; body: { type: string } } | { reply: number; body?: unknown; error?: string };

/** One side of the IPC channel between the primary and one worker. */
export class Channel<Out extends { type: string }, In extends { type: string }> {
  private next = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void; timer: NodeJS.Timeout }>();

  constructor(
    private readonly send: (message: Envelope) => void,
    private readonly handle: (request: In) => Promise<unknown> | unknown,
  ) {}

  request<R extends Out>(body: R, timeoutMs: number): Promise<ReplyTo<R>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no reply to "${body.type}" within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      try {
        this.send({ request: id, body });
      } catch (err) {
        this.settle(id, undefined, (err as Error).message);
      }
    });
  }

  /** A message from the other side: a request to answer, or the reply to one of ours. */
  receive(message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const envelope = message as Envelope;
    if ('reply' in envelope) this.settle(envelope.reply, envelope.body, envelope.error);
    else if ('request' in envelope) void this.answer(envelope.request, envelope.body as In);
  }

  /** The other side is gone: nothing it was asked will be answered. */
  close(reason: string): void {
    for (const id of [...this.pending.keys()]) this.settle(id, undefined, reason);
  }

  private async answer(id: number, body: In): Promise<void> {
    let reply: Envelope;
    try {
      reply = { reply: id, body: (await this.handle(body)) ?? null };
    } catch (err) {
      reply = { reply: id, error: (err as Error).message };
    }
    try {
      this.send(reply);
    } catch {
      // the other side is gone: it waits for nothing any more
    }
  }

  private settle(id: number, body: unknown, error: string | undefined): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    if (error !== undefined) waiting.reject(new Error(error));
    else waiting.resolve(body);
  }
}

export type WorkerChannel = Channel<WorkerRequest, PrimaryRequest>;
export type PrimaryChannel = Channel<PrimaryRequest, WorkerRequest>;
