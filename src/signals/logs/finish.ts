/**
 * Last step: the message becomes the body and every field no step consumed becomes a typed
 * attribute under its OTel name. Tag-derived attributes come first so a field of the same name,
 * being more specific, wins.
 */
import type { KeyValue, LogRecord } from '../../core/otlp/model';
import type { JsonValue } from '../../core/wire/json';
import { anyValue } from '../shared/attributes';
import { attributeName } from '../shared/known-keys';
import { toKeyValues } from '../shared/resource-promotion';
import { isEmptyValue, isMessageKey, messageKeyOf, type LogDraft } from './draft';
import { isSharedPromotion } from './promotion-memo';

/** Never emitted: ClickStack routes any log carrying it to the session-replay table. */
const RESERVED_BY_CLICKSTACK = 'rr-web.event';

function indexOfKey(list: readonly KeyValue[], key: string): number {
  for (let i = 0; i < list.length; i++) if ((list[i] as KeyValue).key === key) return i;
  return -1;
}

/**
 * Attributes as a map would hold them (insertion order, a later value replacing an earlier one in
 * place), built straight into the array. Keys of `rest` are distinct, so a field can only meet an
 * earlier attribute of its name when that one is tag-derived or when renaming made two names equal.
 */
function recordAttributes(promoted: readonly KeyValue[], fields: ReadonlyMap<string, JsonValue>, bodyKey: string | undefined): KeyValue[] {
  const attributes = promoted.slice();
  const promotedCount = attributes.length;
  let renamed = false;
  fields.forEach((value, key) => {
    if (key === bodyKey || (isMessageKey(key) && isEmptyValue(value))) return;
    const name = attributeName(key);
    if (name === RESERVED_BY_CLICKSTACK) return;
    if (name !== key) renamed = true;
    const kv: KeyValue = { key: name, value: anyValue(value) };
    const at = renamed ? indexOfKey(attributes, name) : promotedCount > 0 ? indexOfKey(promoted, name) : -1;
    if (at >= 0) attributes[at] = kv;
    else attributes.push(kv);
  });
  return attributes;
}

export function toLogRecord(draft: LogDraft): LogRecord {
  const bodyKey = draft.body === undefined ? messageKeyOf(draft.fields) : undefined;
  const message = draft.body ?? (bodyKey === undefined ? undefined : draft.fields.get(bodyKey));
  const { promoted } = draft;
  const record: LogRecord = {
    timeUnixNano: draft.timeUnixNano,
    observedTimeUnixNano: draft.receivedAtNs,
    severityNumber: draft.severityNumber,
    severityText: draft.severityText,
    body: typeof message === 'string' ? { string: message } : anyValue(message ?? ''),
    attributes: recordAttributes(isSharedPromotion(promoted) ? promoted.attributeList : toKeyValues(promoted.attributes), draft.fields, bodyKey),
  };
  if (draft.traceId) record.traceId = draft.traceId;
  if (draft.spanId) record.spanId = draft.spanId;
  return record;
}
