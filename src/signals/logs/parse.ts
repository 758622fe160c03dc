/**
 * Parses a /api/v2/logs or /v1/input body: a JSON array of entries or one object. The logs
 * agent's start-up probe is the literal `{}` and must produce nothing (and never a 400, which
 * would push an agent without force_use_http to TCP).
 */
import type { DatadogLogEntry, DatadogLogPayload } from './datadog';
import { MalformedInputError } from '../../core/errors';
import { parseJsonBody, type JsonValue } from '../../core/wire/json';

const isObject = (v: JsonValue): v is Record<string, JsonValue> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function parseLogsBody(body: Buffer, query: URLSearchParams): DatadogLogPayload {
  const value = parseJsonBody(quoteBigIds(body.toString('utf8')), 'logs');
  const queryTags = query.get('ddtags') ?? undefined;
  if (Array.isArray(value)) return { entries: value.map(entryAt), queryTags };
  if (isObject(value)) return { entries: Object.keys(value).length === 0 ? [] : [value], queryTags };
  throw new MalformedInputError(`logs: expected a JSON array of log objects or one object, got ${typeName(value)}`);
}

function entryAt(value: JsonValue, index: number): DatadogLogEntry {
  if (!isObject(value)) throw new MalformedInputError(`logs: [${index}] must be an object, got ${typeName(value)}`);
  return value;
}

const typeName = (v: JsonValue): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

const BIG_ID = /("(?:dd\.)?(?:trace_id|span_id)"\s*:\s*)(\d{16,})(?=\s*[,}\]])/g;

/**
 * JSON numbers lose precision past 2^53, and Java/Go loggers write 64-bit trace ids as bare
 * numbers; quoting them before JSON.parse keeps every digit.
 */
export const quoteBigIds = (text: string): string => (mayHoldBareId(text) ? text.replace(BIG_ID, '$1"$2"') : text);

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;

/** Skips the whitespace `\s` matches, as far as ASCII goes; -1 at any non-ASCII character (it may be one). */
function skipSpace(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at);
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) at++;
    else return c >= 0x80 ? -1 : at;
  }
}

/**
 * False only when BIG_ID cannot match: no `_id"` is followed by a colon and a digit. The usual
 * JSON line (ids quoted, as dd-trace writes them) then skips the regular expression, which would
 * otherwise scan the whole text for nothing.
 */
function mayHoldBareId(text: string): boolean {
  for (let at = text.indexOf('_id"'); at >= 0; at = text.indexOf('_id"', at + 4)) {
    let i = skipSpace(text, at + 4);
    if (i < 0) return true;
    if (text.charCodeAt(i) !== COLON) continue;
    i = skipSpace(text, i + 1);
    if (i < 0) return true;
    const c = text.charCodeAt(i);
    if (c >= DIGIT_0 && c <= DIGIT_9) return true;
  }
  return false;
}
