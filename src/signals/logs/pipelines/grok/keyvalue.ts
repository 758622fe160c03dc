/**
 * Grok's `keyvalue([separator[, whitelist[, quoting[, delimiters]]]])` filter (logfmt and the
 * like): `key<separator>value` pairs between delimiters (space, `,`, `;` unless given). Unquoted
 * values are word characters, `.`, `-`, `@` and the whitelist; quoted ones (`""`, `''`, `<>`, or
 * the quoting pairs given) are anything up to the closing quote. When the whitelist lets a value
 * hold a delimiter (`" "`), the value stops before the delimiter that precedes the next key.
 * Empty and `null` values are left out; unquoted numbers become numbers, quoted values stay text
 * (Datadog's results keep `duration="0"` as "0").
 */
import type { JsonValue } from '../../../../core/wire/json';

const DURATION = /^(\d+(?:\.\d+)?)(ms|s)$/;

const escapeClass = (chars: string): string => chars.replace(/[\]\\^-]/g, '\\$&');
const escapeText = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export interface KeyValueOptions {
  separator: string;
  whitelist: string;
  quoting: string;
  delimiters: string;
}

/** Java-style escapes in a filter argument (`\\[` is a whitelisted `[`). */
const unescapeArg = (s: string): string => s.replace(/\\(.)/g, '$1');

export function keyValueOptions(args: readonly string[]): KeyValueOptions {
  return {
    separator: args[0] === undefined || args[0] === '' ? '=' : args[0],
    whitelist: unescapeArg(args[1] ?? ''),
    quoting: args[2] ?? '',
    delimiters: args[3] === undefined || args[3] === '' ? ' \t\r\n,;' : args[3],
  };
}

export class KeyValueParser {
  private readonly pattern: RegExp;
  private readonly quotePairs: [string, string][];

  constructor(options: KeyValueOptions) {
    const { separator, whitelist, quoting, delimiters } = options;
    this.quotePairs =
      quoting === ''
        ? [
            ['"', '"'],
            ["'", "'"],
            ['<', '>'],
          ]
        : pairsOf(quoting);
    const keyExtra = [...whitelist].filter((c) => !delimiters.includes(c) && !/\s/.test(c) && !separator.includes(c)).join('');
    const key = `[\\w.\\-@${escapeClass(keyExtra)}]+`;
    const valueChars = `[\\w.\\-@${escapeClass(whitelist)}]`;
    const delimiter = `[${escapeClass(delimiters)}]`;
    const quoted = this.quotePairs.map(([open, close]) => `${escapeText(open)}([^${escapeClass(close)}]*)${escapeText(close)}`).join('|');
    const sep = escapeText(separator);
    // an unquoted value that may hold a delimiter ends where the next `key<separator>` starts
    const holdsDelimiter = [...delimiters].some((c) => whitelist.includes(c));
    // when it may even hold a blank, only blanks and the delimiters it does not let in end it
    // (delinea's `…251]; suid=2` keeps its `;`, nginx's `client: 1.2.3.4, server:` drops its `,`)
    const ending = whitelist.includes(' ') ? `[${escapeClass([...delimiters].filter((c) => /\s/.test(c) || !whitelist.includes(c)).join(''))}]` : delimiter;
    // an unquoted value must end at a delimiter or the end (`caller=cluster.go:649` gives nothing,
    // as in Datadog's results); the lookahead-and-backreference pair takes the run whole, never backtracking
    const runGroup = this.quotePairs.length + 2;
    const unquoted = holdsDelimiter ? `(${valueChars}*?)(?=${ending}+${key}${sep}|$)` : `(?=(${valueChars}*))\\${runGroup}(?=${delimiter}|$)`;
    this.pattern = new RegExp(`(?<![\\w.\\-@${escapeClass(keyExtra)}])(${key})${sep}(?:${quoted}|${unquoted})`, 'g');
  }

  /**
   * An unquoted number becomes a number (`11.0` → 11), `true` / `false` a boolean, and a duration
   * in seconds or milliseconds its whole milliseconds (gitlab's `elapsed=10.013689387s` is 10013,
   * calico's `avg=263ms` 263, argocd's `0s` 0; a `3m0s` stays text); quoted values stay text.
   */
  private static valueOf(text: string, quoted: boolean): JsonValue {
    if (quoted) return text;
    if (text === 'true' || text === 'false') return text === 'true';
    const duration = DURATION.exec(text);
    if (duration) return Math.trunc(Number(duration[1]) * (duration[2] === 's' ? 1000 : 1));
    if (!/^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/.test(text)) return text;
    const n = Number(text);
    return Number.isSafeInteger(Math.trunc(n)) ? n : text;
  }

  parse(text: string): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    this.pattern.lastIndex = 0;
    for (let m = this.pattern.exec(text); m !== null; m = this.pattern.exec(text)) {
      if (m[0] === '') this.pattern.lastIndex++;
      const key = m[1] as string;
      let value: string | undefined;
      let group = 0;
      for (let g = 2; g < m.length; g++)
        if (m[g] !== undefined) {
          value = m[g];
          group = g;
        }
      if (value === undefined || value === '' || value === 'null') continue;
      // trimmed once found: a quoted blank is kept as '' (checkpoint's `additional_info:" "`)
      out[key] = KeyValueParser.valueOf(value.trim(), group < m.length - 1);
    }
    return out;
  }
}

/** `"{}"` → [["{","}"]]; an odd character stands for itself on both sides. */
function pairsOf(quoting: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < quoting.length; i += 2) {
    const open = quoting[i] as string;
    pairs.push([open, quoting[i + 1] ?? open]);
  }
  return pairs;
}
