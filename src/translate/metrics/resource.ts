/**
 * Where a metric comes from → resource attributes; what it measures → data-point attributes.
 * Tags go through the shared promotion table: service, env, version, host, container, cloud, k8s
 * and ECS keys become resource attributes, every other tag (HTTP, DB, custom) stays on the data
 * point, so tag cardinality does not multiply resources (upstream puts HTTP/DB keys on the
 * resource, translation-rules §7 #12). Explicit resources (the series' host, a v2 `{type, name}`
 * resource) come after the tags and win over a tag of the same name: they are the sender's own
 * statement. `source_type_name` becomes resource `source`, as upstream names it, only when sent.
 */
import type { MetricResource } from '../../datadog/metrics';
import type { KeyValue } from '../../otlp/model';
import { KNOWN_KEYS } from '../known-keys';
import { promoteTag, promoteTags, resourceKey, toKeyValues, type Promoted } from '../resource-promotion';

/** A series' resource and point attributes, final; `resourceKey` groups equal resources. */
export interface MetricOrigin {
  resource: KeyValue[];
  resourceKey: string;
  attributes: KeyValue[];
}

export function promoteOrigin(tags: readonly string[], resources: readonly MetricResource[], sourceTypeName = ''): Promoted {
  const promoted: Promoted = { resource: new Map(), attributes: new Map() };
  promoteTags(tags, promoted);
  for (const { type, name } of resources) {
    if (type === '' || name === '') continue;
    if (KNOWN_KEYS.get(type)?.resource) promoteTag(type, name, promoted);
    else promoted.resource.set(type, { string: name });
  }
  if (sourceTypeName !== '') promoted.resource.set('source', { string: sourceTypeName });
  return promoted;
}

export function originOf(promoted: Promoted): MetricOrigin {
  const resource = toKeyValues(promoted.resource);
  return { resource, resourceKey: resourceKey(resource), attributes: toKeyValues(promoted.attributes) };
}

/** A section boundary in the memo's key path: tags, then resources, then the source type. */
const END = Symbol('end');
type MemoNode = Map<string | symbol, MemoNode | MetricOrigin>;
export type OriginMemo = MemoNode;

/** The memo node under `key`, created when missing. */
function child(node: MemoNode, key: string | symbol): MemoNode {
  let next = node.get(key) as MemoNode | undefined;
  if (!next) {
    next = new Map();
    node.set(key, next);
  }
  return next;
}

/**
 * originOf(promoteOrigin(…)) once per distinct tags and resources of a payload (`memo` lives as
 * long as the request): an agent payload repeats them in every metric of a container, and
 * promoting, ordering and keying them again for each series was a fifth of the series path.
 * The memo is a tree walked tag by tag, so no key string is built per series (the tag strings
 * themselves are interned by the decoder). Items of equal origin share its arrays, which nothing
 * changes once built.
 */
export function memoizedOrigin(memo: OriginMemo, tags: readonly string[], resources: readonly MetricResource[], sourceTypeName = ''): MetricOrigin {
  let node = memo;
  for (const tag of tags) node = child(node, tag);
  node = child(node, END);
  for (const { type, name } of resources) node = child(child(node, type), name);
  node = child(node, END);
  const known = node.get(sourceTypeName) as MetricOrigin | undefined;
  if (known) return known;
  const origin = originOf(promoteOrigin(tags, resources, sourceTypeName));
  node.set(sourceTypeName, origin);
  return origin;
}
