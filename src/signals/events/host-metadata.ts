/**
 * The agent's host metadata (a POST /intake/ body with `internalHostname` and `host-tags` or
 * `meta`; docs/translation.md, Host metadata) → the resource attributes it gives the host's
 * signals (shared/host-metadata.ts). Host tags (`host-tags`: the configured tags, `env`, cloud
 * provider tags, GCE tags) go through the shared promotion table, and all of them land on the
 * resource, since every one describes the host: known keys under their OpenTelemetry names
 * (`region` → cloud.region, `kube_cluster_name` → k8s.cluster.name, …), the others under their
 * own. Then, where no tag said it: `meta.cluster-name` → k8s.cluster.name, the host alias
 * `<node>-<cluster name>` → k8s.node.name (nodeOf), `meta.instance-id` → host.id, and
 * cloud.provider `aws` when the agent found an EC2 instance id or hostname, `gcp` when it sent GCE
 * tags.
 */
import type { KeyValue } from '../../core/otlp/model';
import { promoteTags, toKeyValues, type AttributeMap, type Promoted } from '../shared/resource-promotion';

export interface HostMetadata {
  host: string;
  attributes: KeyValue[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const GCE_TAGS = 'google cloud platform';

/** Every list of strings under `host-tags` (`system`, `google cloud platform`, …). */
function hostTags(tags: Json): string[] {
  return Object.values(tags).flatMap((list) => (Array.isArray(list) ? list.filter((t): t is string => typeof t === 'string') : []));
}

function setIfAbsent(into: AttributeMap, key: string, value: string): void {
  if (value !== '' && !into.has(key)) into.set(key, { string: value });
}

/**
 * The Kubernetes node an agent runs on, from its host aliases: on Kubernetes the agent's kubelet
 * hostname provider adds `<node name>-<cluster name>` (datadog-agent pkg/util/kubelet,
 * GetHostAliases and GetHostname), the name kube_state_metrics gives that node's series too.
 */
function nodeOf(meta: Json): string {
  const cluster = text(meta['cluster-name']);
  const aliases = meta.host_aliases;
  if (cluster === '' || !Array.isArray(aliases)) return '';
  const suffix = `-${cluster}`;
  const alias = aliases.find((a): a is string => typeof a === 'string' && a.endsWith(suffix) && a.length > suffix.length);
  return alias === undefined ? '' : alias.slice(0, -suffix.length);
}

function cloudProvider(meta: Json, tags: Json): string {
  if (text(meta['instance-id']) || text(meta['ec2-hostname'])) return 'aws';
  const gce = tags[GCE_TAGS];
  return Array.isArray(gce) && gce.length > 0 ? 'gcp' : '';
}

/** The host and its attributes, or undefined when `payload` is not host metadata. */
export function hostMetadataOf(payload: unknown): HostMetadata | undefined {
  if (!isObject(payload)) return undefined;
  const host = text(payload.internalHostname);
  const tags = isObject(payload['host-tags']) ? payload['host-tags'] : undefined;
  const meta = isObject(payload.meta) ? payload.meta : undefined;
  if (host === '' || (!tags && !meta)) return undefined;
  const promoted: Promoted = { resource: new Map(), attributes: new Map() };
  promoteTags(hostTags(tags ?? {}), promoted);
  const resource: AttributeMap = new Map([...promoted.resource, ...promoted.attributes]);
  resource.delete('host.name'); // the key of the table: the signal's own host name stays
  setIfAbsent(resource, 'k8s.cluster.name', text(meta?.['cluster-name']));
  setIfAbsent(resource, 'k8s.node.name', nodeOf(meta ?? {}));
  setIfAbsent(resource, 'host.id', text(meta?.['instance-id']));
  setIfAbsent(resource, 'cloud.provider', cloudProvider(meta ?? {}, tags ?? {}));
  return { host, attributes: toKeyValues(resource) };
}
