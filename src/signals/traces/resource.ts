/**
 * The resource a span belongs to. ClickStack fills its ServiceName column from the resource's
 * `service.name` only, and HyperDX's environment/version filters read the resource too, so
 * service, env and version go there — upstream leaves env and version on the span
 * (docs/translation.md, Traces: Resource).
 *
 * Span-level first: the span's service (or its `_dd.base_service`, below), `env`, `version`,
 * the tags tracers stamp on every span about their process (`_dd.hostname`, `runtime-id` →
 * service.instance.id, `language`, the `process_id` metric), and any meta key the known-key
 * table marks as a resource key (container, Kubernetes, cloud tags from DD_TAGS); a `service` tag
 * repeating the span's service is dropped. Then what the other spans of
 * its chunk say about the process (PayloadResources), then the tracer payload's fields, tags and
 * request headers, then the trace-agent's host, env and tags, each only where nothing more
 * specific said otherwise.
 *
 * `_dd.base_service`: the tracer's own service when an integration span was given another one
 * (`myapp-postgres`). The span is grouped under the base service, as upstream does and as the
 * process's logs are, and keeps its own service as the span attribute `datadog.service`, the name
 * the APM-stats metrics use too; the spans teach ServiceIdentities the pair, so that the stats of
 * `myapp-postgres` are grouped under `myapp` as well (service-identity.ts).
 */
import type { DdAgentInfo, DdTraceChunk, DdTracerPayload } from './datadog';
import { KNOWN_KEYS, UNNAMED_SERVICE } from '../shared/known-keys';
import { promoteTag, promoteTags, type AttributeMap, type Promoted } from '../shared/resource-promotion';
import type { SpanStep } from './draft';
import { MemoTrie } from '../shared/memo-trie';
import { ENVIRONMENT } from '../shared/environment';

const BASE_SERVICE = '_dd.base_service';
/** A span's own service where it differs from the service it is grouped under (service-identity.ts). */
export const DATADOG_SERVICE = 'datadog.service';
const PROCESS_ID = 'process_id';
const OTLP_VERSION = 'otlp-';

/** Payload tags whose value is itself a comma-separated tag list. */
const TAG_LIST_KEYS = new Set(['_dd.tags.container', '_dd.tags.process']);

/** `Datadog-Meta-Lang` / languageName → telemetry.sdk.language values of the semantic conventions. */
const LANGUAGES: ReadonlyMap<string, string> = new Map([
  ['.net', 'dotnet'],
  ['javascript', 'nodejs'],
  ['node', 'nodejs'],
  ['golang', 'go'],
  ['c++', 'cpp'],
]);

export const language = (name: string): string => LANGUAGES.get(name.toLowerCase()) ?? name.toLowerCase();

const asIs = (v: string): string => v;

/** Tags tracers put on every span that describe their process: tag → [resource attribute, value]. */
export const TRACER_TAGS: ReadonlyMap<string, [string, (v: string) => string]> = new Map([
  ['_dd.hostname', ['host.name', asIs]],
  ['runtime-id', ['service.instance.id', asIs]],
  ['language', ['telemetry.sdk.language', language]],
]);
const TRACER_TAG_KEYS = [...TRACER_TAGS.keys()];

/** Tags that apply to a whole payload: every one describes the source, so all land on the resource. */
function payloadTags(tags: ReadonlyMap<string, string>, into: AttributeMap): void {
  const promoted: Promoted = { resource: new Map(), attributes: new Map() };
  for (const [key, value] of tags) {
    if (TAG_LIST_KEYS.has(key)) promoteTags(value.split(','), promoted);
    else promoteTag(key, value, promoted);
  }
  for (const [k, v] of [...promoted.resource, ...promoted.attributes]) if (!into.has(k)) into.set(k, v);
}

function setIfAbsent(into: AttributeMap, key: string, value: string): void {
  if (value !== '' && !into.has(key)) into.set(key, { string: value });
}

/**
 * Resource attributes of one tracer payload, computed once for all its spans. `senderHost`, the
 * host the connection came from, is the last say on `host.name`: a tracer that sends to us
 * directly names no host unless told to (DD_TRACE_REPORT_HOSTNAME).
 */
export function payloadResource(tracer: DdTracerPayload, agent: DdAgentInfo | undefined, senderHost = ''): AttributeMap {
  const out: AttributeMap = new Map();
  setIfAbsent(out, ENVIRONMENT, tracer.env || (agent?.env ?? ''));
  setIfAbsent(out, 'service.version', tracer.appVersion);
  setIfAbsent(out, 'host.name', tracer.hostname || (agent?.hostName ?? ''));
  setIfAbsent(out, 'container.id', tracer.containerId);
  setIfAbsent(out, 'service.instance.id', tracer.runtimeId);
  // the trace-agent's OTLP conversion (the datadog exporter) writes `otlp-<SDK version>`, `otlp-` without one
  const otlp = tracer.tracerVersion.startsWith(OTLP_VERSION);
  setIfAbsent(out, 'telemetry.sdk.name', otlp ? 'opentelemetry' : 'datadog');
  setIfAbsent(out, 'telemetry.sdk.language', language(tracer.languageName));
  setIfAbsent(out, 'telemetry.sdk.version', otlp ? tracer.tracerVersion.slice(OTLP_VERSION.length) : tracer.tracerVersion);
  setIfAbsent(out, 'process.runtime.version', tracer.languageVersion);
  payloadTags(tracer.tags, out);
  if (agent) payloadTags(agent.tags, out);
  setIfAbsent(out, 'host.name', senderHost);
  return out;
}

/** Meta keys that name where the span comes from (the span's own `service` key excepted: the field wins). */
const isResourceKey = (key: string): boolean => key !== 'service' && KNOWN_KEYS.get(key)?.resource === true;

