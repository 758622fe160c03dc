/**
 * `decode_json_message`: a message that is a JSON object (what pino, winston, bunyan, logback's
 * JSON encoder… write) is unpacked the way Datadog's backend does it. Its keys are merged into the
 * entry's fields and, for each reserved group (message, status, timestamp, host, service, source),
 * a group named inside the message replaces the envelope's whole group: an inner `level` beats the
 * agent's default `status: info`. Inner ddtags are added to the envelope's, key by key later wins.
 */
import { RESERVED_GROUPS, TAGS_KEYS } from '../../datadog/logs';
import type { JsonValue } from '../../parse/json';
import { quoteBigIds } from '../../parse/logs';
import { flatten, scalarText } from '../attributes';
import type { LogStep } from './draft';

const MAX_MESSAGE_DEPTH_SCAN = 1_000_000;

function parseObject(message: JsonValue | undefined): Record<string, JsonValue> | undefined {
  if (typeof message !== 'string' || message.length > MAX_MESSAGE_DEPTH_SCAN) return undefined;
  const text = message.trim();
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  try {
    const value = JSON.parse(quoteBigIds(text)) as JsonValue;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export const decodeJsonMessage: LogStep = (draft, ctx) => {
  if (!ctx.decodeJsonMessage) return draft;
  const inner = parseObject(draft.fields.get('message'));
  if (!inner) return draft;
  const innerFields = flatten(inner);
  const fields = new Map(draft.fields);
  for (const group of RESERVED_GROUPS) {
    if (group.some((k) => innerFields.has(k))) for (const k of group) fields.delete(k);
  }
  const tags = [scalarText(draft.fields.get(TAGS_KEYS[0])), scalarText(innerFields.get(TAGS_KEYS[0]))].filter((t) => t).join(',');
  for (const [k, v] of innerFields) fields.set(k, v);
  if (tags) fields.set(TAGS_KEYS[0], tags);
  // no message inside the JSON: keep the line itself as the body rather than lose it
  if (!fields.has('message') && !fields.has('msg') && !fields.has('log')) fields.set('message', draft.fields.get('message') ?? '');
  return { ...draft, fields };
};
