/**
 * Resource promotion, shared by logs, traces and metrics: Datadog tags (`key:value`) and
 * reserved fields become resource attributes when they say where telemetry comes from, and
 * record/span/point attributes otherwise. Records with equal resources are grouped by `resourceKey`.
 */
import type { AnyValue, KeyValue } from '../otlp/model';
import { attributeName, KNOWN_KEYS } from './known-keys';

/** Attributes under construction: insertion-ordered, last write wins. */
export type AttributeMap = Map<string, AnyValue>;

export interface Promoted {
  resource: AttributeMap;
  attributes: AttributeMap;
}

/** Splits a `key:value` tag on its first colon. A bare tag `foo` becomes `unnamed_foo=foo` (upstream's rule). */
export function splitTag(tag: string): [string, string] | undefined {
  const t = tag.trim();
  if (t === '') return undefined;
  const colon = t.indexOf(':');
  if (colon < 0) return [`unnamed_${t}`, t];
  return [t.slice(0, colon), t.slice(colon + 1)];
}

/** Comma-separated `ddtags` (logs) or a tag array (metrics, spans) → tags. */
export const tagList = (tags: string | readonly string[] | undefined): string[] =>
  tags === undefined ? [] : typeof tags === 'string' ? tags.split(',') : [...tags];

export function promoteTag(key: string, value: string, into: Promoted): void {
  const known = KNOWN_KEYS.get(key);
  if (known?.resource) {
    if (known.slice) appendToSlice(into.resource, known.otel, value);
    else into.resource.set(known.otel, { string: value });
    return;
  }
  into.attributes.set(attributeName(key), { string: value });
}

export function promoteTags(tags: readonly string[], into: Promoted): void {
  for (const tag of tags) {
    const kv = splitTag(tag);
    if (kv) promoteTag(kv[0], kv[1], into);
  }
}

function appendToSlice(map: AttributeMap, key: string, value: string): void {
  const current = map.get(key);
  const values = current && 'array' in current ? current.array : [];
  map.set(key, { array: [...values, { string: value }] });
}

export const toKeyValues = (map: AttributeMap): KeyValue[] => Array.from(map, ([key, value]) => ({ key, value }));

/** Identity of a resource for grouping: attribute order must not split equal resources. */
export function resourceKey(attributes: readonly KeyValue[]): string {
  return JSON.stringify(
    attributes.map((kv) => [kv.key, kv.value] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v),
  );
}
