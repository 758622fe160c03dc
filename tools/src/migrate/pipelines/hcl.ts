/**
 * A reader for the part of HCL (Terraform's configuration language) that `datadog_logs_custom_pipeline`
 * resources are written in: blocks with labels, attributes, quoted strings (escapes, and the
 * `$${` / `%%{` that stand for a literal `${` / `%{`, as grok rules need), heredocs (`<<EOT`,
 * `<<-EOT`), numbers, booleans, null, lists, objects, references (`datadog_logs_custom_pipeline.x.id`)
 * and comments. What it does not evaluate (an interpolation `${var.x}`, a template directive, a
 * function call, an operator) is an error naming the file, line and column and the attribute's
 * path, so the user knows what to replace with its value.
 */

export class HclError extends Error {}

/** A reference to another object (`datadog_logs_custom_pipeline.nginx.id`), kept as its text. */
export interface HclReference {
  ref: string;
}

export type HclValue = string | number | boolean | null | HclReference | HclValue[] | { [key: string]: HclValue };

export interface HclAttribute {
  value: HclValue;
  line: number;
}

export interface HclBlock {
  type: string;
  labels: string[];
  body: HclBody;
  line: number;
}

export interface HclBody {
  attributes: Map<string, HclAttribute>;
  blocks: HclBlock[];
}

export const isReference = (v: HclValue | undefined): v is HclReference => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as HclReference).ref === 'string' && Object.keys(v).length === 1;

const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_-]/;

class Reader {
  at = 0;

  constructor(
    readonly text: string,
    readonly file: string,
  ) {}

  /** 1-based line and column of `at`. */
  where(at = this.at): string {
    let line = 1;
    let column = 1;
    for (let i = 0; i < at && i < this.text.length; i++) {
      if (this.text[i] === '\n') {
        line++;
        column = 1;
      } else column++;
    }
    return `${this.file}:${line}:${column}`;
  }

  line(at = this.at): number {
    let line = 1;
    for (let i = 0; i < at; i++) if (this.text[i] === '\n') line++;
    return line;
  }

  fail(what: string, path: string, at = this.at): never {
    throw new HclError(`${this.where(at)}: ${path === '' ? '' : `${path}: `}${what}`);
  }

  peek(offset = 0): string {
    return this.text[this.at + offset] ?? '';
  }

  /** Skips blanks, line breaks and comments. */
  skip(): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') this.at++;
      else if (c === '#' || (c === '/' && this.peek(1) === '/')) {
        const end = this.text.indexOf('\n', this.at);
        this.at = end < 0 ? this.text.length : end;
      } else if (c === '/' && this.peek(1) === '*') {
        const end = this.text.indexOf('*/', this.at + 2);
        if (end < 0) this.fail('a /* comment is not closed', '');
        this.at = end + 2;
      } else return;
    }
  }

  identifier(path: string): string {
    const from = this.at;
    if (!IDENT_START.test(this.peek())) this.fail(`expected a name, found ${this.shown()}`, path);
    while (IDENT.test(this.peek())) this.at++;
    return this.text.slice(from, this.at);
  }

  shown(): string {
    const c = this.peek();
    return c === '' ? 'the end of the file' : JSON.stringify(c);
  }

  expect(c: string, path: string): void {
    this.skip();
    if (this.peek() !== c) this.fail(`expected "${c}", found ${this.shown()}`, path);
    this.at++;
  }
}

/** How HCL writes an interpolation, for messages. */
const INTERPOLATION = `$${'{'}…}`;

/** The rest of a template after `$` or `%` and `{`: a literal when doubled, else what is not evaluated. */
function templateSequence(r: Reader, path: string, out: string[]): boolean {
  const c = r.peek();
  if ((c !== '$' && c !== '%') || r.peek(1) !== '{') {
    if ((c === '$' || c === '%') && r.peek(1) === c && r.peek(2) === '{') {
      out.push(`${c}{`);
      r.at += 3;
      return true;
    }
    return false;
  }
  r.fail(c === '$' ? `an interpolation ${INTERPOLATION} is not evaluated: write its value` : 'a template directive %{…} is not evaluated: write its result (a literal %{ is written %%{)', path);
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

function quoted(r: Reader, path: string): string {
  const from = r.at;
  r.at++;
  const out: string[] = [];
  for (;;) {
    const c = r.peek();
    if (c === '' || c === '\n') r.fail('a string is not closed on its line', path, from);
    if (c === '"') {
      r.at++;
      return out.join('');
    }
    if (templateSequence(r, path, out)) continue;
    if (c === '\\') {
      const e = r.peek(1);
      if (ESCAPES[e] !== undefined) {
        out.push(ESCAPES[e] as string);
        r.at += 2;
        continue;
      }
      if (e === 'u' || e === 'U') {
        const width = e === 'u' ? 4 : 8;
        const hex = r.text.slice(r.at + 2, r.at + 2 + width);
        if (!new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) r.fail(`\\${e} takes ${width} hex digits`, path);
        out.push(String.fromCodePoint(Number.parseInt(hex, 16)));
        r.at += 2 + width;
        continue;
      }
      r.fail(`the escape \\${e} is not HCL's`, path);
    }
    out.push(c);
    r.at++;
  }
}

/** `<<EOT` … `EOT`, or `<<-EOT` with the lines' common indentation removed. */
function heredoc(r: Reader, path: string): string {
  const from = r.at;
  r.at += 2;
  const strip = r.peek() === '-';
  if (strip) r.at++;
  const marker = r.identifier(path);
  const lineEnd = r.text.indexOf('\n', r.at);
  if (lineEnd < 0 || r.text.slice(r.at, lineEnd).trim() !== '') r.fail('a heredoc marker ends its line', path);
  const lines: string[] = [];
  let at = lineEnd + 1;
  for (;;) {
    if (at >= r.text.length) r.fail(`the heredoc is not closed by a line "${marker}"`, path, from);
    const end = r.text.indexOf('\n', at);
    const line = r.text.slice(at, end < 0 ? r.text.length : end).replace(/\r$/, '');
    at = end < 0 ? r.text.length : end + 1;
    if (line.trim() === marker) break;
    lines.push(line);
  }
  r.at = at;
  const indent = strip ? Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0)) : 0;
  const body = lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n') + (lines.length > 0 ? '\n' : '');
  // the template sequences of the heredoc's text, read like a quoted string's (no backslash escapes)
  const sub = new Reader(body, r.file);
  const out: string[] = [];
  while (sub.at < body.length) {
    if (templateSequence(sub, path, out)) continue;
    out.push(sub.peek());
    sub.at++;
  }
  return out.join('');
}

