/**
 * The primary's part of the caches its workers share (shared-caches.ts has the workers' part):
 * every 128-bit trace id any worker learned, which worker carries each metric stream, and the
 * host metadata and service identities to tell a worker that starts (or restarts). It owns no
 * socket: primary.ts hands it each worker's channel, and it answers their requests.
 */
import type { KeyValue } from '../../core/otlp/model';
import type { TranslatorCacheOptions } from '../../signals/caches';
import type { StreamState } from '../../signals/metrics/start-times';
import { RecencyMap } from '../../signals/shared/recency-map';
import { TraceIdCache } from '../../signals/shared/trace-id';
import type { Broadcast, Found, Hello, Lessons, PrimaryChannel, Stats, WorkerRequest } from './protocol';

/** How long the primary waits for a worker (to adopt lessons, hand streams over, report): a worker that takes longer is treated as gone for that request. */
export const WORKER_TIMEOUT_MS = 2_000;

/** Service identities kept to tell a worker that starts, as ServiceIdentities bounds its own. */
const MAX_SERVICES = 10_000;

interface Worker {
  index: number;
  channel: PrimaryChannel;
}

export class Coordinator {
  private readonly traceIds: TraceIdCache;
  /** stream (stored key) → the worker (id) that carries it; least recently claimed first */
  private readonly owners = new RecencyMap<string, number>();
  private readonly maxOwners: number;
  private readonly hosts = new Map<string, { attributes: readonly KeyValue[]; at: number }>();
  private readonly services = new Map<string, [string, string, string]>();
  private readonly workers = new Map<number, Worker>();

  constructor(
    private readonly options: TranslatorCacheOptions,
    private readonly workerCount: number,
    private readonly now: () => number = Date.now,
  ) {
    this.traceIds = new TraceIdCache(options.traceIds, now);
    // each worker may carry as many streams as one process would
    this.maxOwners = options.metricStreams.maxEntries * workerCount;
  }

  /** A worker whose channel is up; `id` is unique for the life of the primary (a restarted worker gets a new one). */
  join(id: number, index: number, channel: PrimaryChannel): void {
    this.workers.set(id, { index, channel });
  }

  /** A worker that exited: nothing it was asked will be answered, and it carries no stream any more. */
  leave(id: number): void {
    this.workers.get(id)?.channel.close('the worker exited');
    this.workers.delete(id);
  }

  /** Every worker's request, answered. */
  handle(id: number, request: WorkerRequest): Promise<unknown> | unknown {
    switch (request.type) {
      case 'hello':
        return this.hello(id);
      case 'publish':
        return this.publish(id, request.lessons);
      case 'lookup':
        return this.lookup(id, request.traceIds, request.streams);
      case 'ready':
        return null;
    }
  }

  /** Every live worker's counters and status, by worker index; a worker that does not answer is missing. */
  async stats(): Promise<Map<number, Stats>> {
    const all = new Map<number, Stats>();
    await Promise.all(
      [...this.workers.values()].map(({ index, channel }) =>
        channel.request({ type: 'stats' }, WORKER_TIMEOUT_MS).then(
          (stats) => all.set(index, stats),
          () => undefined,
        ),
      ),
    );
    return all;
  }

  private hello(id: number): Hello {
    const index = this.workers.get(id)?.index ?? 0;
    const fresh = this.now() - this.options.hosts.ttlMs;
    const hosts: Broadcast['hosts'] = [];
    for (const [host, { attributes, at }] of this.hosts) if (at > fresh) hosts.push([host, attributes]);
    return { index, workers: this.workerCount, known: { hosts, services: [...this.services.values()] } };
  }

  /** Remembers what a worker learned, and tells every other worker what each keeps whole; resolves once they have it. */
  private async publish(from: number, lessons: Lessons): Promise<null> {
    const { traceIds, hosts, services } = lessons;
    for (let i = 0; i + 1 < traceIds.length; i += 2) this.traceIds.remember(traceIds[i] as bigint, traceIds[i + 1] as bigint);
    if (hosts.length === 0 && services.length === 0) return null;
    this.keep(hosts, services);
    const others = [...this.workers.entries()].filter(([id]) => id !== from);
    // a worker that does not answer in time is restarted or gone; the others have it
    await Promise.all(others.map(([, w]) => w.channel.request({ type: 'adopt', lessons: { hosts, services } }, WORKER_TIMEOUT_MS).catch(() => undefined)));
    return null;
  }

  private keep(hosts: Lessons['hosts'], services: Lessons['services']): void {
    const at = this.now();
    for (const [host, attributes] of hosts) {
      this.hosts.delete(host);
      this.hosts.set(host, { attributes, at });
      if (this.hosts.size > this.options.hosts.maxHosts) this.hosts.delete(this.hosts.keys().next().value as string);
    }
    for (const triple of services) {
      if (this.services.size >= MAX_SERVICES) this.services.clear();
      this.services.set(triple.join('\0'), triple);
    }
  }

  private async lookup(from: number, traceIds: readonly bigint[], streams: readonly string[]): Promise<Found> {
    return { highs: traceIds.map((low) => this.traceIds.highFor(low)), streams: await this.claim(from, streams) };
  }

  /**
   * `from` carries `keys` from now on (the first worker to meet a stream keeps it until another
   * meets it); the workers that carried some hand them over, and `from` goes on where they left off.
   */
  private async claim(from: number, keys: readonly string[]): Promise<(StreamState | undefined)[]> {
    const states: (StreamState | undefined)[] = new Array(keys.length).fill(undefined);
    const byOwner = new Map<number, number[]>();
    keys.forEach((key, i) => {
      const owner = this.owners.get(key);
      this.owners.set(key, from);
      if (owner === undefined || owner === from || !this.workers.has(owner)) return;
      const positions = byOwner.get(owner) ?? [];
      positions.push(i);
      byOwner.set(owner, positions);
    });
    while (this.owners.size > this.maxOwners) this.owners.dropOldest();
    await Promise.all(
      [...byOwner].map(async ([owner, positions]) => {
        const channel = this.workers.get(owner)?.channel;
        const released = await channel?.request({ type: 'release', streams: positions.map((i) => keys[i] as string) }, WORKER_TIMEOUT_MS).catch(() => undefined);
        for (let i = 0; i < positions.length; i++) states[positions[i] as number] = released?.[i];
      }),
    );
    return states;
  }
}
