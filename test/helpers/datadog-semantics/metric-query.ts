/**
 * Datadog's metric query language, read for the rendered comparison of migrated tiles
 * (test/hyperdx-api/migrate-rendered.test.ts) independently of the migration's own parser
 * (tools/src/migrate/metric-query.ts): a tile the migration reads wrongly is then computed
 * differently here. It reads what the integrations' dashboards write: `agg:metric{filter} by
 * {tags}.method(…)`, arithmetic, numbers and function calls; anything else throws.
 */

export type TagFilter =
  | { op: 'all' }
  /** `key:value` (value may hold `*`), or a bare tag `key` (value undefined) */
  | { op: 'tag'; key: string; value: string | undefined }
  /** `$name`, or `key:$name` / `key:$name.value` */
  | { op: 'variable'; name: string; key: string | undefined }
  | { op: 'not'; of: TagFilter }
  | { op: 'and' | 'or'; of: TagFilter[] };

export interface MetricTerm {
  type: 'metric';
  space: string;
  metric: string;
  filter: TagFilter;
  by: string[];
  methods: { name: string; args: string[] }[];
}

export type Term = MetricTerm | { type: 'ref'; name: string } | { type: 'number'; value: number } | { type: 'op'; op: string; left: Term; right: Term } | { type: 'neg'; of: Term } | { type: 'call'; name: string; args: (Term | string)[] };

class Cursor {
  at = 0;
  /** in a formula, a bare name is one of the widget's named queries */
  constructor(
    readonly src: string,
    readonly formula = false,
  ) {}

  blank(): void {
    while (/\s/.test(this.src[this.at] ?? '')) this.at++;
  }

  next(): string | undefined {
    this.blank();
    return this.src[this.at];
  }

  take(s: string): boolean {
    this.blank();
    if (!this.src.startsWith(s, this.at)) return false;
    this.at += s.length;
    return true;
  }

  must(s: string): void {
    if (!this.take(s)) throw new Error(`"${s}" expected at ${this.at} in ${this.src}`);
  }

  while(re: RegExp): string {
    this.blank();
    const from = this.at;
    while (this.at < this.src.length && re.test(this.src[this.at]!)) this.at++;
    return this.src.slice(from, this.at);
  }

  /** `word` in either case, as Datadog's advanced filtering takes `and` for `AND`. */
  keyword(word: string): boolean {
    this.blank();
    const after = this.src[this.at + word.length] ?? ' ';
    if (this.src.slice(this.at, this.at + word.length).toUpperCase() !== word || !/[\s(]/.test(after)) return false;
    this.at += word.length;
    return true;
  }
}

function filterAtom(c: Cursor): TagFilter {
  if (c.take('!') || c.keyword('NOT')) return { op: 'not', of: filterAtom(c) };
  if (c.take('(')) {
    const inner = filterOr(c);
    c.must(')');
    return inner;
  }
  const word = c.while(/[^,{}()\s]/);
  if (word === '') throw new Error(`a tag expected at ${c.at} in ${c.src}`);
  if (word === '*') return { op: 'all' };
  if (word.startsWith('$')) return { op: 'variable', name: word.slice(1).replace(/\.value$/, ''), key: undefined };
  const colon = word.indexOf(':');
  if (colon < 0) return inList(c, word) ?? { op: 'tag', key: word, value: undefined };
  const [key, value] = [word.slice(0, colon), word.slice(colon + 1)];
  if (value.startsWith('$')) return { op: 'variable', name: value.slice(1).replace(/\.value$/, ''), key };
  return { op: 'tag', key, value };
}

/** `key IN (a, b)`: any of the values; `key NOT IN (a, b)`: none; undefined when neither follows the key. */
function inList(c: Cursor, key: string): TagFilter | undefined {
  const list = /^\s*(not\s+)?in\s*\(([^)]*)\)/i.exec(c.src.slice(c.at));
  if (!list) return undefined;
  c.at += list[0].length;
  const of = list[2]!.split(',').map((v): TagFilter => ({ op: 'tag', key, value: v.trim() }));
  const any: TagFilter = of.length === 1 ? of[0]! : { op: 'or', of };
  return list[1] ? { op: 'not', of: any } : any;
}

function filterAnd(c: Cursor): TagFilter {
  const of = [filterAtom(c)];
  while (c.take(',') || c.keyword('AND')) of.push(filterAtom(c));
  return of.length === 1 ? of[0]! : { op: 'and', of };
}

function filterOr(c: Cursor): TagFilter {
  const of = [filterAnd(c)];
  while (c.keyword('OR')) of.push(filterAnd(c));
  return of.length === 1 ? of[0]! : { op: 'or', of };
}

