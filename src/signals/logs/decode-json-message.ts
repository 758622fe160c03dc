/**
 * `decode_json_message`: a message that is a JSON object (what pino, winston, bunyan, logback's
 * JSON encoder… write) is unpacked the way Datadog's backend does it. Its keys are merged into the
 * entry's fields and, for each reserved group (message, status, timestamp, host, service, source),
 * a group named inside the message replaces the envelope's whole group: an inner `level` beats the
 * agent's default `status: info`. Inner ddtags are added to the envelope's, key by key later wins.
 */
import { MESSAGE_KEYS, RESERVED_GROUPS, TAGS_KEYS } from './datadog';
import { MAX_JSON_DEPTH, nestedDeeperThan, type JsonValue } from '../../core/wire/json';
import { quoteBigIds } from './parse';
import { quoteUnsafeIntegers } from '../../core/wire/big-integers';
import { isNonEmptyObject, scalarText } from '../shared/attributes';
import type { LogStep } from './draft';
import { FieldsBuilder } from './fields';

const MAX_MESSAGE_DEPTH_SCAN = 1_000_000;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Reserved key → bit of its group in RESERVED_GROUPS; ddtags has the bit after them. */
const TAGS_BIT = 1 << RESERVED_GROUPS.length;
const NAME_BITS: ReadonlyMap<string, number> = new Map([...RESERVED_GROUPS.flatMap((group, i) => group.map((k) => [k, 1 << i] as const)), [TAGS_KEYS[0], TAGS_BIT]]);

/** Every `p` such that some name in NAME_BITS starts with `p.`: only below those can a nested key flatten to one. */
const NAME_PREFIXES: ReadonlySet<string> = new Set([...NAME_BITS.keys()].flatMap((name) => [...name.matchAll(/\./g)].map((m) => name.slice(0, m.index))));

/**
 * NAME_BITS of the keys `flatten(object, prefix)` would make, without making them: a nested
 * object is entered only when its name could begin one of NAME_BITS (`syslog.…`), so the usual
 * message (`dd.…`, `req.…`, `err.…`) costs one lookup per top-level key.
 */
function flattenedNameBits(object: Record<string, JsonValue>, prefix: string): number {
  let bits = 0;
  for (const key in object) {
    const name = prefix ? `${prefix}.${key}` : key;
    const value = object[key];
    if (!isNonEmptyObject(value)) bits |= NAME_BITS.get(name) ?? 0;
    else if (name === '' || NAME_PREFIXES.has(name)) bits |= flattenedNameBits(value, name);
  }
  return bits;
}

/**
 * The message as a JSON object, or undefined when it is not one. A message nested deeper than a
 * body may be (src/core/wire/json.ts) stays the string it was: flattening it into fields, and later the
 * encoder, recurse once per level, and one such line must not overflow the stack and cost the
 * whole batch. V8's JSON.parse keeps its own stack, so parsing first is safe (the test parses
 * 100,000 levels: test/unit/logs-deep-message.test.ts).
 */
function parseObject(message: JsonValue | undefined): Record<string, JsonValue> | undefined {
  if (typeof message !== 'string' || message.length > MAX_MESSAGE_DEPTH_SCAN) return undefined;
  // a message that starts with `{` and ends with `}` is its own trimmed text; only others need trim()
  let text = message;
  if (text.charCodeAt(0) !== OPEN_BRACE || text.charCodeAt(text.length - 1) !== CLOSE_BRACE) {
    text = message.trim();
    if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  }
  try {
    const value = JSON.parse(quoteUnsafeIntegers(quoteBigIds(text))) as JsonValue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return nestedDeeperThan(value, MAX_JSON_DEPTH) ? undefined : value;
  } catch {
    return undefined;
  }
}

export const decodeJsonMessage: LogStep = (draft, ctx) => {
  if (!ctx.decodeJsonMessage) return draft;
  const outer = draft.fields;
  const inner = parseObject(outer.get('message'));
  if (!inner) return draft;
  // the groups the message names: the envelope's members of those are dropped
  const named = flattenedNameBits(inner, '');
  // what copying the envelope, deleting those groups and setting the message's flattened keys
  // would leave, in that order (setting them straight into the copy leaves the same map)
  const fields = new FieldsBuilder();
  outer.forEach((v, k) => {
    if (!((NAME_BITS.get(k) ?? 0) & named & ~TAGS_BIT)) fields.set(k, v);
  });
  const outerTags = scalarText(outer.get(TAGS_KEYS[0]));
  for (const key in inner) fields.flatten(key, inner[key] as JsonValue);
  const innerTags = named & TAGS_BIT ? scalarText(fields.get(TAGS_KEYS[0])) : undefined;
  const tags = outerTags && innerTags ? `${outerTags},${innerTags}` : outerTags || innerTags || '';
  if (tags) fields.set(TAGS_KEYS[0], tags);
  // no message inside the JSON: keep the line itself as the body rather than lose it
  if (!MESSAGE_KEYS.some((key) => fields.has(key))) fields.set('message', outer.get('message') ?? '');
  draft.fields = fields.build();
  return draft;
};
