/**
 * `text_correlation`: a plain-text line written under trace injection carries its correlation in
 * the text: Python's logging (`[dd.service=… dd.env=… dd.version=… dd.trace_id=… dd.span_id=…]`),
 * logback / log4j2 MDC patterns (`{dd.span_id=…, dd.trace_id=…}`), Go's slog and logrus text
 * handlers (`dd.trace_id=… dd.span_id=…`), dd-trace-js under winston's text format
 * (`warn: large order {"dd":{"trace_id":…}}`). Datadog's per-language log pipelines read those groups
 * and the layout's level; this step does the same, so such a line joins its trace and keeps its
 * level. What it finds becomes the fields the later steps already read (`dd.trace_id`,
 * `dd.service`, `status`, …): ids found in text are parsed, widened to 128 bits and consumed
 * exactly as field ids are, and the body stays exactly as sent. A field the entry carries beats
 * the text's; the text's level beats the envelope's status, which for such a line is the agent's
 * default (`info`, or `error` for anything a container wrote to stderr) rather than the logger's.
 * The time the layout writes becomes the record's time (text-time.ts), in place of the agent's
 * read time the envelope's `timestamp` carries.
 *
 * A line is read for its level when it carries an injected group or its `ddsource` names a
 * language whose layouts these are (LANGUAGE_SOURCES); any other line without a group costs one
 * indexOf over it and keeps the envelope's status.
 */
import type { JsonValue } from '../../core/wire/json';
import { scalarText } from '../shared/attributes';
import { parseSpanIdText, parseTraceIdText } from '../shared/trace-id';
import { SOURCE_KEYS, TIMESTAMP_KEYS } from './datadog';
import { messageKeyOf, type LogStep } from './draft';
import { FieldsBuilder, type FieldMap } from './fields';
import { quoteBigIds } from './parse';
import { severityOf } from './severity';
import { textTime } from './text-time';
import { timestampToNs } from './timestamps';

/** What may follow `dd.` (or sit in a `"dd":{…}` object), and whether a value is worth a field: ids must parse (Python writes `dd.trace_id=0` outside a span). */
const INJECTED: readonly [string, (value: string) => boolean][] = [
  ['trace_id', (v) => parseTraceIdText(v) !== undefined],
  ['span_id', (v) => parseSpanIdText(v) !== undefined],
  ['service', (v) => v !== ''],
  ['env', (v) => v !== ''],
  ['version', (v) => v !== ''],
];

const QUOTE = 0x22;
const DOT = 0x2e;
const EQUALS = 0x3d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const BACKSLASH = 0x5c;
/** A `"dd":{…}` object longer than this is not read (the scan for its end is what it would cost). */
const MAX_DD_OBJECT = 4096;

/** Characters after which `dd.` starts a key: line start, space, `[`, `{`, `(`, `,`, `"`, `|`, `;`. */
const isKeyStart = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x5b || c === OPEN_BRACE || c === 0x28 || c === 0x2c || c === QUOTE || c === 0x7c || c === 0x3b;
/** Characters that end an unquoted value: space, `]`, `}`, `)`, `,`, `"`, `|`, `;`. */
const isValueEnd = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x5d || c === CLOSE_BRACE || c === 0x29 || c === 0x2c || c === QUOTE || c === 0x7c || c === 0x3b;

/** The value starting at `from`: up to the closing quote when quoted (slog quotes values with spaces), else up to a delimiter. */
function valueAt(text: string, from: number): string {
  if (text.charCodeAt(from) === QUOTE) {
    const close = text.indexOf('"', from + 1);
    return close < 0 ? '' : text.slice(from + 1, close);
  }
  let end = from;
  while (end < text.length && !isValueEnd(text.charCodeAt(end))) end++;
  return text.slice(from, end);
}

/** Index just past the `}` closing the object that opens at `from` (strings and escapes skipped); -1 when it does not close soon. */
function objectEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  const last = Math.min(text.length, from + MAX_DD_OBJECT);
  for (let i = from; i < last; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE) depth++;
    else if (c === CLOSE_BRACE && --depth === 0) return i + 1;
  }
  return -1;
}

