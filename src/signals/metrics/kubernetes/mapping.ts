/**
 * The Datadog agent's Kubernetes and host series (inputs.ts) → the OpenTelemetry metrics HyperDX's
 * Kubernetes views read (outputs.ts), with units converted (docs/translation.md, Kubernetes
 * metrics). One request's mapping: the `kubernetes` step (step.ts) has it read each series, and at
 * the translation's end (once the request's last piece was taken) `finish` emits what takes more
 * than one series:
 *
 * - per pod and timestamp (a check run commits all its series at one time): `k8s.pod.cpu.usage`
 *   (cores: the sum of its containers' nanocores / 10⁹), `k8s.pod.memory.usage` (the sum of their
 *   bytes), and the limit utilizations (usage / the sum of the limits, when every container with a
 *   usage has a limit, as kubeletstats requires);
 * - per node and timestamp: `k8s.node.cpu.usage` ((user + system) % × cores), `.memory.usage`
 *   (MiB × 2²⁰), `.filesystem.available` (used / used fraction − used), `.uptime`.
 *
 * One series to one metric is emitted at once: the pod phase, the pod uptime, container restarts,
 * node readiness. Derived metrics carry only resource attributes: a pod's are its pod-level ones
 * (no container, and no service: a pod's containers may serve several), a node's its node, host,
 * cluster and cloud. The node of a node agent's series is its `kube_node` tag, its host
 * metadata's node (host-metadata.ts), else its host name when that host sent kubelet series
 * (node-hosts.ts): the agent reports its own node's pods. Other hosts' system series are not read. A pod's uid is not among the node agent's
 * tags: kube_state_metrics' pod series say it (`uid`), and PodIdentities adds it to the pod's
 * other resources when their groups are opened.
 *
 * With `datadogNames` off the Kubernetes checks' inputs are left out once read; the system
 * checks' are host metrics and always kept.
 */
import type { Series } from '../datadog';
import type { KeyValue } from '../../../core/otlp/model';
import type { HostMetadataTable } from '../../shared/host-metadata';
import { resourceKey } from '../../shared/resource-promotion';
import type { MetricItem } from '../context';
import type { MetricOrigin } from '../resource';
import { secondsToNanos } from '../time';
import { KUBERNETES_INPUTS, mayBeInput, type Input, type InputRole } from './inputs';
import type { NodeHosts } from './node-hosts';
import type { KubernetesMetricOptions } from './options';
import { metricOf, OUTPUTS, POD_PHASES, READY_STATUS, type Output } from './outputs';

const NODE = 'k8s.node.name';
const UID = 'k8s.pod.uid';
const HOST = 'host.name';
const MIB = 1024 * 1024;
const NANO = 1e9;

/** Resource keys a pod's metrics keep: where the pod runs, what owns it, its environment. */
const isPodKey = (key: string): boolean => (key.startsWith('k8s.') && key !== 'k8s.container.name') || key.startsWith('host.') || key.startsWith('cloud.') || key.startsWith('app.kubernetes.io/') || key === 'deployment.environment.name';
const isContainerKey = (key: string): boolean => isPodKey(key) || key === 'k8s.container.name' || key === 'container.id';
const isNodeKey = (key: string): boolean => key === NODE || key === 'k8s.cluster.name' || key.startsWith('host.') || key.startsWith('cloud.');

interface Resource {
  resource: KeyValue[];
  resourceKey: string;
}

/** A pod's containers at one time: what they say summed, and how many said it. */
type PodField = 'cpu' | 'memory' | 'cpuLimit' | 'memoryLimit';
type PodSample = Record<PodField, { sum: number; containers: number }>;

/** Each container input's field, and what its value is multiplied by (nanocores → cores). */
const POD_FIELDS: Partial<Record<InputRole, [PodField, number]>> = {
  containerCpu: ['cpu', 1 / NANO],
  containerMemory: ['memory', 1],
  containerCpuLimit: ['cpuLimit', 1],
  containerMemoryLimit: ['memoryLimit', 1],
};

type NodeSample = Partial<Record<'cpuUser' | 'cpuSystem' | 'cores' | 'memoryMiB' | 'uptime' | 'fsUsed' | 'fsFraction', number>>;

