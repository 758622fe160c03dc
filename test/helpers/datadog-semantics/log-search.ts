/**
 * Datadog's log search syntax, read and matched against logs as Datadog holds them (message,
 * status, service, source, host, tags, `@` attributes), for the rendered comparison of migrated
 * tiles. Independent of the migration's translation (tools/src/migrate/log-search.ts), which
 * rewrites the text into HyperDX's Lucene: here the text is read into a tree and matched.
 */
import { wildcardTest } from './wildcard';

/** A log as Datadog's search sees it; attribute paths are dotted (`http.status_code`). */
export interface DatadogLog {
  /** ms */
  ts: number;
  message: string;
  status: string;
  service: string;
  source: string;
  host: string;
  /** `key:value` or a bare `tag` */
  tags: string[];
  attributes: Record<string, string | number | boolean>;
}

export type Value = { kind: 'text'; text: string; quoted: boolean } | { kind: 'range'; low: number; high: number; lowIn: boolean; highIn: boolean } | { kind: 'exists' };

export type Search = { kind: 'all' } | { kind: 'field'; field: string; value: Value } | { kind: 'free'; value: Value } | { kind: 'not'; of: Search } | { kind: 'and' | 'or'; of: Search[] };

/** A word, with the length of its `field:` prefix when it has one (before any quote). */
type Token = { t: 'word'; text: string; quoted: boolean; field?: number } | { t: '(' } | { t: ')' } | { t: '-' };

/** Words (with `\` escapes, `"…"` phrases and `[a TO b]` ranges kept whole), parentheses and a leading `-`. */
function tokens(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')') {
      out.push({ t: ch });
      i++;
    } else if ((ch === '-' || ch === '!') && (out.length === 0 || /[\s(]/.test(src[i - 1] ?? ' ')) && !/[\s)]/.test(src[i + 1] ?? ' ')) {
      // `!` negates as `-` does
      out.push({ t: '-' });
      i++;
    } else if (ch === '[' || ch === '{') {
      // a range inside a field's group: `@id:(1 OR [3 TO 5])`
      const end = src.indexOf(ch === '[' ? ']' : '}', i);
      out.push({ t: 'word', text: src.slice(i, end + 1), quoted: false });
      i = end + 1;
    } else {
      let text = '';
      let quoted = false;
      let field: number | undefined;
      while (i < src.length && !/[\s()]/.test(src[i]!)) {
        const c = src[i]!;
        if (c === ':' && field === undefined && !quoted && /^@?[A-Za-z_][\w.\-@]*$/.test(text)) {
          field = text.length;
          text += c;
          i++;
          if (src[i] === '(') break;
        } else if (c === '\\' && i + 1 < src.length) {
          text += src[i + 1];
          i += 2;
        } else if (c === '"') {
          const end = src.indexOf('"', i + 1);
          text += src.slice(i + 1, end < 0 ? undefined : end);
          quoted = true;
          i = end < 0 ? src.length : end + 1;
        } else if (c === '[' && text.endsWith(':')) {
          const end = src.indexOf(']', i);
          text += src.slice(i, end + 1);
          i = end + 1;
        } else {
          text += c;
          i++;
        }
      }
      out.push({ t: 'word', text, quoted, ...(field !== undefined ? { field } : {}) });
    }
  }
  return out;
}

function termValueOf(text: string, quoted: boolean): Value {
  if (!quoted && text === '*') return { kind: 'exists' };
  const range = /^([[{])(\S+) TO (\S+)([\]}])$/.exec(text);
  if (!quoted && range) return { kind: 'range', low: range[2] === '*' ? -Infinity : Number(range[2]), high: range[3] === '*' ? Infinity : Number(range[3]), lowIn: range[1] === '[', highIn: range[4] === ']' };
  const cmp = /^(>=|<=|>|<)(-?[\d.]+)$/.exec(text);
  if (!quoted && cmp) {
    const n = Number(cmp[2]);
    return cmp[1]!.startsWith('>') ? { kind: 'range', low: n, high: Infinity, lowIn: cmp[1] === '>=', highIn: true } : { kind: 'range', low: -Infinity, high: n, lowIn: true, highIn: cmp[1] === '<=' };
  }
  return { kind: 'text', text, quoted };
}

