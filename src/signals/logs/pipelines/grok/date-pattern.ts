/**
 * Grok's `date("pattern"[, "zone"[, "locale"]])` matcher. The pattern is a Java date pattern
 * (`dd/MMM/yyyy:HH:mm:ss Z`, `yyyy-MM-dd'T'HH:mm:ss.SSSZZ`, `MMM d HH:mm:ss`); it becomes an
 * expression that matches such text and a reader that turns the match into epoch milliseconds.
 * The zone argument applies when the text states none. A pattern without a year (syslog's
 * `MMM dd HH:mm:ss`) takes the year that puts the date nearest to now, and one without a date
 * (`HH:mm:ss.SSSSSS`) the nearest day, as Datadog's expected results show; `dateClock` is that
 * "now" (tests set it). Month and day names are English, in any case.
 */
import { escapeRegExp } from '../query';
import { parseZone, UTC, wallClockToUtc, type Zone } from './zones';

export class DatePatternError extends Error {}

type Field = 'year' | 'year2' | 'month' | 'monthName' | 'day' | 'dayOfYear' | 'hour' | 'hour12' | 'hour24' | 'hour0' | 'minute' | 'second' | 'fraction' | 'ampm' | 'dayName' | 'zone' | 'epochMs' | 'epochS';

interface Part {
  field: Field | undefined;
  source: string;
  /** Digits a numeric letter asked for (`dd` 2); such a part reads 1 to that many digits unless it touches another number. */
  digits?: number;
}

/** The clock year-less dates are read against. */
export const dateClock = { now: (): number => Date.now() };

export interface DatePattern {
  /** Matches the date text, no capturing groups (it sits inside a grok expression). */
  source: string;
  /** Epoch ms of a text `source` matched; undefined when its values are not a date. */
  read(text: string): number | undefined;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** Case-insensitive alternation of names (no `i` flag: the grok expression around it keeps its case). */
const anyCase = (word: string): string =>
  word
    .split('')
    .map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : escapeRegExp(c)))
    .join('');
const names = (list: readonly string[], short: boolean): string => `(?:${list.map((n) => anyCase(short ? n.slice(0, 3) : n)).join('|')})`;
// September is also written Sept
const SHORT_MONTHS = `(?:${anyCase('sept')}|${MONTHS.map((n) => anyCase(n.slice(0, 3))).join('|')})`;

const OFFSET_SOURCE = '(?:[Zz]|[+-]\\d{2}(?::?\\d{2}(?::?\\d{2})?)?)';
const ZONE_NAME_SOURCE = `(?:${OFFSET_SOURCE}|(?:UTC|GMT|UT)(?:[+-]\\d{1,2}(?::?\\d{2})?)?|[A-Z][A-Za-z]{1,5}(?![A-Za-z/])|[A-Za-z]+(?:/[A-Za-z0-9_+-]+)+)`;

function digits(count: number, min: number, max: number): string {
  return count >= 2 ? `\\d{${count}}` : `\\d{${min},${max}}`;
}

/**
 * Datadog reads `dd` in `Jul 2 12:24:48` (its results show it): a numeric field reads one digit
 * up to its width, as Joda-Time does, except beside another numeric field (`yyyyMMdd`), where
 * only the width separates them.
 */
function relaxWidths(parts: Part[]): Part[] {
  return parts.map((part, i) => {
    if (part.digits === undefined) return part;
    const touches = parts[i - 1]?.digits !== undefined || parts[i + 1]?.digits !== undefined;
    if (touches) return part;
    return { ...part, source: part.field === 'fraction' ? '\\d{1,9}' : `\\d{1,${Math.max(part.digits, 2)}}` };
  });
}