function metricTerm(c: Cursor, first: string): MetricTerm {
  let [space, metric] = ['avg', first];
  if (c.take(':')) [space, metric] = [first, c.while(/[\w.-]/)];
  c.must('{');
  const filter = c.next() === '}' ? ({ op: 'all' } as const) : filterOr(c);
  c.must('}');
  const by: string[] = [];
  if (c.keyword('BY')) {
    c.must('{');
    do by.push(c.while(/[^,}\s]/));
    while (c.take(','));
    c.must('}');
  }
  const methods: MetricTerm['methods'] = [];
  while (c.next() === '.' && /[a-z]/.test(c.src[c.at + 1] ?? '')) {
    c.must('.');
    const name = c.while(/\w/);
    c.must('(');
    const args = c.take(')')
      ? []
      : c
          .while(/[^)]/)
          .split(',')
          .map((a) => a.trim().replace(/^['"]|['"]$/g, ''));
    if (args.length > 0) c.must(')');
    methods.push({ name, args });
  }
  return { type: 'metric', space, metric, filter, by, methods };
}

function primary(c: Cursor): Term {
  if (c.take('(')) {
    const inner = sum(c);
    c.must(')');
    return inner;
  }
  if (c.take('-')) return { type: 'neg', of: primary(c) };
  if (/[\d.]/.test(c.next() ?? '')) return { type: 'number', value: Number(c.while(/[\d.eE]/)) };
  const quote = c.next();
  if (quote === "'" || quote === '"') {
    c.at++;
    const text = c.while(new RegExp(`[^${quote}]`));
    c.must(quote);
    return { type: 'call', name: 'string', args: [text] };
  }
  const word = c.while(/[\w.-]/);
  if (word === '') throw new Error(`a term expected at ${c.at} in ${c.src}`);
  if (c.next() === '(') {
    c.must('(');
    const args: (Term | string)[] = [];
    if (!c.take(')')) {
      do {
        // the first argument is the expression the function applies to (a named query in a formula), the rest may be words
        const arg = args.length === 0 ? sum(c) : primaryOrSum(c);
        args.push(arg.type === 'call' && arg.name === 'string' ? (arg.args[0] as string) : arg);
      } while (c.take(','));
      c.must(')');
    }
    return { type: 'call', name: word, args };
  }
  if (c.formula) return { type: 'ref', name: word };
  return metricTerm(c, word);
}

/** A function argument: an expression, or a bare word (`'mean'`, `desc`) kept as text. */
function primaryOrSum(c: Cursor): Term {
  const at = c.at;
  const word = c.while(/[A-Za-z_]/);
  if (word !== '' && /^[,)]$/.test(c.next() ?? '')) return { type: 'call', name: 'string', args: [word] };
  c.at = at;
  return sum(c);
}

/** Operands joined left to right by one precedence level's operators. */
function level(c: Cursor, ops: string, operand: (c: Cursor) => Term): Term {
  let left = operand(c);
  for (let op = c.next(); op !== undefined && ops.includes(op); op = c.next()) {
    c.at++;
    left = { type: 'op', op, left, right: operand(c) };
  }
  return left;
}

const product = (c: Cursor): Term => level(c, '*/', primary);

function sum(c: Cursor): Term {
  return level(c, '+-', product);
}

/** A `q:` string: one or more comma-separated expressions. */
export function readQueries(src: string): Term[] {
  const c = new Cursor(src);
  const all = [sum(c)];
  while (c.take(',')) all.push(sum(c));
  c.blank();
  if (c.at < src.length) throw new Error(`unexpected "${src.slice(c.at, c.at + 20)}" in ${src}`);
  return all;
}

export function readQuery(src: string): Term {
  const [only, ...more] = readQueries(src);
  if (more.length > 0) throw new Error(`one expression expected: ${src}`);
  return only!;
}

/** A formula over named queries (`100 * a / b`, `top(query1, 10, 'mean', 'desc')`). */
export function readFormula(src: string): Term {
  const c = new Cursor(src, true);
  const t = sum(c);
  c.blank();
  if (c.at < src.length) throw new Error(`unexpected "${src.slice(c.at, c.at + 20)}" in ${src}`);
  return t;
}

export function metricTerms(t: Term | string): MetricTerm[] {
  if (typeof t === 'string') return [];
  switch (t.type) {
    case 'metric':
      return [t];
    case 'op':
      return [...metricTerms(t.left), ...metricTerms(t.right)];
    case 'neg':
      return metricTerms(t.of);
    case 'call':
      return t.args.flatMap(metricTerms);
    default:
      return [];
  }
}
