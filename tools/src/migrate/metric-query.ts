/**
 * Datadog's metric query language, as dashboards (`q:` strings and `queries[].query`) and metric
 * monitors write it: `avg:system.cpu.user{env:prod,!host:a} by {host}.as_count()`, joined by
 * arithmetic (`100 * a / b`) and wrapped in functions (`top(…, 10, 'mean', 'desc')`,
 * `per_second(…)`). The parser returns a tree or a QueryError that names the column.
 */

/** A tag filter inside `{…}`. */
export type Filter =
  | { kind: 'any' }
  /** `key:value` (`key:` has the empty value); a bare tag `foo` is `bare`, its whole text in `key` */
  | { kind: 'tag'; key: string; value: string; bare?: true }
  /** a template variable, `$scope` (its default is applied by the caller); `host:$h.value` names the tag itself */
  | { kind: 'var'; name: string; key?: string }
  | { kind: 'not'; filter: Filter }
  | { kind: 'and' | 'or'; filters: Filter[] };

export interface MetricMethod {
  name: string;
  args: string[];
}

export interface MetricQuery {
  kind: 'metric';
  /** Space aggregator before the colon; absent in `system.load.1{*}` (Datadog's default is avg). */
  aggregator: string | undefined;
  metric: string;
  filter: Filter;
  groupBy: string[];
  /** `.as_count()`, `.rollup(sum, 60)`, `.weighted()`, … in order. */
  methods: MetricMethod[];
}

export type FunctionArg = Expr | { kind: 'string'; value: string } | { kind: 'named'; name: string; value: string };

export type Expr = MetricQuery | { kind: 'number'; value: number } | { kind: 'binary'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr } | { kind: 'negate'; operand: Expr } | { kind: 'call'; name: string; args: FunctionArg[] };

export class QueryError extends Error {
  override name = 'QueryError';
  constructor(
    readonly query: string,
    readonly position: number,
    what: string,
  ) {
    super(`${what} at column ${position + 1} of "${query}"`);
  }
}

/** `histogram` is the distribution widget's: the points of a distribution metric, unaggregated. */
const AGGREGATORS = new Set(['avg', 'sum', 'min', 'max', 'count', 'p50', 'p75', 'p90', 'p95', 'p99', 'histogram']);

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new QueryError(this.text, this.pos, what);
  }

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  peek(): string | undefined {
    this.skipSpace();
    return this.text[this.pos];
  }

  eat(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.pos)) return false;
    this.pos += token.length;
    return true;
  }

  expect(token: string): void {
    if (!this.eat(token)) this.fail(`expected "${token}"`);
  }

  /** The longest run of characters matching `re` (one character class), or "". */
  run(re: RegExp): string {
    this.skipSpace();
    const start = this.pos;
    while (this.pos < this.text.length && re.test(this.text[this.pos]!)) this.pos++;
    return this.text.slice(start, this.pos);
  }

  word(re: RegExp, what: string): string {
    const w = this.run(re);
    if (w === '') this.fail(`expected ${what}`);
    return w;
  }

  /** A whole word (`AND`, not the start of `ANDROID:…`), in either case (Datadog's advanced filtering takes `and` as `AND`). */
  eatKeyword(word: string): boolean {
    this.skipSpace();
    const after = this.text[this.pos + word.length];
    if (this.text.slice(this.pos, this.pos + word.length).toUpperCase() !== word || (after !== undefined && !/[\s(]/.test(after))) return false;
    this.pos += word.length;
    return true;
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.text.length;
  }
}

const NAME_CHAR = /[A-Za-z0-9_.-]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;

function parseTagList(r: Reader): string[] {
  r.expect('{');
  const tags: string[] = [];
  do tags.push(r.word(/[^,}\s]/, 'a tag name'));
  while (r.eat(','));
  r.expect('}');
  return tags;
}

/** One term of a filter: `key:value`, `!key:value`, `$var`, `*`, `NOT …`, `( … )`. */
function parseFilterTerm(r: Reader): Filter {
  if (r.eat('!') || r.eatKeyword('NOT')) return { kind: 'not', filter: parseFilterTerm(r) };
  if (r.eat('(')) {
    const inner = parseFilterOr(r);
    r.expect(')');
    return inner;
  }
  if (r.eat('*')) return { kind: 'any' };
  if (r.eat('$')) return { kind: 'var', name: r.word(/[A-Za-z0-9_.-]/, 'a template variable name').replace(/\.value$/, '') };
  const term = r.word(/[^,{}()\s]/, 'a tag filter');
  const colon = term.indexOf(':');
  if (colon < 0) return valueList(r, term) ?? { kind: 'tag', key: term, value: '', bare: true };
  const value = term.slice(colon + 1);
  if (value.startsWith('$')) return { kind: 'var', name: value.slice(1).replace(/\.value$/, ''), key: term.slice(0, colon) };
  return { kind: 'tag', key: term.slice(0, colon), value };
}

/** `key IN (a, b)` (any of the values) and `key NOT IN (a, b)` after the key; undefined when neither follows. */
function valueList(r: Reader, key: string): Filter | undefined {
  const start = r.pos;
  const negated = r.eatKeyword('NOT');
  if (!r.eatKeyword('IN')) {
    r.pos = start;
    return undefined;
  }
  r.expect('(');
  const values: Filter[] = [];
  do values.push({ kind: 'tag', key, value: r.word(/[^,()\s]/, 'a tag value') });
  while (r.eat(','));
  r.expect(')');
  const any: Filter = values.length === 1 ? values[0]! : { kind: 'or', filters: values };
  return negated ? { kind: 'not', filter: any } : any;
}

