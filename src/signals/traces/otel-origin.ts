/**
 * Spans that began in OpenTelemetry and reached us in Datadog's format (the collector's datadog
 * exporter, which runs the trace-agent's own OTLP conversion). That conversion copies every
 * resource attribute into each span's meta and keeps the instrumentation scope in
 * `otel.library.name` / `otel.library.version` (`otel.scope.*` in newer conversions). Here:
 *
 * - the scope becomes the span's scope again, instead of ours;
 * - meta keys in OpenTelemetry's resource namespaces (`host.*`, `telemetry.*`, `deployment.*`,
 *   `service.version`, …) go back to the resource, over what the tracer payload said (its
 *   `telemetry.sdk.*` describe the conversion, not the SDK), instead of repeating on every span;
 *   `deployment.environment` as `deployment.environment.name` (shared/environment.ts).
 *
 * A span is taken for one of these when it names a scope or carries `otel.trace_id`. Ids and status
 * are read by the ids and status steps (`otel.trace_id`, `otel.status_code`); every tag used here is
 * consumed, OTLP structure says it.
 */
import type { InstrumentationScope } from '../../core/otlp/model';
import type { AttributeMap } from '../shared/resource-promotion';
import { firstOf, type OtelOrigins, type SpanDraft, type SpanStep } from './draft';
import { MemoTrie } from '../shared/memo-trie';
import { resourceKeyOf } from '../shared/environment';

const NAME_KEYS = ['otel.scope.name', 'otel.library.name'];
const VERSION_KEYS = ['otel.scope.version', 'otel.library.version'];
const OTEL_TRACE_ID = 'otel.trace_id';
/** OpenTelemetry's resource namespaces (semantic conventions, resource attributes); `service.name` is the span's service and stays out. */
const RESOURCE_PREFIXES = [
  'host.',
  'os.',
  'process.',
  'container.',
  'k8s.',
  'cloud.',
  'deployment.',
  'telemetry.',
  'faas.',
  'device.',
  'aws.ecs.',
  'aws.eks.',
  'aws.log.',
  'gcp.',
  'heroku.',
  'webengine.',
  'service.namespace',
  'service.version',
  'service.instance.id',
];

export const otelOrigins = (): OtelOrigins => ({ scopes: new Map(), resources: new MemoTrie() });

const isResourceKey = (key: string): boolean => RESOURCE_PREFIXES.some((p) => key.startsWith(p));

function scopeOf(scopes: Map<string, InstrumentationScope>, name: string, version: string | undefined): InstrumentationScope {
  const key = `${name}\u0000${version ?? ''}`;
  let scope = scopes.get(key);
  if (scope === undefined) {
    scope = version ? { name, version } : { name };
    scopes.set(key, scope);
  }
  return scope;
}

/** The span's resource with its resource-namespace meta on top, built once per distinct set; the keys are consumed. */
function withMetaResource(draft: SpanDraft, resources: OtelOrigins['resources']): AttributeMap {
  let node = resources.next(draft.resource);
  const moved: [string, string][] = [];
  for (const [key, value] of draft.meta) {
    if (!isResourceKey(key)) continue;
    moved.push([key, value]);
    node = node.next(key).next(value);
  }
  if (moved.length === 0) return draft.resource;
  for (const [key] of moved) draft.meta.consume(key);
  node.value ??= withMoved(draft.resource, moved);
  return node.value;
}

/** `resource` with the moved meta on top, the older environment key folded into the current one (shared/environment.ts). */
function withMoved(resource: AttributeMap, moved: readonly [string, string][]): AttributeMap {
  const out: AttributeMap = new Map(resource);
  for (const [key, text] of moved) {
    const value = { string: text };
    const target = resourceKeyOf(key, value, out);
    if (target !== undefined) out.set(target, value);
  }
  return out;
}

export const otelOrigin: SpanStep = (draft, ctx) => {
  const { meta } = draft;
  // two lookups, no arguments array: this runs for every span, and most are not OpenTelemetry's
  const name = meta.get(NAME_KEYS[0] as string) || meta.get(NAME_KEYS[1] as string);
  if (!name && !meta.has(OTEL_TRACE_ID)) return draft;
  if (name) draft.scope = scopeOf(ctx.otel.scopes, name, firstOf(meta, ...VERSION_KEYS));
  for (const key of [...NAME_KEYS, ...VERSION_KEYS]) meta.consume(key);
  draft.resource = withMetaResource(draft, ctx.otel.resources);
  return draft;
};
