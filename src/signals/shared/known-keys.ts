/**
 * Datadog tag/attribute keys and their OpenTelemetry names.
 * `resource: true` marks keys that describe where telemetry comes from (service, container,
 * cloud, Kubernetes, ECS): as tags they are promoted to the resource, which is what ClickStack's
 * ServiceName column and HyperDX's quick filters read. The rest are renamed but stay on the
 * record/span/data point, so they do not multiply resources (an upstream gap).
 */
import type { SemconvOptIn } from '../../config/options';

export interface KnownKey {
  /** the stable semantic-conventions name */
  otel: string;
  resource: boolean;
  /** image_tag is a list in semantic conventions */
  slice?: boolean;
  /** HTTP and database keys: the name before the group's stable conventions, and the group that chooses */
  old?: { group: keyof SemconvOptIn; name: string };
  /** a number in every convention (`http.status_code`): written as an int when the value is one */
  integer?: boolean;
}

/** The service of what names none: the trace-agent's normaliser's name for a span without a service; ClickStack needs one. */
export const UNNAMED_SERVICE = 'unnamed-service';

const resource = (otel: string, slice = false): KnownKey => ({ otel, resource: true, ...(slice ? { slice } : {}) });
const record = (otel: string): KnownKey => ({ otel, resource: false });
const http = (stable: string, old: string): KnownKey => ({ otel: stable, resource: false, old: { group: 'http', name: old } });
const database = (stable: string, old: string): KnownKey => ({ otel: stable, resource: false, old: { group: 'database', name: old } });

/**
 * Without an opt-in, the names OpenTelemetry instrumentations write by default, which are also the
 * only ones HyperDX reads for its HTTP panel, waterfall labels and Database tab
 * (docs/translation.md, Semantic-convention names).
 */
export const DEFAULT_SEMCONV: SemconvOptIn = { http: 'old', database: 'old' };

export const KNOWN_KEYS: ReadonlyMap<string, KnownKey> = new Map<string, KnownKey>([
  ['env', resource('deployment.environment.name')],
  ['service', resource('service.name')],
  ['version', resource('service.version')],
  ['host', resource('host.name')],
  ['hostname', resource('host.name')],
  ['container_id', resource('container.id')],
  ['container_name', resource('container.name')],
  ['image_name', resource('container.image.name')],
  ['image_tag', resource('container.image.tags', true)],
  ['runtime', resource('container.runtime.name')],
  ['cloud_provider', resource('cloud.provider')],
  ['region', resource('cloud.region')],
  ['zone', resource('cloud.availability_zone')],
  ['task_family', resource('aws.ecs.task.family')],
  ['task_arn', resource('aws.ecs.task.arn')],
  ['ecs_cluster_name', resource('aws.ecs.cluster.arn')],
  ['task_version', resource('aws.ecs.task.revision')],
  ['ecs_container_name', resource('aws.ecs.container.arn')],
  ['kube_container_name', resource('k8s.container.name')],
  ['kube_cluster_name', resource('k8s.cluster.name')],
  ['kube_deployment', resource('k8s.deployment.name')],
  ['kube_replica_set', resource('k8s.replicaset.name')],
  ['kube_stateful_set', resource('k8s.statefulset.name')],
  ['kube_daemon_set', resource('k8s.daemonset.name')],
  ['kube_job', resource('k8s.job.name')],
  ['kube_cronjob', resource('k8s.cronjob.name')],
  ['kube_namespace', resource('k8s.namespace.name')],
  ['kube_node', resource('k8s.node.name')],
  ['pod_name', resource('k8s.pod.name')],
  ['kube_app_name', resource('app.kubernetes.io/name')],
  ['kube_app_instance', resource('app.kubernetes.io/instance')],
  ['kube_app_version', resource('app.kubernetes.io/version')],
  ['kube_app_component', resource('app.kubernetes.io/component')],
  ['kube_app_part_of', resource('app.kubernetes.io/part-of')],
  ['kube_app_managed_by', resource('app.kubernetes.io/managed-by')],
  ['process_id', record('process.pid')],
  ['http.client_ip', http('client.address', 'http.client_ip')],
  ['network.client.ip', http('client.address', 'net.peer.ip')],
  ['http.response.content_length', http('http.response.body.size', 'http.response_content_length')],
  ['http.status_code', { ...http('http.response.status_code', 'http.status_code'), integer: true }],
  ['http.request.content_length', http('http.request.body.size', 'http.request_content_length')],
  ['http.referer', record('http.request.header.referer')],
  ['http.method', http('http.request.method', 'http.method')],
  ['http.route', record('http.route')],
  ['http.version', http('network.protocol.version', 'http.flavor')],
  ['http.server_name', http('server.address', 'http.server_name')],
  ['http.url', http('url.full', 'http.url')],
  ['http.useragent', http('user_agent.original', 'http.user_agent')],
  ['aws.s3.bucket_name', record('aws.s3.bucket')],
  ['aws.response.request_id', record('aws.request_id')],
  ['aws.service', record('rpc.service')],
  ['aws.operation', record('rpc.method')],
  ['db.type', database('db.system.name', 'db.system')],
  ['db.system', database('db.system.name', 'db.system')],
  ['db.operation', database('db.operation.name', 'db.operation')],
  ['db.instance', database('db.namespace', 'db.name')],
  ['db.name', database('db.namespace', 'db.name')],
  ['db.sql.table', database('db.collection.name', 'db.sql.table')],
  ['db.pool.name', record('db.client.connection.pool.name')],
  ['db.statement', database('db.query.text', 'db.statement')],
  ['sql.query', database('db.query.text', 'db.statement')],
  ['error.stacktrace', record('exception.stacktrace')],
  ['error.stack', record('exception.stacktrace')],
  ['error.msg', record('exception.message')],
  ['error.message', record('exception.message')],
  ['error.kind', record('exception.type')],
  ['error.type', record('exception.type')],
  // pino's standard error serializer
  ['err.type', record('exception.type')],
  ['err.message', record('exception.message')],
  ['err.stack', record('exception.stacktrace')],
]);

const HEADER_PREFIXES: readonly [string, string][] = [
  ['http.request.headers.', 'http.request.header.'],
  ['http.response.headers.', 'http.response.header.'],
];

const knownKey = (key: string): KnownKey | undefined => KNOWN_KEYS.get(key) ?? KNOWN_KEYS.get(key.toLowerCase());

/** The name of a non-resource key under `optIn`, and its second name when the group says `/dup`. */
function recordName(key: string, optIn: SemconvOptIn): string | [string, string] {
  const known = knownKey(key);
  if (known && !known.resource) {
    if (!known.old) return known.otel;
    const names = optIn[known.old.group];
    return names === 'old' ? known.old.name : names === 'stable' ? known.otel : [known.old.name, known.otel];
  }
  for (const [from, to] of HEADER_PREFIXES) if (key.startsWith(from)) return to + key.slice(from.length);
  return key;
}

/** The OTel names of a non-resource key (renamed per the table and opt-in, header prefixes rewritten). */
export function attributeNames(key: string, optIn: SemconvOptIn): string[] {
  const name = recordName(key, optIn);
  return typeof name === 'string' ? [name] : name;
}

/** The OTel name of a non-resource key under the default names (DEFAULT_SEMCONV has no `/dup`), without an array per call: logs call it per field. */
export const attributeName = (key: string): string => recordName(key, DEFAULT_SEMCONV) as string;

/** Whether a key's value is a number in every convention (`http.status_code`). */
export const isIntegerKey = (key: string): boolean => knownKey(key)?.integer === true;
