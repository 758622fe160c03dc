/**
 * Resource promotion for logs: host, service, env, version and every known tag in ddtags (and
 * `?ddtags=`) go to the resource through the shared promotion table; `dd.service`, `dd.env`,
 * `dd.version` from trace injection win over the rest because they name the emitting service.
 * ddsource stays a record attribute (`datadog.ddsource`, as upstream names it).
 */
import { HOST_KEYS, SERVICE_KEYS, SOURCE_KEYS, TAGS_KEYS } from '../../datadog/logs';
import { scalarText } from '../attributes';
import { promoteTag, promoteTags, tagList, type Promoted } from '../resource-promotion';
import { without } from '../map-view';
import { firstPresent, type LogStep } from './draft';

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
  const { fields } = draft;
  // consumed keys are dropped once at the end: the alias groups are disjoint, so no lookup below sees another's removal
  const consumed: string[] = [...TAGS_KEYS, ...SOURCE_KEYS];
  promoteTags([...tagList(scalarText(firstPresent(fields, TAGS_KEYS))), ...tagList(ctx.queryTags)], promoted);

  const source = scalarText(firstPresent(fields, SOURCE_KEYS));
  if (source) promoted.attributes.set('datadog.ddsource', { string: source });

  for (const [aliases, tag] of FIELD_TAGS) {
    const text = scalarText(firstPresent(fields, aliases));
    if (text === undefined) continue;
    consumed.push(...aliases);
    if (text !== '') promoteTag(tag, text, promoted);
  }
  return { ...draft, fields: without(fields, ...consumed), promoted };
};
