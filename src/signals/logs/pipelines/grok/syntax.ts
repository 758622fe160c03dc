/**
 * The text of grok rules: one `name pattern` per line, and inside a pattern the
 * `%{matcher(args):extract:filter(args)}` blocks between pieces of regular expression. Arguments
 * are double-quoted strings (`\\` and `\"` escaped, other escapes kept for the regex they hold)
 * or bare words and numbers.
 */

export class GrokSyntaxError extends Error {}

export interface Call {
  name: string;
  /** Quoted arguments, unescaped. */
  args: string[];
  /** Unquoted arguments (`scale(1000)`, a filter inside `array(…)`, with its own arguments: `nullIf("")`). */
  bare: string[];
}

export interface Block {
  matcher: Call;
  extract: string;
  filter: Call | undefined;
}

export type Piece = { kind: 'regex'; text: string } | { kind: 'block'; block: Block };

export interface RuleText {
  name: string;
  pattern: string;
}

/** `name pattern` lines; blank lines and `#` comments are skipped. */
export function ruleLines(text: string): RuleText[] {
  const rules: RuleText[] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = /^(\S+)\s+(.*)$/s.exec(trimmed);
    if (!m) throw new GrokSyntaxError(`the rule "${trimmed}" has no pattern`);
    rules.push({ name: m[1] as string, pattern: (m[2] as string).trim() });
  }
  return rules;
}

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  error(message: string): GrokSyntaxError {
    return new GrokSyntaxError(`${message} at character ${this.at + 1} of ${JSON.stringify(this.text)}`);
  }

  word(): string {
    const m = /^[A-Za-z0-9_.@-]*/.exec(this.text.slice(this.at)) as RegExpExecArray;
    this.at += m[0].length;
    return m[0];
  }

  /** A double-quoted string; Datadog escapes the quote and the backslash, other escapes are the regex's. */
  quoted(): string {
    this.at++;
    let out = '';
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) throw this.error('a quote is not closed');
      this.at++;
      if (c === '"') return out;
      if (c === '\\') {
        const next = this.text[this.at];
        if (next === '\\' || next === '"') {
          out += next;
          this.at++;
          continue;
        }
      }
      out += c;
    }
  }

  /** `(args)` after a matcher or filter name. */
  args(call: Call): void {
    if (this.text[this.at] !== '(') return;
    this.at++;
    for (;;) {
      while (this.text[this.at] === ' ') this.at++;
      const c = this.text[this.at];
      if (c === ')') {
        this.at++;
        return;
      }
      if (c === undefined) throw this.error('")" is missing');
      if (c === '"' || c === '“' || c === '”') {
        if (c !== '"') throw this.error('a curly quote');
        call.args.push(this.quoted());
      } else call.bare.push(this.bareArgument());
      while (this.text[this.at] === ' ') this.at++;
      if (this.text[this.at] === ',') this.at++;
    }
  }

  /** An unquoted argument, up to the `,` or `)` that ends it: a number, a name, or a filter with its own arguments (`nullIf("")`). */
  bareArgument(): string {
    const from = this.at;
    let depth = 0;
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) throw this.error('")" is missing');
      if (depth === 0 && (c === ',' || c === ')')) break;
      if (c === '"') {
        this.quoted();
        continue;
      }
      if (c === '(') depth++;
      else if (c === ')') depth--;
      this.at++;
    }
    const text = this.text.slice(from, this.at).trim();
    if (text === '') throw this.error('an argument is missing');
    return text;
  }

  call(): Call {
    const call: Call = { name: this.word(), args: [], bare: [] };
    this.args(call);
    return call;
  }

  /** After `%{`: the block up to its `}`. */
  block(): Block {
    // `%{?>notSpace:…}` (mysql, postgres, mongo): an atomic match, which here is an ordinary one (java-regex.ts)
    if (this.text.startsWith('?>', this.at)) this.at += 2;
    const matcher = this.call();
    if (matcher.name === '') throw this.error('a matcher name is missing');
    let extract = '';
    let filter: Call | undefined;
    if (this.text[this.at] === ':') {
      this.at++;
      const m = /^[^:}]*/.exec(this.text.slice(this.at)) as RegExpExecArray;
      extract = m[0].trim();
      this.at += m[0].length;
      if (this.text[this.at] === ':') {
        this.at++;
        filter = this.call();
      }
    }
    if (this.text[this.at] !== '}') throw this.error('"}" is missing');
    this.at++;
    return { matcher, extract, filter };
  }
}

/** A filter written as an argument of another (`array(",", nullIf(""))`). */
export function callOf(text: string): Call {
  const reader = new Reader(text);
  const call = reader.call();
  if (reader.at !== text.length) throw reader.error('unexpected text after the filter');
  return call;
}

/** The regex pieces and blocks of a pattern, in order. */
export function piecesOf(pattern: string): Piece[] {
  const reader = new Reader(pattern);
  const pieces: Piece[] = [];
  let regex = '';
  while (reader.at < pattern.length) {
    const c = pattern[reader.at];
    if (c === '\\' && reader.at + 1 < pattern.length) {
      regex += pattern.slice(reader.at, reader.at + 2);
      reader.at += 2;
      continue;
    }
    if (c === '%' && pattern[reader.at + 1] === '{') {
      if (regex !== '') pieces.push({ kind: 'regex', text: regex });
      regex = '';
      reader.at += 2;
      pieces.push({ kind: 'block', block: reader.block() });
      continue;
    }
    regex += c;
    reader.at++;
  }
  if (regex !== '') pieces.push({ kind: 'regex', text: regex });
  return pieces;
}