class Reader {
  i = 0;
  constructor(readonly toks: Token[]) {}
  peek(): Token | undefined {
    return this.toks[this.i];
  }
}

const isWord = (t: Token | undefined, text: string): boolean => t?.t === 'word' && !t.quoted && t.text === text;

function atom(r: Reader, field?: string): Search {
  const t = r.toks[r.i++];
  if (t === undefined) throw new Error('unexpected end of search');
  if (t.t === '-' || isWord(t, 'NOT')) return { kind: 'not', of: atom(r, field) };
  if (t.t === '(') {
    const inner = or(r, field);
    if (r.toks[r.i++]?.t !== ')') throw new Error('")" expected');
    return inner;
  }
  if (t.t === ')') throw new Error('unexpected ")"');
  const colon = field !== undefined ? -1 : (t.field ?? -1);
  if (colon > 0) {
    const name = t.text.slice(0, colon);
    const rest = t.text.slice(colon + 1);
    if (rest === '' && r.peek()?.t === '(') {
      r.i++;
      const inner = or(r, name);
      if (r.toks[r.i++]?.t !== ')') throw new Error('")" expected');
      return inner;
    }
    return { kind: 'field', field: name, value: termValueOf(rest, t.quoted) };
  }
  return field !== undefined ? { kind: 'field', field, value: termValueOf(t.text, t.quoted) } : { kind: 'free', value: termValueOf(t.text, t.quoted) };
}

function and(r: Reader, field?: string): Search {
  const of = [atom(r, field)];
  for (;;) {
    const t = r.peek();
    if (t === undefined || t.t === ')' || isWord(t, 'OR')) break;
    if (isWord(t, 'AND')) r.i++;
    of.push(atom(r, field));
  }
  return of.length === 1 ? of[0]! : { kind: 'and', of };
}

function or(r: Reader, field?: string): Search {
  const of = [and(r, field)];
  while (isWord(r.peek(), 'OR')) {
    r.i++;
    of.push(and(r, field));
  }
  return of.length === 1 ? of[0]! : { kind: 'or', of };
}

export function readSearch(src: string): Search {
  const toks = tokens(src);
  if (toks.length === 0 || (toks.length === 1 && isWord(toks[0], '*'))) return { kind: 'all' };
  const r = new Reader(toks);
  const tree = or(r);
  if (r.i < toks.length) throw new Error(`unexpected token ${r.i} in ${src}`);
  return tree;
}

/** How HyperDX's search differs from Datadog's, where a tile says it does. */
export interface SearchModes {
  /** a wildcard value matches any value containing its text (wildcardTest) */
  contains: boolean;
  /** `""` also matches a missing attribute */
  missingIsEmpty: boolean;
  /** how a searched status is named (an event's differ from a log's) */
  status?: (text: string) => string;
  /** names whose tag and `@` attribute are one field (the bridge keeps a log's tags with its attributes) */
  shared?: readonly string[];
}

/**
 * The older event stream's plural field names (`sources:x`, `hosts:h`) as the event fields they
 * name: an event's source type and host.
 */