/** The parts of a Java date pattern. */
function partsOf(pattern: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === "'") {
      const close = pattern.indexOf("'", i + 1);
      if (close === i + 1) {
        parts.push({ field: undefined, source: "'" });
        i += 2;
        continue;
      }
      if (close < 0) throw new DatePatternError(`date pattern "${pattern}": a quote is not closed`);
      parts.push({ field: undefined, source: escapeRegExp(pattern.slice(i + 1, close)) });
      i = close + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      parts.push({ field: undefined, source: escapeRegExp(c) });
      i++;
      continue;
    }
    let count = 1;
    while (pattern[i + count] === c) count++;
    parts.push(letterPart(c, count, pattern));
    i += count;
  }
  return parts;
}

/** Numeric letters read as plain numbers: their field and their widest value in digits. */
const NUMERIC: Readonly<Record<string, [Field, number]>> = { d: ['day', 2], D: ['dayOfYear', 3], H: ['hour', 2], k: ['hour24', 2], h: ['hour12', 2], K: ['hour0', 2], m: ['minute', 2], s: ['second', 2] };

function letterPart(letter: string, count: number, pattern: string): Part {
  const numeric = NUMERIC[letter];
  if (numeric) return { field: numeric[0], source: digits(count, 1, numeric[1]), digits: count };
  switch (letter) {
    case 'y':
    case 'u':
    case 'Y':
      return count === 2 ? { field: 'year2', source: '\\d{2}' } : { field: 'year', source: count >= 4 ? '\\d{4}' : '\\d{1,4}' };
    case 'M':
    case 'L':
      if (count >= 4) return { field: 'monthName', source: names(MONTHS, false) };
      if (count === 3) return { field: 'monthName', source: SHORT_MONTHS };
      return { field: 'month', source: digits(count, 1, 2), digits: count };
    case 'S':
    case 'n':
      return { field: 'fraction', source: `\\d{${count}}`, digits: count };
    case 'a':
      return { field: 'ampm', source: '[AaPp][Mm]' };
    case 'E':
      return { field: 'dayName', source: count >= 4 ? names(DAYS, false) : names(DAYS, true) };
    case 'e':
    case 'c':
      return count >= 3 ? { field: 'dayName', source: names(DAYS, count === 3) } : { field: undefined, source: '\\d' };
    case 'Z':
    case 'X':
    case 'x':
      return { field: 'zone', source: count >= 3 && letter === 'Z' ? ZONE_NAME_SOURCE : OFFSET_SOURCE };
    case 'z':
    case 'V':
    case 'O':
      return { field: 'zone', source: ZONE_NAME_SOURCE };
    default:
      throw new DatePatternError(`date pattern "${pattern}": the letter ${letter} is not supported`);
  }
}

interface Values {
  year?: number;
  month?: number;
  day?: number;
  dayOfYear?: number;
  hour: number;
  minute: number;
  second: number;
  fractionMs: number;
  pm?: boolean;
  zone?: Zone;
}

function assign(values: Values, field: Field, text: string): boolean {
  switch (field) {
    case 'year':
      values.year = Number(text);
      return true;
    case 'year2':
      values.year = 2000 + Number(text);
      return true;
    case 'month':
      values.month = Number(text);
      return true;
    case 'monthName': {
      const lower = text.toLowerCase();
      values.month = MONTHS.findIndex((m) => m.startsWith(lower.slice(0, 3))) + 1;
      return values.month > 0;
    }
    case 'day':
      values.day = Number(text);
      return true;
    case 'dayOfYear':
      values.dayOfYear = Number(text);
      return true;
    case 'hour':
    case 'hour24':
      values.hour = Number(text) % 24;
      return true;
    case 'hour12':
      values.hour = Number(text) % 12;
      return true;
    case 'hour0':
      values.hour = Number(text);
      return true;
    case 'minute':
      values.minute = Number(text);
      return true;
    case 'second':
      values.second = Number(text);
      return true;
    case 'fraction':
      values.fractionMs = Number(`0.${text}`) * 1000;
      return true;
    case 'ampm':
      values.pm = text.toLowerCase() === 'pm';
      return true;
    case 'zone':
      values.zone = parseZone(text);
      return values.zone !== undefined;
    default:
      return true;
  }
}

