/**
 * What each host's agent said about the host in its host metadata (POST /intake/, at agent start
 * and about every 30 minutes; events/host-metadata.ts reads it): host tags, cloud and Kubernetes
 * facts, as resource attributes by host name. A signal's resource that names the host
 * (`host.name`) gets those it does not set itself when its group is opened (group.ts): what the
 * signal says is more specific than what the host says. One table per process (caches.ts),
 * bounded in hosts and in age, so a host whose agent went away is forgotten. Before a host's first
 * metadata its signals go out as they come; the table is not kept across restarts (an agent sends
 * again within 30 minutes).
 */
import type { KeyValue } from '../../core/otlp/model';
import { ExpiringMap } from './recency-map';

export interface HostMetadataOptions {
  maxHosts: number;
  ttlMs: number;
}

/** Two agent send intervals and then some: one late or lost send does not drop a host's tags. */
export const DEFAULT_HOST_METADATA_OPTIONS: HostMetadataOptions = { maxHosts: 10_000, ttlMs: 2 * 60 * 60_000 };

const HOST_NAME = 'host.name';

/** An address that sent metadata of two hosts (agents behind one NAT): it names neither. */
const SHARED_ADDRESS = '';

export class HostMetadataTable {
  /** least recently updated first */
  private readonly hosts: ExpiringMap<string, readonly KeyValue[]>;
  /** The host whose agent sent its metadata from each network address (see hostAt). */
  private readonly byAddress: ExpiringMap<string, string>;

  /**
   * The last enrichment of each resource array, while its host's attributes are the same array:
   * resources are shared arrays (a metric origin, a log or span resource map's KeyValues, kept
   * across requests), so a group opened for a known resource costs a lookup (≈ 0.6 µs on this
   * machine for 8 resource and 5 host attributes) instead of a merge (≈ 2 µs). Weak, so a resource nobody holds takes its entry with it.
   */
  private readonly enriched = new WeakMap<KeyValue[], { from: readonly KeyValue[]; out: KeyValue[] }>();

  constructor(options: HostMetadataOptions = DEFAULT_HOST_METADATA_OPTIONS, now: () => number = Date.now) {
    this.hosts = new ExpiringMap(options.maxHosts, options.ttlMs, now);
    this.byAddress = new ExpiringMap(options.maxHosts, options.ttlMs, now);
  }

  /** `host`'s agent sent its metadata from `address` (the connection's remote address). */
  setAddress(address: string, host: string): void {
    if (address === '') return;
    const known = this.byAddress.get(address);
    this.byAddress.set(address, known === undefined || known === host ? host : SHARED_ADDRESS);
  }

  /**
   * The host at `address`: a tracer that sends to us directly says no host of its own, but runs
   * where the agent that sent host metadata from the same address runs (docs/translation.md,
   * Resource). Undefined when no agent, or more than one, sent from there.
   */
  hostAt(address: string): string | undefined {
    return this.byAddress.get(address) || undefined;
  }

  /** Replaces what is known of `host`: each metadata payload is the agent's whole current view. */
  set(host: string, attributes: readonly KeyValue[]): void {
    this.hosts.set(host, attributes);
  }

  attributesOf(host: string): readonly KeyValue[] | undefined {
    return this.hosts.get(host);
  }

  /** `resource` with its host's attributes that it does not have; `resource` itself when there are none. */
  enrich(resource: KeyValue[]): KeyValue[] {
    if (this.hosts.size === 0) return resource;
    const host = resource.find((kv) => kv.key === HOST_NAME)?.value;
    const known = host && 'string' in host ? this.attributesOf(host.string) : undefined;
    if (!known) return resource;
    const last = this.enriched.get(resource);
    if (last?.from === known) return last.out;
    const added = known.filter((kv) => !resource.some((own) => own.key === kv.key));
    const out = added.length === 0 ? resource : [...resource, ...added];
    this.enriched.set(resource, { from: known, out });
    return out;
  }

  get size(): number {
    return this.hosts.size;
  }
}