const NODE_FIELDS: Partial<Record<InputRole, keyof NodeSample>> = {
  cpuUserPercent: 'cpuUser',
  cpuSystemPercent: 'cpuSystem',
  cpuCores: 'cores',
  memoryUsedMiB: 'memoryMiB',
  uptime: 'uptime',
  nodeFsUsed: 'fsUsed',
  nodeFsUsedFraction: 'fsFraction',
};

const emptyPod = (): PodSample => ({ cpu: { sum: 0, containers: 0 }, memory: { sum: 0, containers: 0 }, cpuLimit: { sum: 0, containers: 0 }, memoryLimit: { sum: 0, containers: 0 } });

/** Usage / limit, when every container with a usage has a limit (kubeletstats' rule). */
function limitUtilization(usage: PodSample[PodField], limit: PodSample[PodField]): number | undefined {
  return usage.containers > 0 && limit.containers >= usage.containers && limit.sum > 0 ? usage.sum / limit.sum : undefined;
}

interface Host {
  origin: MetricOrigin;
  /** what the series' own tags say (`kube_node`) */
  node: string | undefined;
  samples: Map<number, NodeSample>;
}

/** The value of tag `key` in a tag list, or undefined. */
function tagOf(tags: readonly string[], key: string): string | undefined {
  const prefix = `${key}:`;
  for (const tag of tags) if (tag.startsWith(prefix)) return tag.slice(prefix.length);
  return undefined;
}

/** A resource's string attribute `key` (a loop, not find: this runs for every system series). */
function attribute(resource: readonly KeyValue[], key: string): string | undefined {
  for (const kv of resource) if (kv.key === key) return 'string' in kv.value && kv.value.string !== '' ? kv.value.string : undefined;
  return undefined;
}

function withAttribute(resource: KeyValue[], key: string, value: string | undefined): KeyValue[] {
  if (value === undefined || resource.some((kv) => kv.key === key)) return resource;
  return [...resource, { key, value: { string: value } }];
}

/** What a request's inputs said; made at the first input, so a request with none allocates nothing. */
interface Collected {
  pods: Map<string, { resource: KeyValue[]; host: string | undefined; samples: Map<number, PodSample> }>;
  hosts: Map<string, Host>;
  /** derived resources, by the origin's resource array, kind and node: built once per request */
  resources: Map<KeyValue[], Map<string, Resource>>;
}

export class KubernetesMapping {
  private collected: Collected | undefined;

  private get state(): Collected {
    this.collected ??= { pods: new Map(), hosts: new Map(), resources: new Map() };
    return this.collected;
  }

  constructor(
    private readonly options: KubernetesMetricOptions,
    private readonly hostTable: HostMetadataTable,
    private readonly nodeHosts: NodeHosts,
    private readonly emit: (item: MetricItem) => void,
  ) {}

  /**
   * Reads `s` (its origin already built) when it is an input; true when it is to be left out, its
   * Datadog name being off (the kubernetes step, step.ts).
   */
  read(s: Series, origin: MetricOrigin): boolean {
    const input = mayBeInput(s.metric) && s.type === 'gauge' ? KUBERNETES_INPUTS.get(s.metric) : undefined;
    // a process that never saw a node has no host whose system series make a node's metrics
    if (input === undefined || (input.check === 'system' && this.nodeHosts.size === 0)) return false;
    if (this.options.otelNames) this.take(s, input, origin);
    return !this.options.datadogNames && input.check !== 'system';
  }

  private take(s: Series, input: Input, origin: MetricOrigin): void {
    if (input.check === 'kubelet') this.kubeletHost(origin);
    const podField = POD_FIELDS[input.role];
    if (podField !== undefined) this.addToPod(s, origin, podField);
    else if (input.role === 'containerRestarts') this.restarts(s, origin);
    else if (input.role === 'podPhase') this.podPhase(s, origin);
    else if (input.role === 'podUptime') this.emitEach(s, OUTPUTS.podUptime, this.stateResource(s, origin), (v) => v);
    else if (input.role === 'nodeCondition') this.nodeReady(s, origin);
    else this.addToHost(s, origin, NODE_FIELDS[input.role] as keyof NodeSample);
  }