/** A span's meta or metrics: its own maps, or what the steps before left of them. */
interface Tags<V> {
  get(key: string): V | undefined;
  forEach(visit: (value: V, key: string) => void): void;
}

/** The `process_id` metric, when it can be a pid. */
function pidOf(metrics: Tags<number>): number | undefined {
  const pid = metrics.get(PROCESS_ID);
  return pid !== undefined && Number.isSafeInteger(pid) ? pid : undefined;
}

/**
 * Walks `memo` along what tagResource reads — the resource tags with their values in meta order,
 * the tracer tags, the pid — so that spans saying the same about their process, as the spans of
 * one process do, meet at one node and the resource is built once per node rather than per span.
 * `taken` collects the meta keys the resource consumes.
 */
function ownNode<T>(memo: MemoTrie<T>, meta: Tags<string>, metrics: Tags<number>, taken?: string[]): MemoTrie<T> {
  let node = memo;
  meta.forEach((value, key) => {
    if (!isResourceKey(key)) return;
    taken?.push(key);
    if (value !== '') node = node.next(key).next(value);
  });
  for (const key of TRACER_TAG_KEYS) {
    const v = meta.get(key);
    if (v === undefined) continue;
    taken?.push(key);
    if (v) node = node.next(key).next(v);
  }
  const pid = pidOf(metrics);
  return pid === undefined ? node : node.next(pid);
}

/** What a span's own tags say about its resource: env, version, host, pid, container, Kubernetes, … */
function tagResource(meta: Tags<string>, metrics: Tags<number>): AttributeMap {
  const promoted: Promoted = { resource: new Map(), attributes: new Map() };
  meta.forEach((value, key) => {
    if (value !== '' && isResourceKey(key)) promoteTag(key, value, promoted);
  });
  for (const [key, [attribute, value]] of TRACER_TAGS) {
    const v = meta.get(key);
    if (v) promoted.resource.set(attribute, { string: value(v) });
  }
  const pid = pidOf(metrics);
  if (pid !== undefined) promoted.resource.set('process.pid', { int: BigInt(pid) });
  return promoted.resource;
}

/** What the spans of one chunk inherit, and the resources built on it so far (SpanContext). */
export interface ChunkResources {
  inheritedResource: AttributeMap;
  /** by service, then as ownNode walks */
  resources: MemoTrie<AttributeMap>;
}

/**
 * Tracers put some process-wide tags on a chunk's root only (dd-trace-py: process_id), others
 * on every span but one (dd-trace-js: no `version` on integration spans of another service).
 * What any span of a chunk says about its process holds for all of them, so that one process's
 * spans share one resource instead of splitting over several. Kept per tracer payload: chunks
 * whose spans say the same (the chunks of one process, as a rule) share one inherited resource,
 * and so the resources built on it.
 */
export class PayloadResources {
  /** each span's own resource, by what it was built from */
  private readonly own = new MemoTrie<AttributeMap>();
  /** by the distinct own-resource nodes of a chunk's spans, in first-seen order */
  private readonly chunks = new MemoTrie<ChunkResources>();

  constructor(private readonly payload: AttributeMap) {}

  forChunk(chunk: DdTraceChunk): ChunkResources {
    const seen = new Set<MemoTrie<AttributeMap>>();
    let node = this.chunks;
    for (const span of chunk.spans) {
      const own = ownNode(this.own, span.meta, span.metrics);
      if (seen.has(own)) continue;
      own.value ??= tagResource(span.meta, span.metrics);
      seen.add(own);
      node = node.next(own);
    }
    node.value ??= { inheritedResource: this.inherited(seen), resources: new MemoTrie() };
    return node.value;
  }

  private inherited(own: ReadonlySet<MemoTrie<AttributeMap>>): AttributeMap {
    const out: AttributeMap = new Map();
    for (const { value } of own) for (const [k, v] of value ?? []) if (!out.has(k)) out.set(k, v);
    for (const [k, v] of this.payload) if (!out.has(k)) out.set(k, v);
    return out;
  }
}

/** The environment of a resource, as ServiceIdentities keys it. */
export function envOf(resource: AttributeMap): string {
  const env = resource.get(ENVIRONMENT);
  return env !== undefined && 'string' in env ? env.string : '';
}

/** The span's service first, then its own tags, then what its chunk inherits. */
function spanResource(service: string, own: AttributeMap, inherited: AttributeMap): AttributeMap {
  const resource: AttributeMap = new Map([['service.name', { string: service }]]);
  for (const source of [own, inherited]) for (const [k, v] of source) if (!resource.has(k)) resource.set(k, v);
  return resource;
}

export const resource: SpanStep = (draft, ctx) => {
  const { span, meta, metrics } = draft;
  const base = meta.get(BASE_SERVICE);
  const service = base || span.service || UNNAMED_SERVICE;
  const taken = [BASE_SERVICE];
  const byService = ctx.resources.next(service);
  // equal inputs give an equal resource: built once, the map shared (nothing changes it later)
  const node = ownNode(byService, meta, metrics, taken);
  node.value ??= spanResource(service, tagResource(meta, metrics), ctx.inheritedResource);
  draft.resource = node.value;
  if (base && base !== span.service && span.service) {
    draft.attributes.set(DATADOG_SERVICE, { string: span.service });
    ctx.services.learn(envOf(draft.resource), span.service, base);
  }
  const serviceTag = meta.get('service');
  if (serviceTag === span.service || serviceTag === service) taken.push('service');
  for (const key of taken) meta.consume(key);
  if (pidOf(metrics) !== undefined) metrics.consume(PROCESS_ID);
  return draft;
};
