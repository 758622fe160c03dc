/**
 * Evaluating a parsed query (query.ts) against a log. Attribute values compare exactly and case
 * sensitively, numbers numerically; reserved names (source, service, host, status) and tags
 * compare without case, as Datadog lower-cases them at intake; free text searches the message
 * without case, a word or phrase standing between non-word characters.
 */
import type { JsonValue } from '../../../core/wire/json';
import { escapeRegExp, type FieldRef, type Query, type ValuePattern, type ValueTest } from './query';

/** A log as a query reads it: the processors' view, or the chain's fields before any pipeline runs. */
export interface QueryTarget {
  readonly message: string;
  readonly status: string | undefined;
  readonly service: string | undefined;
  readonly host: string | undefined;
  readonly source: string | undefined;
  readonly tags: readonly string[];
  get(path: string): JsonValue | undefined;
}

export function matches(query: Query, log: QueryTarget): boolean {
  switch (query.kind) {
    case 'all':
      return true;
    case 'and':
      return query.of.every((q) => matches(q, log));
    case 'or':
      return query.of.some((q) => matches(q, log));
    case 'not':
      return !matches(query.of, log);
    case 'text':
      return textMatches(query.pattern, query.phrase, log.message);
    case 'field':
      return fieldMatches(query.field, query.test, log);
  }
}

/** Status names and their aliases as Datadog's search reads them. */
const STATUS_ALIASES: ReadonlyMap<string, string> = new Map([
  ['warning', 'warn'],
  ['emerg', 'emergency'],
  ['err', 'error'],
  ['crit', 'critical'],
  ['information', 'info'],
  ['success', 'ok'],
]);
const statusName = (s: string): string => STATUS_ALIASES.get(s.toLowerCase()) ?? s.toLowerCase();

function fieldMatches(field: FieldRef, test: ValueTest, log: QueryTarget): boolean {
  if (field.attribute) return valueMatches(log.get(field.name), test, false);
  switch (field.name) {
    case 'source':
      return valueMatches(log.source, test, true);
    case 'service':
      return valueMatches(log.service, test, true);
    case 'host':
      return valueMatches(log.host, test, true);
    case 'status':
      if (test.kind === 'equals' && !test.pattern.wildcard) return log.status !== undefined && statusName(log.status) === statusName(test.pattern.text);
      return valueMatches(log.status, test, true);
    case 'message':
      return test.kind === 'exists' ? log.message !== '' : test.kind === 'equals' && textMatches(test.pattern, true, log.message);
    default:
      return tagMatches(field.name, test, log.tags);
  }
}

function tagMatches(key: string, test: ValueTest, tags: readonly string[]): boolean {
  const prefix = `${key.toLowerCase()}:`;
  for (const tag of tags) {
    const lower = tag.toLowerCase();
    if (lower.startsWith(prefix) && valueMatches(tag.slice(prefix.length), test, true)) return true;
    if (lower === key.toLowerCase() && test.kind === 'exists') return true;
  }
  return false;
}

const numberOf = (value: JsonValue | undefined): number | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isNaN(n) ? undefined : n;
  }
  return undefined;
};

function valueMatches(value: JsonValue | undefined, test: ValueTest, ignoreCase: boolean): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.some((v) => valueMatches(v, test, ignoreCase));
  if (test.kind === 'exists') return true;
  if (typeof value === 'object') return false;
  switch (test.kind) {
    case 'equals':
      return scalarEquals(value, test.pattern, ignoreCase);
    case 'compare':
      return compareNumber(numberOf(value), test.op, test.value);
    case 'range':
      return inRange(value, test);
  }
}

function scalarEquals(value: string | number | boolean, pattern: ValuePattern, ignoreCase: boolean): boolean {
  if (typeof value === 'number' && !pattern.wildcard) {
    const n = Number(pattern.text);
    if (pattern.text.trim() !== '' && !Number.isNaN(n)) return value === n;
  }
  const text = String(value);
  if (pattern.wildcard) return pattern.wildcard.test(text) || (ignoreCase && pattern.wildcard.test(text.toLowerCase()));
  return ignoreCase ? text.toLowerCase() === pattern.text.toLowerCase() : text === pattern.text;
}

function compareNumber(n: number | undefined, op: '>' | '>=' | '<' | '<=', bound: number): boolean {
  if (n === undefined) return false;
  switch (op) {
    case '>':
      return n > bound;
    case '>=':
      return n >= bound;
    case '<':
      return n < bound;
    case '<=':
      return n <= bound;
  }
}

function inRange(value: string | number | boolean, test: Extract<ValueTest, { kind: 'range' }>): boolean {
  const low = test.low === '*' ? undefined : test.low;
  const high = test.high === '*' ? undefined : test.high;
  const numeric = (low === undefined || !Number.isNaN(Number(low))) && (high === undefined || !Number.isNaN(Number(high)));
  if (numeric) {
    const n = numberOf(value as JsonValue);
    if (n === undefined) return false;
    if (low !== undefined && (test.lowInclusive ? n < Number(low) : n <= Number(low))) return false;
    return high === undefined || (test.highInclusive ? n <= Number(high) : n < Number(high));
  }
  const text = String(value);
  if (low !== undefined && (test.lowInclusive ? text < low : text <= low)) return false;
  return high === undefined || (test.highInclusive ? text <= high : text < high);
}

/** Free-text expressions, made once per pattern. */
const TEXT_CACHE = new WeakMap<ValuePattern, RegExp>();

function textExpression(pattern: ValuePattern, phrase: boolean): RegExp {
  let re = TEXT_CACHE.get(pattern);
  if (re) return re;
  const words = phrase ? pattern.text.split(/[^\p{L}\p{N}_]+/u).filter((w) => w !== '') : [pattern.text];
  const body = phrase ? words.map(escapeRegExp).join('[^\\p{L}\\p{N}_]+') : wildcardSource(pattern.text);
  re = new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`, 'iu');
  TEXT_CACHE.set(pattern, re);
  return re;
}

const wildcardSource = (text: string): string =>
  text
    .split('')
    .map((c) => (c === '*' ? '\\S*' : c === '?' ? '\\S' : escapeRegExp(c)))
    .join('');

function textMatches(pattern: ValuePattern, phrase: boolean, message: string): boolean {
  if (pattern.text === '*') return true;
  return textExpression(pattern, phrase).test(message);
}
