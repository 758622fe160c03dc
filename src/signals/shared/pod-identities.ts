/**
 * What one signal says of a Kubernetes pod, every signal of that pod gets. HyperDX's
 * Infrastructure tab appears on a log or span whose resource has `k8s.pod.uid` (or
 * `k8s.node.name`) and draws the pod's metrics filtered by that uid; its Kubernetes page groups
 * pods by name, namespace and node. The Datadog agent's tags never carry a pod's uid nor, on a
 * node agent's signals, the node: the uid is in a pod's log file path (logs/pod-log-path.ts), the
 * node in kube-state-metrics' `node` tag (metrics/infra). So each resource that names a pod
 * (namespace and name) teaches this table the pod's uid and node when it says them, and a
 * container id the pod it belongs to; a resource that names a pod, or only a container (a tracer
 * that sends directly says only `container.id`), gets what the table knows and it lacks
 * (docs/translation.md, Kubernetes). Learning and adding happen when a resource's group is
 * opened (group.ts), once per resource array while the table does not change (`enriched`). Bounded
 * and expiring: a pod no signal named for an hour is forgotten.
 */
import type { AnyValue, KeyValue } from '../../core/otlp/model';
import { ExpiringMap } from './recency-map';

const NAMESPACE = 'k8s.namespace.name';
const POD = 'k8s.pod.name';
const UID = 'k8s.pod.uid';
const NODE = 'k8s.node.name';
const CONTAINER_ID = 'container.id';
const CONTAINER = 'k8s.container.name';

export interface PodIdentityOptions {
  maxPods: number;
  ttlMs: number;
}

export const DEFAULT_POD_IDENTITY_OPTIONS: PodIdentityOptions = { maxPods: 100_000, ttlMs: 60 * 60_000 };

interface PodFacts {
  uid?: string;
  node?: string;
}

interface ContainerFacts {
  namespace: string;
  pod: string;
  container?: string;
}

/** The pod-related attributes a resource holds. */
interface Said {
  namespace?: string;
  pod?: string;
  uid?: string;
  node?: string;
  containerId?: string;
  container?: string;
}

const text = (v: AnyValue): string | undefined => ('string' in v && v.string !== '' ? v.string : undefined);

function said(resource: readonly KeyValue[]): Said {
  const out: Said = {};
  for (const { key, value } of resource) {
    if (key === NAMESPACE) out.namespace = text(value);
    else if (key === POD) out.pod = text(value);
    else if (key === UID) out.uid = text(value);
    else if (key === NODE) out.node = text(value);
    else if (key === CONTAINER_ID) out.containerId = text(value);
    else if (key === CONTAINER) out.container = text(value);
  }
  return out;
}

const podKey = (namespace: string, pod: string): string => `${namespace}\u0000${pod}`;

/** What enrich last made of a resource array, while the table has not changed since. */
interface Enriched {
  version: number;
  at: number;
  out: KeyValue[];
}

export class PodIdentities {
  private readonly pods: ExpiringMap<string, PodFacts>;
  private readonly containers: ExpiringMap<string, ContainerFacts>;
  /**
   * Resources are shared arrays (a metric origin, a log or span resource map's KeyValues, kept
   * across requests), so a group opened for a known resource costs a lookup, not a scan, a
   * learning and a merge: a plain agent's series open a group for nearly every series (their pod
   * tags differ), and that scan was most of what this table cost (bench/ab.ts). Redone when the
   * table learned something new, and at least every half TTL, so that what a resource teaches does
   * not expire while it is still sent. Weak, so a resource nobody holds takes its entry with it.
   */
  private readonly enriched = new WeakMap<KeyValue[], Enriched>();
  /** bumped whenever a pod's or container's facts change */
  private version = 0;

  constructor(
    private readonly options: PodIdentityOptions = DEFAULT_POD_IDENTITY_OPTIONS,
    private readonly now: () => number = Date.now,
  ) {
    this.pods = new ExpiringMap(options.maxPods, options.ttlMs, now);
    this.containers = new ExpiringMap(options.maxPods, options.ttlMs, now);
  }

  /** `resource` with the pod attributes the table knows and it lacks, after learning what it says; `resource` itself when it gains none. */
  enrich(resource: KeyValue[]): KeyValue[] {
    const last = this.enriched.get(resource);
    const at = this.now();
    if (last !== undefined && last.version === this.version && at - last.at < this.options.ttlMs / 2) return last.out;
    const out = this.enrichAnew(resource);
    this.enriched.set(resource, { version: this.version, at, out });
    return out;
  }

  private enrichAnew(resource: KeyValue[]): KeyValue[] {
    const own = said(resource);
    this.learn(own);
    const where = own.namespace && own.pod ? { namespace: own.namespace, pod: own.pod, container: undefined } : own.containerId ? this.containers.get(own.containerId) : undefined;
    if (where === undefined) return resource;
    const facts = this.pods.get(podKey(where.namespace, where.pod));
    const added: KeyValue[] = [];
    const add = (key: string, has: string | undefined, value: string | undefined): void => {
      if (has === undefined && value !== undefined) added.push({ key, value: { string: value } });
    };
    add(NAMESPACE, own.namespace, where.namespace);
    add(POD, own.pod, where.pod);
    add(CONTAINER, own.container, where.container);
    add(UID, own.uid, facts?.uid);
    add(NODE, own.node, facts?.node);
    return added.length === 0 ? resource : [...resource, ...added];
  }

  private learn({ namespace, pod, uid, node, containerId, container }: Said): void {
    if (!namespace || !pod) return;
    const key = podKey(namespace, pod);
    if (uid !== undefined || node !== undefined) {
      const known = this.pods.get(key);
      const facts = { uid: uid ?? known?.uid, node: node ?? known?.node };
      if (facts.uid !== known?.uid || facts.node !== known?.node) this.version++;
      this.pods.set(key, facts);
    }
    if (containerId !== undefined) {
      const known = this.containers.get(containerId);
      if (known?.namespace !== namespace || known.pod !== pod || known.container !== container) this.version++;
      this.containers.set(containerId, { namespace, pod, container });
    }
  }
}