function parseFilterAnd(r: Reader): Filter {
  const filters = [parseFilterTerm(r)];
  while (r.eat(',') || r.eatKeyword('AND')) filters.push(parseFilterTerm(r));
  return filters.length === 1 ? filters[0]! : { kind: 'and', filters };
}

function parseFilterOr(r: Reader): Filter {
  const filters = [parseFilterAnd(r)];
  while (r.eatKeyword('OR')) filters.push(parseFilterAnd(r));
  return filters.length === 1 ? filters[0]! : { kind: 'or', filters };
}

function parseMethods(r: Reader): MetricMethod[] {
  const methods: MetricMethod[] = [];
  while (r.peek() === '.' && /[a-z_]/.test(r.text[r.pos + 1] ?? '')) {
    r.expect('.');
    const name = r.word(IDENT_CHAR, 'a method name');
    r.expect('(');
    const args: string[] = [];
    if (!r.eat(')')) {
      do
        args.push(
          r
            .word(/[^,)]/, 'an argument')
            .trim()
            .replace(/^['"]|['"]$/g, ''),
        );
      while (r.eat(','));
      r.expect(')');
    }
    methods.push({ name, args });
  }
  return methods;
}

function parseMetric(r: Reader, first: string, start: number): MetricQuery {
  let aggregator: string | undefined;
  let metric = first;
  if (r.eat(':')) {
    if (!AGGREGATORS.has(first)) {
      r.pos = start;
      r.fail(`unknown space aggregator "${first}"`);
    }
    aggregator = first;
    metric = r.word(NAME_CHAR, 'a metric name');
  }
  r.expect('{');
  const filter = r.peek() === '}' ? ({ kind: 'any' } as const) : parseFilterOr(r);
  r.expect('}');
  const groupBy = r.eatKeyword('BY') ? parseTagList(r) : [];
  return { kind: 'metric', aggregator, metric, filter, groupBy, methods: parseMethods(r) };
}

function parseArg(r: Reader): FunctionArg {
  const quote = r.peek();
  if (quote === "'" || quote === '"') {
    r.pos++;
    const end = r.text.indexOf(quote, r.pos);
    if (end < 0) r.fail('unterminated string');
    const value = r.text.slice(r.pos, end);
    r.pos = end + 1;
    return { kind: 'string', value };
  }
  const save = r.pos;
  const name = r.run(IDENT_CHAR);
  if (name !== '' && r.eat('=')) {
    const value = parseArg(r);
    return { kind: 'named', name, value: value.kind === 'string' ? value.value : value.kind === 'number' ? String(value.value) : '' };
  }
  r.pos = save;
  return parseSum(r);
}

function parsePrimary(r: Reader): Expr {
  if (r.eat('(')) {
    const inner = parseSum(r);
    r.expect(')');
    return inner;
  }
  if (r.eat('-')) return { kind: 'negate', operand: parsePrimary(r) };
  const number = r.run(/[0-9.]/);
  if (number !== '') {
    const value = Number(number);
    if (!Number.isFinite(value)) r.fail(`not a number: "${number}"`);
    return { kind: 'number', value };
  }
  r.skipSpace();
  const start = r.pos;
  const name = r.word(NAME_CHAR, 'a metric query, number or function');
  if (r.eat('(')) {
    const args: FunctionArg[] = [];
    if (!r.eat(')')) {
      do args.push(parseArg(r));
      while (r.eat(','));
      r.expect(')');
    }
    return { kind: 'call', name, args };
  }
  return parseMetric(r, name, start);
}

/** One precedence level: operands from `operand`, joined left to right by `ops`. */
function parseLevel(r: Reader, ops: readonly string[], operand: (r: Reader) => Expr): Expr {
  let left = operand(r);
  for (;;) {
    const op = r.peek();
    if (op === undefined || !ops.includes(op)) return left;
    r.pos++;
    left = { kind: 'binary', op: op as '+' | '-' | '*' | '/', left, right: operand(r) };
  }
}

const parseProduct = (r: Reader): Expr => parseLevel(r, ['*', '/'], parsePrimary);

function parseSum(r: Reader): Expr {
  return parseLevel(r, ['+', '-'], parseProduct);
}

/**
 * A `q:` string: one or more comma-separated series (`a{*}, b{*}` draws both), each an
 * arithmetic expression of metric queries, numbers and functions.
 */
export function parseMetricQueries(text: string): Expr[] {
  const r = new Reader(text);
  const series = [parseSum(r)];
  while (r.eat(',')) series.push(parseSum(r));
  if (!r.atEnd()) r.fail('unexpected text');
  return series;
}

/** One expression (a monitor's, or a `queries[].query` of the newer form). */
export function parseMetricExpression(text: string): Expr {
  const r = new Reader(text);
  const expr = parseSum(r);
  if (!r.atEnd()) r.fail('unexpected text');
  return expr;
}

/** The metric queries of an expression, left to right. */
export function metricQueriesOf(expr: Expr | FunctionArg): MetricQuery[] {
  switch (expr.kind) {
    case 'metric':
      return [expr];
    case 'binary':
      return [...metricQueriesOf(expr.left), ...metricQueriesOf(expr.right)];
    case 'negate':
      return metricQueriesOf(expr.operand);
    case 'call':
      return expr.args.flatMap(metricQueriesOf);
    default:
      return [];
  }
}
