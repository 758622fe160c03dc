/**
 * The hosts that are Kubernetes nodes: those whose agent ran the kubelet check, as the kubelet
 * series they sent say. Only such a host's system series are worth reading for a node's metrics
 * (mapping.ts): every other host's `system.cpu.user` would be gathered for nothing, and that was
 * 14 % more CPU per record on a plain agent's series, side by side (bench/ab.ts). One per process,
 * bounded and expiring like the host metadata table: a node the kubelet check has not named for an
 * hour is forgotten.
 */
import { ExpiringMap } from '../../shared/recency-map';

const MAX_NODES = 10_000;
const TTL_MS = 60 * 60_000;

export class NodeHosts {
  private readonly hosts: ExpiringMap<string, true>;

  constructor(now: () => number = Date.now) {
    this.hosts = new ExpiringMap(MAX_NODES, TTL_MS, now);
  }

  /** `host` sent kubelet series. */
  note(host: string): void {
    this.hosts.set(host, true);
  }

  get size(): number {
    return this.hosts.size;
  }

  has(host: string): boolean {
    return this.hosts.size > 0 && this.hosts.get(host) === true;
  }
}
