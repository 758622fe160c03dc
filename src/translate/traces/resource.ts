/**
 * The resource a span belongs to. ClickStack fills its ServiceName column from the resource's
 * `service.name` only, and HyperDX's environment/version filters read the resource too, so
 * service, env and version go there — upstream leaves env and version on the span
 * (translation-rules §6, §7 #14).
 *
 * Span-level first: the span's service (or its `_dd.base_service`, below), `env`, `version`,
 * the tags tracers stamp on every span about their process (`_dd.hostname`, `runtime-id` →
 * service.instance.id, `language`, the `process_id` metric), and any meta key the known-key
 * table marks as a resource key (container, Kubernetes, cloud tags from DD_TAGS); a `service` tag
 * repeating the span's service is dropped. Then what the other spans of
 * its chunk say about the process (chunkResource), then the tracer payload's fields, tags and
 * request headers, then the trace-agent's host, env and tags, each only where nothing more
 * specific said otherwise.
 *
 * `_dd.base_service`: the tracer's own service when an integration span was given another one
 * (`myapp-postgres`). The span is grouped under the base service, as upstream does, and keeps its
 * own service as the span attribute `service.name`.
 */
import type { DdAgentInfo, DdTraceChunk, DdTracerPayload } from '../../datadog/traces';
import { KNOWN_KEYS } from '../known-keys';
import { builtKey, part, promoteTag, promoteTags, type AttributeMap, type Promoted } from '../resource-promotion';
import { without, type SpanStep } from './draft';

const BASE_SERVICE = '_dd.base_service';
const PROCESS_ID = 'process_id';
/** What the agent's normaliser names a span without a service; ClickStack needs one. */
const UNNAMED_SERVICE = 'unnamed-service';

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
const TRACER_TAGS: ReadonlyMap<string, [string, (v: string) => string]> = new Map([
  ['_dd.hostname', ['host.name', asIs]],
  ['runtime-id', ['service.instance.id', asIs]],
  ['language', ['telemetry.sdk.language', language]],
]);

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

/** Resource attributes of one tracer payload, computed once for all its spans. */
export function payloadResource(tracer: DdTracerPayload, agent: DdAgentInfo | undefined): AttributeMap {
  const out: AttributeMap = new Map();
  setIfAbsent(out, 'deployment.environment.name', tracer.env || (agent?.env ?? ''));
  setIfAbsent(out, 'service.version', tracer.appVersion);
  setIfAbsent(out, 'host.name', tracer.hostname || (agent?.hostName ?? ''));
  setIfAbsent(out, 'container.id', tracer.containerId);
  setIfAbsent(out, 'service.instance.id', tracer.runtimeId);
  setIfAbsent(out, 'telemetry.sdk.name', 'datadog');
  setIfAbsent(out, 'telemetry.sdk.language', language(tracer.languageName));
  setIfAbsent(out, 'telemetry.sdk.version', tracer.tracerVersion);
  setIfAbsent(out, 'process.runtime.version', tracer.languageVersion);
  payloadTags(tracer.tags, out);
  if (agent) payloadTags(agent.tags, out);
  return out;
}

/** Meta keys that name where the span comes from (the span's own `service` key excepted: the field wins). */
const isResourceKey = (key: string): boolean => key !== 'service' && KNOWN_KEYS.get(key)?.resource === true;

interface TagResource {
  resource: AttributeMap;
  /** Meta keys turned into resource attributes. */
  meta: string[];
  /** Metric keys turned into resource attributes. */
  metrics: string[];
}

/** What a span's own tags say about its resource: env, version, host, pid, container, Kubernetes, … */
function tagResource(meta: ReadonlyMap<string, string>, metrics: ReadonlyMap<string, number>): TagResource {
  const promoted: Promoted = { resource: new Map(), attributes: new Map() };
  const out: TagResource = { resource: promoted.resource, meta: [], metrics: [] };
  for (const [key, value] of meta) {
    if (!isResourceKey(key)) continue;
    out.meta.push(key);
    if (value !== '') promoteTag(key, value, promoted);
  }
  for (const [key, [attribute, value]] of TRACER_TAGS) {
    const v = meta.get(key);
    if (v === undefined) continue;
    out.meta.push(key);
    if (v) out.resource.set(attribute, { string: value(v) });
  }
  const pid = metrics.get(PROCESS_ID);
  if (pid !== undefined && Number.isSafeInteger(pid)) {
    out.metrics.push(PROCESS_ID);
    out.resource.set('process.pid', { int: BigInt(pid) });
  }
  return out;
}

/**
 * Tracers put some process-wide tags on a chunk's root only (dd-trace-py: process_id), others
 * on every span but one (dd-trace-js: no `version` on integration spans of another service).
 * What any span of a chunk says about its process holds for all of them, so that one process's
 * spans share one resource instead of splitting over several.
 */
export function chunkResource(chunk: DdTraceChunk, payload: AttributeMap): AttributeMap {
  const out: AttributeMap = new Map();
  for (const span of chunk.spans) for (const [k, v] of tagResource(span.meta, span.metrics).resource) if (!out.has(k)) out.set(k, v);
  for (const [k, v] of payload) if (!out.has(k)) out.set(k, v);
  return out;
}

/** The span's service first, then its own tags, then what its chunk inherits. */
function spanResource(service: string, own: AttributeMap, inherited: AttributeMap): AttributeMap {
  const resource: AttributeMap = new Map([['service.name', { string: service }]]);
  for (const source of [own, inherited]) for (const [k, v] of source) if (!resource.has(k)) resource.set(k, v);
  return resource;
}

export const resource: SpanStep = (draft, ctx) => {
  const { span } = draft;
  const base = draft.meta.get(BASE_SERVICE);
  const own = tagResource(draft.meta, draft.metrics);
  const service = base || span.service || UNNAMED_SERVICE;
  // equal inputs within a chunk give an equal resource: built once, the map shared (nothing changes it later)
  const memoKey = part('s', service) + builtKey(own.resource);
  let resource = ctx.resources.get(memoKey);
  if (!resource) {
    resource = spanResource(service, own.resource, ctx.inheritedResource);
    ctx.resources.set(memoKey, resource);
  }
  const attributes = new Map(draft.attributes);
  if (base && base !== span.service && span.service) attributes.set('service.name', { string: span.service });
  return {
    ...draft,
    meta: without(draft.meta, BASE_SERVICE, ...own.meta, ...(draft.meta.get('service') === span.service ? ['service'] : [])),
    metrics: without(draft.metrics, ...own.metrics),
    resource,
    attributes,
  };
};
