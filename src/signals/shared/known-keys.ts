/**
 * Datadog tag/attribute keys and their OpenTelemetry names.
 * `resource: true` marks keys that describe where telemetry comes from (service, container,
 * cloud, Kubernetes, ECS): as tags they are promoted to the resource, which is what ClickStack's
 * ServiceName column and HyperDX's quick filters read. The rest are renamed but stay on the
 * record/span/data point, so they do not multiply resources (an upstream gap).
 */
export interface KnownKey {
  otel: string;
  resource: boolean;
  /** image_tag is a list in semantic conventions */
  slice?: boolean;
}

const resource = (otel: string, slice = false): KnownKey => ({ otel, resource: true, ...(slice ? { slice } : {}) });
const record = (otel: string): KnownKey => ({ otel, resource: false });

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
  ['http.client_ip', record('client.address')],
  ['http.response.content_length', record('http.response.body.size')],
  ['http.status_code', record('http.response.status_code')],
  ['http.request.content_length', record('http.request.body.size')],
  ['http.referer', record('http.request.header.referer')],
  ['http.method', record('http.request.method')],
  ['http.route', record('http.route')],
  ['http.version', record('network.protocol.version')],
  ['http.server_name', record('server.address')],
  ['http.url', record('url.full')],
  ['http.useragent', record('user_agent.original')],
  ['aws.s3.bucket_name', record('aws.s3.bucket')],
  ['aws.response.request_id', record('aws.request_id')],
  ['aws.service', record('rpc.service')],
  ['aws.operation', record('rpc.method')],
  ['db.type', record('db.system.name')],
  ['db.operation', record('db.operation.name')],
  ['db.instance', record('db.namespace')],
  ['db.sql.table', record('db.collection.name')],
  ['db.pool.name', record('db.client.connection.pool.name')],
  ['db.statement', record('db.query.text')],
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

/** The OTel name of a non-resource key (renamed per the table, header prefixes rewritten). */
export function attributeName(key: string): string {
  const known = KNOWN_KEYS.get(key) ?? KNOWN_KEYS.get(key.toLowerCase());
  if (known && !known.resource) return known.otel;
  for (const [from, to] of HEADER_PREFIXES) if (key.startsWith(from)) return to + key.slice(from.length);
  return key;
}
