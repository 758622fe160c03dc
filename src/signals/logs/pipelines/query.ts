/**
 * Datadog's log search syntax, as pipeline filters, category processors and array `select`
 * operations write it: `source:nginx`, `@http.status_code:[400 TO 499]`, `@evt.name:(a OR b)`,
 * `-@error.kind:*`, `"connection refused"`, `service:web-*`, `@duration:>=1e9`. A query parses
 * once into this tree (parseQuery); query-match.ts evaluates it against a log.
 */

/** A value to compare with: its text (escapes removed) and, when it has `*` or `?` wildcards, the expression they make. */
export interface ValuePattern {
  text: string;
  wildcard: RegExp | undefined;
}

export type ValueTest = { kind: 'exists' } | { kind: 'equals'; pattern: ValuePattern } | { kind: 'range'; low: string; high: string; lowInclusive: boolean; highInclusive: boolean } | { kind: 'compare'; op: '>' | '>=' | '<' | '<='; value: number };

/** `@path` (an attribute), a reserved name (source, service, host, status) or a tag key. */
export interface FieldRef {
  attribute: boolean;
  name: string;
}

export type Query = { kind: 'all' } | { kind: 'and'; of: Query[] } | { kind: 'or'; of: Query[] } | { kind: 'not'; of: Query } | { kind: 'text'; pattern: ValuePattern; phrase: boolean } | { kind: 'field'; field: FieldRef; test: ValueTest };

export class QuerySyntaxError extends Error {}

const MATCH_ALL: Query = { kind: 'all' };

