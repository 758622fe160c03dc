/**
 * Last step: the message becomes the body and every field no step consumed becomes a typed
 * attribute under its OTel name. Tag-derived attributes come first so a field of the same name,
 * being more specific, wins.
 */
import { MESSAGE_KEYS } from '../../datadog/logs';
import type { LogRecord } from '../../otlp/model';
import { anyValue } from '../attributes';
import { attributeName } from '../known-keys';
import { toKeyValues, type AttributeMap } from '../resource-promotion';
import { takeFirst, type LogDraft } from './draft';

/** Never emitted: ClickStack routes any log carrying it to the session-replay table. */
const RESERVED_BY_CLICKSTACK = 'rr-web.event';

export function toLogRecord(draft: LogDraft): LogRecord {
  const [message, rest] = takeFirst(draft.fields, MESSAGE_KEYS);
  const attributes: AttributeMap = new Map(draft.promoted.attributes);
  for (const [key, value] of rest) {
    const name = attributeName(key);
    if (name !== RESERVED_BY_CLICKSTACK) attributes.set(name, anyValue(value));
  }
  return {
    timeUnixNano: draft.timeUnixNano,
    observedTimeUnixNano: draft.receivedAtNs,
    severityNumber: draft.severityNumber,
    severityText: draft.severityText,
    body: typeof message === 'string' ? { string: message } : anyValue(message ?? ''),
    attributes: toKeyValues(attributes),
    ...(draft.traceId ? { traceId: draft.traceId } : {}),
    ...(draft.spanId ? { spanId: draft.spanId } : {}),
  };
}