  private restarts(s: Series, origin: MetricOrigin): void {
    const host = attribute(origin.resource, HOST);
    const node = host === undefined ? undefined : this.nodeOf(host, attribute(origin.resource, NODE));
    this.emitEach(s, OUTPUTS.containerRestarts, this.resourceOf(origin, 'container', node), (v) => v);
  }

  private podPhase(s: Series, origin: MetricOrigin): void {
    const phase = POD_PHASES.get((tagOf(s.tags, 'pod_phase') ?? '').toLowerCase());
    if (phase !== undefined) this.emitEach(s, OUTPUTS.podPhase, this.stateResource(s, origin), (v) => (v > 0 ? phase : undefined));
  }

  private nodeReady(s: Series, origin: MetricOrigin): void {
    const ready = tagOf(s.tags, 'condition') === 'Ready' ? READY_STATUS.get((tagOf(s.tags, 'status') ?? '').toLowerCase()) : undefined;
    const node = tagOf(s.tags, 'node');
    if (ready !== undefined && node !== undefined) this.emitEach(s, OUTPUTS.nodeReady, this.resourceOf(origin, 'node', node), (v) => (v > 0 ? ready : undefined));
  }

  /**
   * A kube_state_metrics pod series' pod: kube-state-metrics 2 puts the pod's `uid` on every pod
   * metric and the check keeps every label as a tag, as it does the node (`node`).
   */
  private stateResource(s: Series, origin: MetricOrigin): Resource {
    return this.resourceOf(origin, 'pod', tagOf(s.tags, 'node'), tagOf(s.tags, 'uid'));
  }

  /** A pod's or node's resource from a series' origin (with the node and pod uid its tags say), memoized per request. */
  private resourceOf(origin: MetricOrigin, kind: 'pod' | 'container' | 'node', node?: string, uid?: string): Resource {
    const { resources } = this.state;
    let byKind = resources.get(origin.resource);
    if (byKind === undefined) {
      byKind = new Map();
      resources.set(origin.resource, byKind);
    }
    const key = `${kind}\u0000${node ?? ''}\u0000${uid ?? ''}`;
    let built = byKind.get(key);
    if (built === undefined) {
      const keep = kind === 'pod' ? isPodKey : kind === 'container' ? isContainerKey : isNodeKey;
      const resource = withAttribute(
        withAttribute(
          origin.resource.filter((kv) => keep(kv.key)),
          NODE,
          node,
        ),
        UID,
        uid,
      );
      built = { resource, resourceKey: resourceKey(resource) };
      byKind.set(key, built);
    }
    return built;
  }

  /** One metric per point of `s`, its value `value(point)` (undefined: none). */
  private emitEach(s: Series, output: Output, resource: Resource, value: (v: number) => number | undefined): void {
    for (const p of s.points) {
      const ns = secondsToNanos(p.timestamp);
      const v = Number.isFinite(p.value) ? value(p.value) : undefined;
      if (ns !== undefined && v !== undefined) this.emitOne(resource, output, v, ns);
    }
  }

  /** `value` as `output`, unless the metric cannot hold it (metricOf). */
  private emitOne({ resource, resourceKey }: Resource, output: Output, value: number, timeUnixNano: bigint): void {
    const metric = metricOf(output, value, timeUnixNano);
    if (metric !== undefined) this.emit({ resource, resourceKey, metric });
  }

  private addToPod(s: Series, origin: MetricOrigin, [field, scale]: [PodField, number]): void {
    const namespace = tagOf(s.tags, 'kube_namespace');
    const name = tagOf(s.tags, 'pod_name');
    if (namespace === undefined || name === undefined) return;
    const host = attribute(origin.resource, HOST);
    const key = `${namespace}\u0000${name}`;
    const { pods } = this.state;
    let pod = pods.get(key);
    if (pod === undefined) {
      const { resource } = this.resourceOf(origin, 'pod');
      pod = { resource: resource.filter((kv) => !kv.key.startsWith('service.')), host, samples: new Map() };
      pods.set(key, pod);
    }
    for (const p of s.points) {
      if (!Number.isFinite(p.value)) continue;
      let sample = pod.samples.get(p.timestamp);
      if (sample === undefined) {
        sample = emptyPod();
        pod.samples.set(p.timestamp, sample);
      }
      sample[field].sum += p.value * scale;
      sample[field].containers++;
    }
  }

