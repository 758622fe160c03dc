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
