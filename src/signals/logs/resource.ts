/**
 * Resource promotion for logs: host, service, env, version and every known tag in ddtags (and
 * `?ddtags=`) go to the resource through the shared promotion table; `dd.service`, `dd.env`,
 * `dd.version` from trace injection win over the rest because they name the emitting service.
 * ddsource stays a record attribute (`datadog.ddsource`, as upstream names it). Equal texts share
 * one promotion across records and requests (promotion-memo.ts).
 */
import { SOURCE_KEYS, TAGS_KEYS } from './datadog';
import { scalarText } from '../shared/attributes';
import type { Promoted } from '../shared/resource-promotion';
import { NOTHING_PROMOTED, type LogStep } from './draft';
import { consume, firstValue } from './fields';
import { FIELD_ALIASES, promoteFields, promoteTagTexts, type Texts } from './promotion-memo';

export const resourcePromotion: LogStep = (draft, ctx) => {
  const { fields } = draft;
  const texts: Texts = [scalarText(firstValue(fields, TAGS_KEYS)), scalarText(firstValue(fields, SOURCE_KEYS))];
  for (let i = 0; i < FIELD_ALIASES.length; i++) texts.push(scalarText(fields.get(FIELD_ALIASES[i] as string)));

  const shared = draft.promoted === NOTHING_PROMOTED ? ctx.promotions?.promotionFor(texts, ctx.queryTags) : undefined;
  if (shared) {
    draft.fields = consume(fields, shared.consumed);
    draft.promoted = shared;
    return draft;
  }

  const promoted: Promoted = { resource: new Map(draft.promoted.resource), attributes: new Map(draft.promoted.attributes) };
  promoteTagTexts(texts[0], ctx.queryTags, promoted);
  draft.fields = consume(fields, promoteFields(texts, promoted));
  draft.promoted = promoted;
  return draft;
};
