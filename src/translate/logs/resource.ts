/**
 * Resource promotion for logs: host, service, env, version and every known tag in ddtags (and
 * `?ddtags=`) go to the resource through the shared promotion table; `dd.service`, `dd.env`,
 * `dd.version` from trace injection win over the rest because they name the emitting service.
 * ddsource stays a record attribute (`datadog.ddsource`, as upstream names it).
 */
import { HOST_KEYS, SERVICE_KEYS, SOURCE_KEYS, TAGS_KEYS } from '../../datadog/logs';
import type { JsonValue } from '../../parse/json';
import { scalarText } from '../attributes';
import { promoteTag, promoteTags, tagList, type Promoted } from '../resource-promotion';
import { takeFirst, type LogStep } from './draft';

/** [field alias group, tag key it is promoted as] in increasing precedence. */
const FIELD_TAGS: readonly [readonly string[], string][] = [
  [HOST_KEYS, 'host'],
  [SERVICE_KEYS, 'service'],
  [['env'], 'env'],
  [['version'], 'version'],
  [['dd.service'], 'service'],
  [['dd.env'], 'env'],
  [['dd.version'], 'version'],
];

export const resourcePromotion: LogStep = (draft, ctx) => {
  const promoted: Promoted = { resource: new Map(draft.promoted.resource), attributes: new Map(draft.promoted.attributes) };
  let fields: ReadonlyMap<string, JsonValue> = draft.fields;
  let value: JsonValue | undefined;

  [value, fields] = takeFirst(fields, TAGS_KEYS);
  promoteTags([...tagList(scalarText(value)), ...tagList(ctx.queryTags)], promoted);

  [value, fields] = takeFirst(fields, SOURCE_KEYS);
  const source = scalarText(value);
  if (source) promoted.attributes.set('datadog.ddsource', { string: source });

  for (const [aliases, tag] of FIELD_TAGS) {
    const [v, rest] = takeFirst(fields, aliases);
    const text = scalarText(v);
    if (text === undefined) continue;
    fields = rest;
    if (text !== '') promoteTag(tag, text, promoted);
  }
  return { ...draft, fields, promoted };
};
