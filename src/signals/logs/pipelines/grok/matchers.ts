/**
 * Grok's built-in matchers (Datadog's list: word, notSpace, data, integer, number, date, regex,
 * ip, ipOrHost, …): the expression each stands for and the value its match becomes before any
 * filter (`integer` and `number` give numbers, `boolean` a boolean, `date` epoch milliseconds,
 * the rest the text).
 */
import type { JsonValue } from '../../../../core/wire/json';
import { compileDatePattern } from './date-pattern';
import { translateJavaRegex } from './java-regex';

export interface Matcher {
  source: string;
  /** The match as a value; undefined drops it (a date that is not one). */
  convert(text: string): JsonValue | undefined;
  /** A `regex("(?i)…")` argument asks for the whole rule to ignore case. */
  ignoreCase?: boolean;
}

export class MatcherError extends Error {}

const text = (t: string): JsonValue => t;
/** An integer a double cannot hold exactly keeps its digits (as the JSON decoding does: core/wire/big-integers.ts). */
const integer = (t: string): JsonValue | undefined => {
  const digits = t.startsWith('+') ? t.slice(1) : t;
  const n = Number(digits);
  if (!Number.isFinite(n)) return undefined;
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(digits) ? Math.trunc(n) : digits;
};
const number = (t: string): JsonValue | undefined => {
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
};

const fixed = (source: string, convert: (t: string) => JsonValue | undefined = text): Matcher => ({ source, convert });

const INTEGER = '[+-]?\\d+';
const NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)';
const EXPONENT = '(?:[eE][+-]?\\d+)?';
const IPV4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `(?:${IPV4_OCTET}\\.){3}${IPV4_OCTET}`;
/**
 * Written without counted repetitions above 16 (V8's linear-time engine refuses them, and a rule
 * it refuses loses its bound: regex-safety.ts): an IPv6 is hex groups around at least two colons,
 * possibly ending in an IPv4, a scope after `%`; a hostname's labels are not held to 63 characters
 * and may hold `_` (Datadog reads elasticsearch's node `elasticsnoop_node_two` as one).
 */
const IPV6 = `(?:[0-9A-Fa-f]{0,4}:[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:]*(?:${IPV4}|[0-9A-Fa-f]{1,4})?(?:%[0-9A-Za-z]+)?)`;
const HOSTNAME = '\\b[0-9A-Za-z][0-9A-Za-z_-]*(?:\\.[0-9A-Za-z][0-9A-Za-z_-]*)*\\.?';
const DOUBLE_QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const SINGLE_QUOTED = "'(?:[^'\\\\]|\\\\.)*'";

const BUILT_IN: ReadonlyMap<string, Matcher> = new Map([
  ['word', fixed('\\b\\w+\\b')],
  ['notSpace', fixed('\\S+')],
  ['data', fixed('[\\s\\S]*?')],
  ['greedyData', fixed('[\\s\\S]*')],
  ['integer', fixed(INTEGER, integer)],
  ['integerStr', fixed(INTEGER)],
  ['integerExt', fixed(`${INTEGER}${EXPONENT}`, integer)],
  ['integerExtStr', fixed(`${INTEGER}${EXPONENT}`)],
  ['number', fixed(NUMBER, number)],
  ['numberStr', fixed(NUMBER)],
  ['numberExt', fixed(`${NUMBER}${EXPONENT}`, number)],
  ['numberExtStr', fixed(`${NUMBER}${EXPONENT}`)],
  ['doubleQuotedString', fixed(DOUBLE_QUOTED)],
  ['singleQuotedString', fixed(SINGLE_QUOTED)],
  ['quotedString', fixed(`(?:${DOUBLE_QUOTED}|${SINGLE_QUOTED})`)],
  ['uuid', fixed('[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}')],
  ['mac', fixed('(?:(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}|(?:[0-9A-Fa-f]{4}\\.){2}[0-9A-Fa-f]{4})')],
  ['ipv4', fixed(IPV4)],
  ['ipv6', fixed(IPV6)],
  ['ip', fixed(`(?:${IPV6}|${IPV4})`)],
  ['hostname', fixed(HOSTNAME)],
  ['ipOrHost', fixed(`(?:${IPV6}|${IPV4}|${HOSTNAME})`)],
  ['port', fixed('\\b(?:[1-9]\\d{0,4}|0)\\b')],
]);

/** `boolean` matches true / false in any case; `boolean("yes", "no")` its own two patterns. */
function booleanMatcher(args: readonly string[]): Matcher {
  if (args.length === 0) return { source: '(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])', convert: (t) => t.toLowerCase() === 'true' };
  const yes = translateJavaRegex(args[0] as string).source;
  const no = translateJavaRegex(args[1] ?? 'false').source;
  const isYes = new RegExp(`^(?:${yes})$`);
  return { source: `(?:${yes}|${no})`, convert: (t) => isYes.test(t) };
}

/** The matcher `name(args)`; undefined when `name` is no built-in (it may be a rule). */
export function builtInMatcher(name: string, args: readonly string[]): Matcher | undefined {
  switch (name) {
    case 'regex': {
      if (args.length !== 1) throw new MatcherError('regex takes one pattern');
      const t = translateJavaRegex(args[0] as string);
      return { source: t.source, convert: text, ignoreCase: t.ignoreCase };
    }
    case 'date': {
      if (args.length < 1) throw new MatcherError('date takes a pattern');
      const date = compileDatePattern(args[0] as string, args[1]);
      return { source: date.source, convert: (t) => date.read(t) };
    }
    case 'boolean':
      return booleanMatcher(args);
    default:
      return BUILT_IN.get(name);
  }
}