/** `"dd":{…}` as dd-trace-js writes it into winston's and bunyan's text formats: the object at `from` ("{"), parsed. */
function ddObjectAt(text: string, from: number): Record<string, JsonValue> | undefined {
  const end = objectEnd(text, from);
  if (end < 0) return undefined;
  try {
    const value = JSON.parse(quoteBigIds(text.slice(from, end))) as JsonValue;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Index of the `{` after `"dd"` + optional spaces + `:` + optional spaces, or -1. */
function ddObjectStart(text: string, from: number): number {
  let i = from;
  while (text.charCodeAt(i) === 0x20) i++;
  if (text.charCodeAt(i) !== 0x3a) return -1;
  i++;
  while (text.charCodeAt(i) === 0x20) i++;
  return text.charCodeAt(i) === OPEN_BRACE ? i : -1;
}

function keep(found: Map<string, string>, name: string, value: string, worth: (value: string) => boolean): void {
  const field = `dd.${name}`;
  if (worth(value) && !found.has(field)) found.set(field, value);
}

/**
 * The injected groups in `text` as field keys and values (`dd.trace_id` → text), the first of
 * each key winning: `dd.<key>=<value>` pairs, and the `"dd":{"trace_id":…}` object dd-trace-js
 * puts into text formats. Undefined when the text has no such group; an empty map when it has
 * only ones not worth a field (`dd.trace_id=0`). One indexOf walk over `dd`.
 */
export function injectedFields(text: string): Map<string, string> | undefined {
  let found: Map<string, string> | undefined;
  for (let at = text.indexOf('dd'); at >= 0; at = text.indexOf('dd', at + 2)) {
    const next = text.charCodeAt(at + 2);
    const before = at > 0 ? text.charCodeAt(at - 1) : 0x20;
    if (next === DOT && isKeyStart(before)) {
      const keyAt = at + 3;
      for (const [name, worth] of INJECTED) {
        if (!text.startsWith(name, keyAt) || text.charCodeAt(keyAt + name.length) !== EQUALS) continue;
        found ??= new Map();
        keep(found, name, valueAt(text, keyAt + name.length + 1).trim(), worth);
        break;
      }
    } else if (next === QUOTE && before === QUOTE) {
      const open = ddObjectStart(text, at + 3);
      const object = open < 0 ? undefined : ddObjectAt(text, open);
      if (object !== undefined) {
        found ??= new Map();
        for (const [name, worth] of INJECTED) keep(found, name, scalarText(object[name]) ?? '', worth);
      }
    }
  }
  return found;
}

/** Where the layouts put the level: after a timestamp, a thread, a pid. */
const LEVEL_WINDOW = 256;

/** Level words → names severity.ts knows. Upper case only: in prose, "error" is a word, not a level. */
const LEVEL_WORDS: ReadonlyMap<string, string> = new Map(
  (
    [
      ['trace', ['TRACE', 'FINEST', 'FINER', 'VERBOSE', 'VRB']],
      ['debug', ['DEBUG', 'DBG', 'FINE']],
      ['info', ['INFO', 'INF', 'INFORMATION']],
      ['notice', ['NOTICE']],
      ['warn', ['WARN', 'WARNING', 'WRN']],
      ['error', ['ERROR', 'ERR', 'SEVERE']],
      ['critical', ['CRITICAL', 'CRIT']],
      ['alert', ['ALERT']],
      ['fatal', ['FATAL', 'FTL', 'EMERGENCY', 'EMERG', 'PANIC']],
    ] as const
  ).flatMap(([name, words]) => words.map((w) => [w, name] as const)),
);

/**
 * Lower-case levels a layout starts the line with, before a colon: .NET's console logger
 * (`fail: Shop.Checkout[0]`) and winston's simple format (`warn: large order {…}`).
 */
const LINE_START_LEVELS: ReadonlyMap<string, string> = new Map([
  ['trce', 'trace'],
  ['dbug', 'debug'],
  ['info', 'info'],
  ['warn', 'warn'],
  ['fail', 'error'],
  ['crit', 'critical'],
  ['silly', 'trace'],
  ['verbose', 'debug'],
  ['debug', 'debug'],
  ['http', 'info'],
  ['error', 'error'],
]);
const LONGEST_LINE_START = 7;

/** A LINE_START_LEVELS word and a colon at the very start of `text`. */
function lineStartLevel(text: string): string | undefined {
  for (let i = 1; i <= LONGEST_LINE_START && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) return LINE_START_LEVELS.get(text.slice(0, i));
    if (c < 0x61 || c > 0x7a) return undefined;
  }
  return undefined;
}

/**
 * The first level the layouts write: a level word standing alone (Python `ERROR:root:` and
 * `… ERROR [name]`, logback / log4j2 `[main] ERROR c.x.Y -`, Go log/slog `2026/11/26 10:00:00 ERROR`,
 * Ruby `E, […] ERROR -- :`, NLog `|ERROR|`, Monolog `app.ERROR:`, Serilog `[10:00:00 ERR]`), or a
 * `level=` / `lvl=` key in any case (slog and logrus text, logfmt). A hand-written pass over the
 * characters measured slower than this expression (V8 compiles it to native code), so it stays.
 */
const LEVEL = new RegExp(`(?:^|[\\s[|(.=<])(${[...LEVEL_WORDS.keys()].join('|')})(?=$|[\\s\\]|:,)>])|\\b(?:level|lvl)=["']?([A-Za-z]+)`);

/** The level a text line's layout states, as a severity.ts name; undefined when it states none. */
export function textLevel(text: string): string | undefined {
  const atStart = lineStartLevel(text);
  if (atStart !== undefined) return atStart;
  const m = LEVEL.exec(text.length > LEVEL_WINDOW ? text.slice(0, LEVEL_WINDOW) : text);
  if (m === null) return undefined;
  if (m[1] !== undefined) return LEVEL_WORDS.get(m[1]);
  // a `level=` value that names no level (`level=foo`) must not replace the envelope's status
  const named = (m[2] as string).toLowerCase();
  return severityOf(named).number > 0 ? named : undefined;
}

/**
 * `ddsource` values whose loggers write the layouts above: Datadog's pipeline for such a source
 * reads their level even without trace injection (logback's default layout has no MDC), so
 * their lines are searched for one too. Other sources (nginx, syslog, …) are left alone unless
 * the line carries an injected group.
 */
const LANGUAGE_SOURCES: ReadonlySet<string> = new Set(['python', 'java', 'go', 'ruby', 'csharp', 'dotnet', 'php', 'nodejs', 'node']);

const isLanguageSource = (source: JsonValue | undefined): boolean => typeof source === 'string' && LANGUAGE_SOURCES.has(source);

/** A message that is a JSON object is decode_json_message's, whose fields say all this already. */
function isJsonObjectText(text: string): boolean {
  const first = text.charCodeAt(0);
  // trim() only for a line that starts with a brace or blank: the usual line is decided by its first character
  if (first !== 0x7b && first > 0x20) return false;
  const t = text.trim();
  return t.startsWith('{') && t.endsWith('}');
}

/** `fields` with `added` set into them (a later key replaces an earlier one in place). */
function withFields(fields: FieldMap, added: ReadonlyMap<string, JsonValue>): FieldMap {
  const builder = new FieldsBuilder();
  fields.forEach((value, key) => {
    builder.set(key, value);
  });
  added.forEach((value, key) => {
    builder.set(key, value);
  });
  return builder.build();
}

export const textCorrelation: LogStep = (draft, ctx) => {
  if (!ctx.textCorrelation) return draft;
  const { fields } = draft;
  const messageKey = messageKeyOf(fields);
  const text = messageKey === undefined ? undefined : fields.get(messageKey);
  if (typeof text !== 'string' || isJsonObjectText(text)) return draft;
  // a line with neither an injected group nor a language source costs the one indexOf
  const injected = injectedFields(text);
  if (injected === undefined && !isLanguageSource(fields.get(SOURCE_KEYS[0]))) return draft;
  const level = textLevel(text);
  const added = new Map<string, JsonValue>();
  injected?.forEach((value, key) => {
    if (!fields.has(key)) added.set(key, value);
  });
  if (level !== undefined) added.set('status', level);
  if (added.size > 0) draft.fields = withFields(fields, added);
  const written = textTime(text, timestampToNs(fields.get(TIMESTAMP_KEYS[0])) ?? draft.receivedAtNs);
  if (written !== undefined) draft.timeUnixNano = written;
  return draft;
};