const DAY_MS = 86_400_000;

/** Of `candidates` (epoch ms), the one nearest `now`. */
const nearest = (candidates: readonly number[], now: number): number => candidates.reduce((best, c) => (Math.abs(c - now) < Math.abs(best - now) ? c : best));

function toEpochMs(v: Values, defaultZone: Zone): number | undefined {
  const hour = v.pm === undefined ? v.hour : v.hour + (v.pm ? 12 : 0);
  const now = dateClock.now();
  const zone = v.zone ?? defaultZone;
  const time = Date.UTC(1970, 0, 1, hour, v.minute, v.second) + Math.floor(v.fractionMs);
  if (hour > 23 || v.minute > 59 || v.second > 60) return undefined;
  // a day of the year names no date without its year (keda's `MMDD`): only the time is read
  const dated = v.year !== undefined || (v.dayOfYear === undefined && (v.month !== undefined || v.day !== undefined));
  if (!dated) {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    return nearest(
      [-DAY_MS, 0, DAY_MS].map((d) => wallClockToUtc(today + d + time, zone)),
      now,
    );
  }
  const month = v.dayOfYear !== undefined ? 1 : (v.month ?? 1);
  const day = v.dayOfYear ?? v.day ?? 1;
  if (month < 1 || month > 12 || day < 1 || (v.dayOfYear === undefined && day > 31)) return undefined;
  const at = (year: number): number | undefined => {
    const wall = Date.UTC(year, month - 1, day) + time;
    // a day past the month's end (Feb 30) rolls over in Date.UTC: not a date
    if (v.dayOfYear === undefined && new Date(wall).getUTCDate() !== day) return undefined;
    return wallClockToUtc(wall, zone);
  };
  if (v.year !== undefined) return at(v.year);
  const thisYear = new Date(now).getUTCFullYear();
  const candidates = [thisYear - 1, thisYear, thisYear + 1].map(at).filter((t): t is number => t !== undefined);
  return candidates.length === 0 ? undefined : nearest(candidates, now);
}

/** `date("pattern", "zone")`: what the matcher matches and how its text becomes epoch milliseconds. */
export function compileDatePattern(pattern: string, zone?: string): DatePattern {
  const parts = relaxWidths(partsOf(pattern));
  const defaultZone = zone === undefined || zone === '' ? UTC : parseZone(zone);
  if (defaultZone === undefined) throw new DatePatternError(`date pattern "${pattern}": "${zone}" is not a time zone`);
  const fields = parts.filter((p) => p.field !== undefined).map((p) => p.field as Field);
  const reader = new RegExp(`^${parts.map((p) => (p.field === undefined ? p.source : `(${p.source})`)).join('')}$`);
  const read = (text: string): number | undefined => {
    const m = reader.exec(text);
    if (!m) return undefined;
    const values: Values = { hour: 0, minute: 0, second: 0, fractionMs: 0 };
    for (let i = 0; i < fields.length; i++) if (!assign(values, fields[i] as Field, m[i + 1] as string)) return undefined;
    return toEpochMs(values, defaultZone);
  };
  return { source: parts.map((p) => p.source).join(''), read: fields.some(isAbsolute) ? rememberLast(read) : read };
}

/** Fields that fix the instant whatever "now" is: a text with one reads the same at any time. */
const isAbsolute = (field: Field): boolean => field === 'year' || field === 'year2' || field === 'epochMs' || field === 'epochS';

/** `read` remembering its last text: a server's lines come in bursts that share their second. */
function rememberLast(read: (text: string) => number | undefined): (text: string) => number | undefined {
  let lastText: string | undefined;
  let last: number | undefined;
  return (text) => {
    if (text !== lastText) {
      last = read(text);
      lastText = text;
    }
    return last;
  };
}
