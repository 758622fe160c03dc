/**
 * The resource a span belongs to. ClickStack fills its ServiceName column from the resource's
 * `service.name` only, and HyperDX's environment/version filters read the resource too, so
 * service, env and version go there — upstream leaves env and version on the span
 * (translation-rules §6, §7 #14).
 *
 * Span-level first: the span's service (or its `_dd.base_service`, below), `env`, `version`,
 * `_dd.hostname`, the `process_id` metric, and any meta key the known-key table marks as a
 * resource key (container, Kubernetes, cloud tags from DD_TAGS). Then the tracer payload's
 * fields, tags and request headers, then the trace-agent's host, env and tags, each only where
 * nothing more specific said otherwise.
 *
 * `_dd.base_service`: the tracer's own service when an integration span was given another one
 * (`myapp-postgres`). The span is grouped under the base service, as upstream does, and keeps its
 * own service as the span attribute `service.name`.
 */
import type { DdAgentInfo, DdTracerPayload } from '../../datadog/traces';
import { KNOWN_KEYS } from '../known-keys';
import { promoteTag, promoteTags, type AttributeMap, type Promoted } from '../resource-promotion';
import { without, type SpanStep } from './draft';

const BASE_SERVICE = '_dd.base_service';
const HOSTNAME = '_dd.hostname';
const PROCESS_ID = 'process_id';

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

export const resource: SpanStep = (draft, ctx) => {
  const { span } = draft;
  const base = draft.meta.get(BASE_SERVICE);
  const service = base || span.service;
  const spanLevel: Promoted = { resource: new Map(), attributes: new Map(draft.attributes) };
  if (service) spanLevel.resource.set('service.name', { string: service });
  if (base && base !== span.service && span.service) spanLevel.attributes.set('service.name', { string: span.service });

  const consumed = [BASE_SERVICE, HOSTNAME];
  for (const [key, value] of draft.meta) {
    if (!isResourceKey(key)) continue;
    consumed.push(key);
    if (value !== '') promoteTag(key, value, spanLevel);
  }
  const host = draft.meta.get(HOSTNAME);
  if (host) spanLevel.resource.set('host.name', { string: host });
  const pid = draft.metrics.get(PROCESS_ID);
  if (pid !== undefined && Number.isSafeInteger(pid)) spanLevel.resource.set('process.pid', { int: BigInt(pid) });

  for (const [k, v] of ctx.payloadResource) if (!spanLevel.resource.has(k)) spanLevel.resource.set(k, v);
  return {
    ...draft,
    meta: without(draft.meta, ...consumed),
    metrics: pid !== undefined && Number.isSafeInteger(pid) ? without(draft.metrics, PROCESS_ID) : draft.metrics,
    resource: spanLevel.resource,
    attributes: spanLevel.attributes,
  };
};