export const eventSearchText = (text: string): string => text.replace(/(^|[\s(-])(source|host)s:/g, '$1$2:');

export const DATADOG_SEARCH: SearchModes = { contains: false, missingIsEmpty: false };

function matchValue(value: Value, actual: string | number | boolean | undefined, modes: SearchModes): boolean {
  if (actual === undefined) return modes.missingIsEmpty && value.kind === 'text' && value.text === '';
  if (value.kind === 'exists') return true;
  if (value.kind === 'range') {
    const n = Number(actual);
    if (typeof actual === 'boolean' || Number.isNaN(n)) return false;
    return (value.lowIn ? n >= value.low : n > value.low) && (value.highIn ? n <= value.high : n < value.high);
  }
  const text = String(actual);
  if (!value.quoted && value.text.includes('*')) return wildcardTest(value.text, modes.contains)(text);
  return text === value.text;
}

/** Datadog's status names and what search accepts for them. */
const STATUS_ALIASES: Record<string, string> = { warning: 'warn', err: 'error', crit: 'critical', emerg: 'emergency', ok: 'info', success: 'info', informational: 'info' };
const statusName = (s: string): string => STATUS_ALIASES[s.toLowerCase()] ?? s.toLowerCase();

function tagValues(log: DatadogLog, key: string): string[] {
  return log.tags.flatMap((t) => {
    const colon = t.indexOf(':');
    return colon < 0 ? (t === key ? [''] : []) : t.slice(0, colon) === key ? [t.slice(colon + 1)] : [];
  });
}

/**
 * A field's value in its other form, where a tile says the two are one (`shared`): the tag `x` for
 * `@x`, the attribute `x` for the tag `x`. A log holding both is read by its own form.
 */
export function otherForm(log: DatadogLog, field: string, shared: readonly string[] = []): string | number | boolean | undefined {
  const name = field.replace(/^@/, '');
  if (!shared.includes(name)) return undefined;
  return field.startsWith('@') ? tagValues(log, name)[0] : log.attributes[name];
}

function fieldValues(log: DatadogLog, field: string, shared?: readonly string[]): (string | number | boolean)[] {
  const own = ownValues(log, field);
  const other = own.length === 0 ? otherForm(log, field, shared) : undefined;
  return other === undefined ? own : [other];
}

function ownValues(log: DatadogLog, field: string): (string | number | boolean)[] {
  if (field.startsWith('@')) {
    const v = log.attributes[field.slice(1)];
    return v === undefined ? [] : [v];
  }
  switch (field) {
    case 'service':
      return [log.service];
    case 'source':
      return [log.source];
    case 'host':
      return [log.host];
    case 'status':
      return [log.status];
    case 'message':
      return [log.message];
    default:
      return tagValues(log, field);
  }
}

/** Whether `log` meets `search`, as Datadog reads it or with HyperDX's differences a tile states (`modes`). */
export function matches(search: Search, log: DatadogLog, modes: SearchModes = DATADOG_SEARCH): boolean {
  switch (search.kind) {
    case 'all':
      return true;
    case 'not':
      return !matches(search.of, log, modes);
    case 'and':
      return search.of.every((s) => matches(s, log, modes));
    case 'or':
      return search.of.some((s) => matches(s, log, modes));
    case 'free': {
      if (search.value.kind !== 'text') return search.value.kind === 'exists';
      const text = search.value.text.toLowerCase();
      const message = log.message.toLowerCase();
      return text.includes('*') ? message.split(/\s+/).some(wildcardTest(text, false)) : message.includes(text);
    }
    case 'field': {
      if (search.field === 'status' && search.value.kind === 'text') {
        const wanted = (modes.status ?? statusName)(search.value.text);
        return search.value.text.includes('*') ? wildcardTest(search.value.text.toLowerCase(), modes.contains)(log.status) : log.status === wanted;
      }
      const values = fieldValues(log, search.field, modes.shared);
      return values.length === 0 ? matchValue(search.value, undefined, modes) : values.some((v) => matchValue(search.value, v, modes));
    }
  }
}

/** Every field a search names, with the values it compares them to (for generating logs that meet it). */
export function fieldsOf(search: Search, into = new Map<string, Value[]>()): Map<string, Value[]> {
  switch (search.kind) {
    case 'field':
      into.set(search.field, [...(into.get(search.field) ?? []), search.value]);
      break;
    case 'not':
      fieldsOf(search.of, into);
      break;
    case 'and':
    case 'or':
      for (const s of search.of) fieldsOf(s, into);
      break;
    default:
      break;
  }
  return into;
}
