/**
 * JSON trace bodies (v0.3/v0.4 with a JSON content type) and the JSON that tracers put inside
 * span tags (`_dd.span_links`, `events`), decoded to the same loose tree as msgpack so one set
 * of field parsers serves both. JSON.parse turns 64-bit ids and ns timestamps into doubles and
 * loses their low bits, so integer literals too long to be exact are first rewritten as marked
 * strings (outside string literals only) and turned back into bigints afterwards.
 */
import { parseJsonBody, type JsonValue } from '../../../core/wire/json';
import type { MsgValue } from '../../../core/wire/msgpack';

/** Marks a rewritten integer; a real JSON string cannot start with a raw NUL. */
const BIG = '\u0000';
const SAFE_DIGITS = 15;

/** Rewrites integer literals of more than 15 digits as `"\u0000<digits>"`, skipping string contents. */
export function markBigIntegers(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = endOfString(text, i);
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      const literal = text.slice(i, end);
      if (/^-?\d+$/.test(literal) && literal.replace('-', '').length > SAFE_DIGITS) {
        out += `${text.slice(copied, i)}"\\u0000${literal}"`;
        copied = end;
      }
      i = end;
      continue;
    }
    i++;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const isNumberChar = (c: number): boolean => (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;

/** Index just past the string literal starting at `start` (a `"`), honouring escapes. */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return i;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function toTree(value: JsonValue): MsgValue {
  if (typeof value === 'string') {
    if (value.charCodeAt(0) !== 0) return value;
    const digits = value.slice(BIG.length);
    if (!/^-?\d+$/.test(digits)) return value;
    const n = BigInt(digits);
    return n <= MAX_SAFE && n >= -MAX_SAFE ? Number(n) : n;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toTree);
  return new Map(Object.entries(value).map(([k, v]) => [k, toTree(v)]));
}

/** Parses JSON text (depth-capped, 400 on error) into the loose tree, integers exact. */
export const parseJsonTree = (text: string, what: string): MsgValue => toTree(parseJsonBody(markBigIntegers(text), what));