  /** The host of a kubelet series, noted as a node (node-hosts.ts). */
  private kubeletHost(origin: MetricOrigin): void {
    const host = attribute(origin.resource, HOST);
    if (host !== undefined) this.nodeHosts.note(host);
  }

  private addToHost(s: Series, origin: MetricOrigin, field: keyof NodeSample): void {
    const host = attribute(origin.resource, HOST);
    if (host === undefined) return;
    let known = this.collected?.hosts.get(host);
    if (known === undefined) {
      // a host that is no node (it never sent kubelet series and says no node) has nothing to read
      if (this.nodeOf(host, attribute(origin.resource, NODE)) === undefined) return;
      known = { origin, node: undefined, samples: new Map() };
      this.state.hosts.set(host, known);
    }
    known.node ??= attribute(origin.resource, NODE);
    for (const p of s.points) {
      if (!Number.isFinite(p.value)) continue;
      let sample = known.samples.get(p.timestamp);
      if (sample === undefined) {
        sample = {};
        known.samples.set(p.timestamp, sample);
      }
      sample[field] = p.value;
    }
  }

  /** The node a host's series describe: their `kube_node`, its host metadata's, else the host itself when it runs the kubelet check. */
  private nodeOf(host: string, tagged: string | undefined): string | undefined {
    if (tagged !== undefined) return tagged;
    const fromMetadata = this.hostTable.size === 0 ? undefined : this.hostTable.attributesOf(host);
    return (fromMetadata && attribute(fromMetadata, NODE)) ?? (this.nodeHosts.has(host) ? host : undefined);
  }

  /** Emits what needed several series, once the request's series are all read. */
  finish(): void {
    if (this.collected === undefined) return;
    const { pods, hosts } = this.collected;
    for (const { resource: own, host, samples } of pods.values()) {
      // the node agent reports its own node's pods
      const resource = withAttribute(own, NODE, host === undefined ? undefined : this.nodeOf(host, attribute(own, NODE)));
      const derived = { resource, resourceKey: resourceKey(resource) };
      for (const [timestamp, p] of samples) {
        const ns = secondsToNanos(timestamp);
        if (ns === undefined) continue;
        const out = (output: Output, value: number): void => this.emitOne(derived, output, value, ns);
        if (p.cpu.containers > 0) out(OUTPUTS.podCpu, p.cpu.sum);
        if (p.memory.containers > 0) out(OUTPUTS.podMemory, p.memory.sum);
        const utilization = limitUtilization(p.cpu, p.cpuLimit);
        if (utilization !== undefined) out(OUTPUTS.podCpuLimitUtilization, utilization);
        const memoryUtilization = limitUtilization(p.memory, p.memoryLimit);
        if (memoryUtilization !== undefined) out(OUTPUTS.podMemoryLimitUtilization, memoryUtilization);
      }
    }
    for (const [host, known] of hosts) {
      const node = this.nodeOf(host, known.node);
      if (node === undefined) continue;
      const resource = this.resourceOf(known.origin, 'node', node);
      for (const [timestamp, n] of known.samples) {
        const ns = secondsToNanos(timestamp);
        if (ns === undefined) continue;
        const out = (output: Output, value: number): void => this.emitOne(resource, output, value, ns);
        if (n.cpuUser !== undefined && n.cpuSystem !== undefined && n.cores !== undefined) out(OUTPUTS.nodeCpu, ((n.cpuUser + n.cpuSystem) / 100) * n.cores);
        if (n.memoryMiB !== undefined) out(OUTPUTS.nodeMemory, n.memoryMiB * MIB);
        if (n.fsUsed !== undefined && n.fsFraction !== undefined && n.fsFraction > 0) out(OUTPUTS.nodeFsAvailable, n.fsUsed / n.fsFraction - n.fsUsed);
        if (n.uptime !== undefined) out(OUTPUTS.nodeUptime, n.uptime);
      }
    }
  }
}

/** The request's mapping, when the options leave it anything to do; `emit` takes what it makes. */
export function kubernetesMapping(options: KubernetesMetricOptions, hosts: HostMetadataTable, nodeHosts: NodeHosts, emit: (item: MetricItem) => void): KubernetesMapping | undefined {
  return options.otelNames || !options.datadogNames ? new KubernetesMapping(options, hosts, nodeHosts, emit) : undefined;
}