/** The query `text` states; an empty query or `*` matches every log. */
export function parseQuery(text: string): Query {
  const parser = new QueryParser(text);
  const query = parser.parseAll();
  return query;
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
/** Characters that end a bare term. */
const isTermEnd = (c: string | undefined): boolean => c === undefined || isSpace(c) || c === '(' || c === ')';

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

class QueryParser {
  private at = 0;

  constructor(private readonly text: string) {}

  parseAll(): Query {
    this.skipSpaces();
    if (this.at >= this.text.length) return MATCH_ALL;
    const query = this.parseOr(undefined);
    this.skipSpaces();
    if (this.at < this.text.length) throw this.error(`unexpected "${this.text[this.at]}"`);
    return query;
  }

  private error(message: string): QuerySyntaxError {
    return new QuerySyntaxError(`query "${this.text}": ${message} at character ${this.at + 1}`);
  }

  private skipSpaces(): void {
    while (isSpace(this.text[this.at])) this.at++;
  }

  /** `word` as a standalone keyword at the cursor (AND, OR, NOT). */
  private atKeyword(word: string): boolean {
    return this.text.startsWith(word, this.at) && isTermEnd(this.text[this.at + word.length]);
  }

  private parseOr(field: FieldRef | undefined): Query {
    const of = [this.parseAnd(field)];
    for (;;) {
      this.skipSpaces();
      if (!this.atKeyword('OR')) break;
      this.at += 2;
      of.push(this.parseAnd(field));
    }
    return of.length === 1 ? (of[0] as Query) : { kind: 'or', of };
  }

  private parseAnd(field: FieldRef | undefined): Query {
    const of = [this.parseUnary(field)];
    for (;;) {
      this.skipSpaces();
      if (this.at >= this.text.length || this.text[this.at] === ')' || this.atKeyword('OR')) break;
      if (this.atKeyword('AND')) this.at += 3;
      of.push(this.parseUnary(field));
    }
    return of.length === 1 ? (of[0] as Query) : { kind: 'and', of };
  }

  private parseUnary(field: FieldRef | undefined): Query {
    this.skipSpaces();
    if (this.atKeyword('NOT')) {
      this.at += 3;
      return { kind: 'not', of: this.parseUnary(field) };
    }
    const c = this.text[this.at];
    if ((c === '-' || c === '!') && !isTermEnd(this.text[this.at + 1])) {
      this.at++;
      return { kind: 'not', of: this.parseUnary(field) };
    }
    return this.parsePrimary(field);
  }

  private parsePrimary(field: FieldRef | undefined): Query {
    this.skipSpaces();
    const c = this.text[this.at];
    if (c === undefined) throw this.error('a term is missing');
    if (c === '(') return this.group(field);
    if (c === '"') {
      const pattern = this.quoted();
      return field ? { kind: 'field', field, test: { kind: 'equals', pattern } } : { kind: 'text', pattern, phrase: true };
    }
    if (field) return { kind: 'field', field, test: this.valueTest() };
    return this.termOrField();
  }

  /** `( … )` at the cursor; inside it, bare terms test `field` when there is one (`@a:(x OR y)`). */
  private group(field: FieldRef | undefined): Query {
    this.at++;
    const inner = this.parseOr(field);
    this.skipSpaces();
    if (this.text[this.at] !== ')') throw this.error('")" is missing');
    this.at++;
    return inner;
  }

  /** `key:value` or a free-text word. */
  private termOrField(): Query {
    const start = this.at;
    let key = '';
    while (!isTermEnd(this.text[this.at])) {
      const c = this.text[this.at] as string;
      if (c === '\\') {
        key += this.text[this.at + 1] ?? '';
        this.at += 2;
        continue;
      }
      if (c === ':') break;
      key += c;
      this.at++;
    }
    if (this.text[this.at] !== ':') {
      this.at = start;
      return { kind: 'text', pattern: this.bare(), phrase: false };
    }
    this.at++;
    // Datadog accepts a space after the colon (`@severity: "#"`)
    this.skipSpaces();
    const field: FieldRef = key.startsWith('@') ? { attribute: true, name: key.slice(1) } : { attribute: false, name: key };
    if (key === '_exists_') return { kind: 'field', field: { attribute: true, name: this.bare().text }, test: { kind: 'exists' } };
    if (this.text[this.at] === '(') return this.group(field);
    return { kind: 'field', field, test: this.valueTest() };
  }

  private valueTest(): ValueTest {
    const c = this.text[this.at];
    if (c === '[' || c === '{') return this.range();
    if (c === '"') return { kind: 'equals', pattern: this.quoted() };
    const compare = /^(>=|<=|>|<)/.exec(this.text.slice(this.at, this.at + 2));
    if (compare) {
      this.at += (compare[1] as string).length;
      const value = this.bare().text;
      const n = Number(value);
      if (value === '' || Number.isNaN(n)) throw this.error(`"${value}" is not a number`);
      return { kind: 'compare', op: compare[1] as '>' | '>=' | '<' | '<=', value: n };
    }
    const pattern = this.bare();
    if (pattern.text === '*' && pattern.wildcard) return { kind: 'exists' };
    return { kind: 'equals', pattern };
  }

  private range(): ValueTest {
    const lowInclusive = this.text[this.at] === '[';
    const close = this.text.slice(this.at).search(/[\]}]/);
    if (close < 0) throw this.error('the range is not closed');
    const body = this.text.slice(this.at + 1, this.at + close);
    const highInclusive = this.text[this.at + close] === ']';
    const m = /^\s*(\S+)\s+TO\s+(\S+)\s*$/.exec(body);
    if (!m) throw this.error(`"${body}" is not a range (a TO b)`);
    this.at += close + 1;
    return { kind: 'range', low: m[1] as string, high: m[2] as string, lowInclusive, highInclusive };
  }

  /** A bare value up to a space or parenthesis: `\` escapes a character, `*` and `?` are wildcards. */
  private bare(): ValuePattern {
    let text = '';
    let source = '';
    let wild = false;
    while (!isTermEnd(this.text[this.at])) {
      const c = this.text[this.at] as string;
      if (c === '\\' && this.at + 1 < this.text.length) {
        const next = this.text[this.at + 1] as string;
        text += next;
        source += escapeRegExp(next);
        this.at += 2;
        continue;
      }
      if (c === '*' || c === '?') {
        wild = true;
        source += c === '*' ? '[\\s\\S]*' : '[\\s\\S]';
      } else source += escapeRegExp(c);
      text += c;
      this.at++;
    }
    if (text === '') throw this.error('a value is missing');
    return { text, wildcard: wild ? new RegExp(`^${source}$`) : undefined };
  }

  /** `"…"`: exact text, `\"` and `\\` escaped, no wildcards. */
  private quoted(): ValuePattern {
    this.at++;
    let text = '';
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) throw this.error('a quote is not closed');
      this.at++;
      if (c === '"') break;
      if (c === '\\' && this.at < this.text.length) {
        text += this.text[this.at];
        this.at++;
      } else text += c;
    }
    return { text, wildcard: undefined };
  }
}

export { escapeRegExp };