function number(r: Reader): number {
  const m = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(r.text.slice(r.at)) as RegExpExecArray;
  r.at += m[0].length;
  return Number(m[0]);
}

function list(r: Reader, path: string): HclValue[] {
  r.at++;
  const items: HclValue[] = [];
  for (;;) {
    r.skip();
    if (r.peek() === ']') {
      r.at++;
      return items;
    }
    items.push(expression(r, `${path}[${items.length}]`));
    r.skip();
    if (r.peek() === ',') r.at++;
    else if (r.peek() !== ']') r.fail(`expected "," or "]", found ${r.shown()}`, path);
  }
}

function object(r: Reader, path: string): Record<string, HclValue> {
  r.at++;
  const out: Record<string, HclValue> = {};
  for (;;) {
    r.skip();
    if (r.peek() === '}') {
      r.at++;
      return out;
    }
    const key = r.peek() === '"' ? quoted(r, path) : r.identifier(path);
    r.skip();
    if (r.peek() !== '=' && r.peek() !== ':') r.fail(`expected "=" after the key "${key}", found ${r.shown()}`, path);
    r.at++;
    out[key] = expression(r, `${path}.${key}`);
    r.skip();
    if (r.peek() === ',') r.at++;
  }
}

/** A name, a reference (`a.b.c`, `a[0].b`), a keyword, or a function call (not evaluated). */
function named(r: Reader, path: string): HclValue {
  const from = r.at;
  const name = r.identifier(path);
  if (r.peek() === '(') r.fail(`the function call ${name}(…) is not evaluated: write its value`, path, from);
  if (name === 'true' || name === 'false') return name === 'true';
  if (name === 'null') return null;
  while (r.peek() === '.' || r.peek() === '[') {
    if (r.peek() === '.') {
      r.at++;
      r.identifier(path);
    } else {
      const close = r.text.indexOf(']', r.at);
      if (close < 0) r.fail('a "[" is not closed', path);
      r.at = close + 1;
    }
  }
  return { ref: r.text.slice(from, r.at) };
}

function expression(r: Reader, path: string): HclValue {
  r.skip();
  const c = r.peek();
  let value: HclValue;
  if (c === '"') value = quoted(r, path);
  else if (c === '<' && r.peek(1) === '<') value = heredoc(r, path);
  else if (c === '[') value = list(r, path);
  else if (c === '{') value = object(r, path);
  else if (/[-\d]/.test(c)) value = number(r);
  else if (IDENT_START.test(c)) value = named(r, path);
  else r.fail(`expected a value, found ${r.shown()}`, path);
  // what would follow a value only in an expression this reader does not evaluate
  const after = /^[ \t]*([-+*/%?!<>=&|]|==)/.exec(r.text.slice(r.at));
  if (after && !(after[1] === '=' && r.peek(after[0].length) !== '=') && !(after[1] === '/' && (r.text[r.at + after[0].length] === '/' || r.text[r.at + after[0].length] === '*'))) {
    r.fail(`the operator "${after[1]}" is not evaluated: write the expression's value`, path, r.at + after[0].length - 1);
  }
  return value;
}

function body(r: Reader, path: string, closing: boolean): HclBody {
  const out: HclBody = { attributes: new Map(), blocks: [] };
  for (;;) {
    r.skip();
    if (r.peek() === '') {
      if (closing) r.fail('a block is not closed by "}"', path);
      return out;
    }
    if (r.peek() === '}') {
      if (!closing) r.fail('a "}" closes no block', path);
      r.at++;
      return out;
    }
    const from = r.at;
    const name = r.identifier(path);
    r.skip();
    const here = path === '' ? name : `${path} > ${name}`;
    if (r.peek() === '=' && r.peek(1) !== '=') {
      r.at++;
      if (out.attributes.has(name)) r.fail(`the attribute ${name} is set twice`, path, from);
      out.attributes.set(name, { value: expression(r, here), line: r.line(from) });
      continue;
    }
    const labels: string[] = [];
    while (r.peek() !== '{') {
      if (r.peek() === '"') labels.push(quoted(r, here));
      else if (IDENT_START.test(r.peek())) labels.push(r.identifier(here));
      else r.fail(`expected "=" or a block's "{" after ${name}, found ${r.shown()}`, path);
      r.skip();
    }
    r.at++;
    const label = labels.map((l) => JSON.stringify(l)).join(' ');
    out.blocks.push({ type: name, labels, body: body(r, label === '' ? here : `${here} ${label}`, true), line: r.line(from) });
  }
}

/** The top-level body of an HCL file. */
export function parseHcl(text: string, file: string): HclBody {
  return body(new Reader(text, file), '', false);
}
