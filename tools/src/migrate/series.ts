/**
 * One Datadog query (old `q:` expression, or the newer named queries and formulas) → the select
 * items, formulas and group-by of a HyperDX builder chart over the metric tables. Metric names
 * stay as they are; each tag goes to the column resource promotion put it in (attributes.ts).
 * What HyperDX cannot compute is thrown as Unsupported, with the reason, for the caller to report.
 */
import type { SemconvOptIn } from '../../../src/config/options';
import { DEFAULT_SEMCONV } from '../../../src/signals/shared/known-keys';
import { OPERATION_ATTRIBUTE, STATS_METRICS } from '../../../src/signals/traces/stats';
import { splitTag } from '../../../src/signals/shared/resource-promotion';
import { luceneField, luceneValue, sqlField, tagColumn, type Table } from './attributes';
import type { NamedQuery, TemplateVariable } from './datadog';
import { logFieldSql, translateLogSearch } from './log-search';
import { type Expr, type Filter, type MetricQuery, parseMetricExpression } from './metric-query';
import { type DatadogMetricType, NO_METRIC_TYPES, type MetricTypes } from './metric-types';

export class Unsupported extends Error {
  override name = 'Unsupported';
}

export type MetricType = 'gauge' | 'sum' | 'histogram' | 'exponential histogram';

/** SelectItem of the OpenAPI document (names as there). */
export interface SelectItem {
  aggFn: 'avg' | 'count' | 'max' | 'min' | 'quantile' | 'sum';
  valueExpression?: string;
  level?: number;
  where: string;
  whereLanguage: 'lucene';
  alias?: string;
  metricName?: string;
  metricType?: MetricType;
}

export interface FormulaItem {
  expression: string;
  alias?: string;
}

export type SourceKind = 'metric' | 'log';

/** What a chart draws: selects (A, B, … in order), the formulas over them, one group-by. */
export interface Series {
  source: SourceKind;
  selects: SelectItem[];
  formulas: FormulaItem[];
  groupBy: string[];
  /** What was approximated; the chart is still drawn. */
  notes: string[];
}

/** How a query used a template variable: `$v` (in) or `!$v` (not in). */
export type VariableUse = 'in' | 'not in';

export interface QueryContext extends TranslationSettings {
  variables: readonly TemplateVariable[];
  /** Variables that are HyperDX dashboard filters: their `$v` terms are dropped, the filter applies them. */
  filters: ReadonlySet<string>;
  /** Filled in while translating: how each filter variable was used, for the filter's default. */
  uses: Map<string, Set<VariableUse>>;
}

/** What a translation needs to know of the bridge and the metrics, beside the export itself. */
export interface TranslationSettings {
  /** The semantic-convention opt-in the bridge runs with (APM-stats attribute names). */
  semconv: SemconvOptIn;
  /** Metric types (metric-types.ts): which table a metric is in when its query does not say. */
  metricTypes: MetricTypes;
}

export const DEFAULT_SETTINGS: TranslationSettings = { semconv: DEFAULT_SEMCONV, metricTypes: NO_METRIC_TYPES };

/** A context where every variable takes its default (monitors; no dashboard to hold filters). */
export const defaultsContext = (variables: readonly TemplateVariable[], settings: TranslationSettings = DEFAULT_SETTINGS): QueryContext => ({ variables, filters: new Set(), uses: new Map(), ...settings });

/** Which table's attribute column a tag is read from, and under which names. */
export interface TagScope {
  table: Table;
  optIn: SemconvOptIn;
}

export const METRIC_TAGS: TagScope = { table: 'metrics', optIn: DEFAULT_SEMCONV };

const QUANTILES: ReadonlyMap<string, number> = new Map([
  ['p50', 0.5],
  ['p90', 0.9],
  ['p95', 0.95],
  ['p99', 0.99],
]);

const letter = (i: number): string => String.fromCharCode(65 + i);

/** A tag term as the agent would have sent it, split the way the bridge splits it. */
function tagTerm(scope: TagScope, key: string, value: string): string {
  const [k, v] = value === '' ? (splitTag(key) ?? [key, '']) : [key, value];
  return `${luceneField(tagColumn(scope.table, k, scope.optIn))}:${luceneValue(v)}`;
}

const isEverything = (value: string): boolean => value === '*' || value === '';

/**
 * `$v` of a dashboard filter → nothing (the filter applies it; the use is recorded); any other
 * `$v` → its defaults: `*` filters nothing, `prefix:default` (several: any of them) otherwise.
 */
function variableTerm(scope: TagScope, name: string, ctx: QueryContext, negated: boolean): string {
  const variable = ctx.variables.find((v) => v.name === name);
  if (variable === undefined) throw new Unsupported(`template variable $${name} is not defined by the dashboard`);
  if (ctx.filters.has(name)) {
    ctx.uses.set(name, (ctx.uses.get(name) ?? new Set<VariableUse>()).add(negated ? 'not in' : 'in'));
    return '';
  }
  const values = variable.defaults;
  if (values.length === 0 || values.some(isEverything)) return '';
  const terms = values.map((value) => (variable.prefix ? tagTerm(scope, variable.prefix, value) : tagTerm(scope, value, '')));
  return terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`;
}

export function filterToLucene(scope: TagScope, filter: Filter, ctx: QueryContext, negated = false): string {
  switch (filter.kind) {
    case 'any':
      return '';
    case 'tag':
      return tagTerm(scope, filter.key, filter.value);
    case 'var':
      return variableTerm(scope, filter.name, ctx, negated);
    case 'not': {
      const inner = filterToLucene(scope, filter.filter, ctx, !negated);
      return inner === '' ? '' : `NOT ${filter.filter.kind === 'and' || filter.filter.kind === 'or' ? `(${inner})` : inner}`;
    }
    case 'and':
    case 'or': {
      const parts = filter.filters.map((f) => filterToLucene(scope, f, ctx, negated)).filter((p) => p !== '');
      if (filter.kind === 'or' && parts.length < filter.filters.length) return ''; // one side matches everything
      const joined = parts.join(` ${filter.kind.toUpperCase()} `);
      return filter.kind === 'or' && parts.length > 1 ? `(${joined})` : joined;
    }
  }
}

/** `trace.<operation>.<stat>`: the tracer metrics Datadog derives from APM stats, and ours. */
const APM_METRIC = /^trace\.(.+)\.(hits|errors|duration)(?:\.by\.[\w.]+)?$/;

interface Metric {
  name: string;
  type: MetricType;
  where: string[];
}

/**
 * The APM-stats metrics carry span attribute names, which follow the opt-in
 * (src/signals/traces/stats.ts); every other metric's tags are written under the default names.
 */
export const tagScopeOf = (mq: MetricQuery, ctx: QueryContext): TagScope => (APM_METRIC.test(mq.metric) ? { table: 'metrics', optIn: ctx.semconv } : METRIC_TAGS);

function metricOf(mq: MetricQuery, metricTypes: MetricTypes): Metric {
  const apm = APM_METRIC.exec(mq.metric);
  if (apm) {
    const operation = `${luceneField({ map: 'Attributes', key: OPERATION_ATTRIBUTE })}:${luceneValue(apm[1]!)}`;
    const stat = apm[2] as 'hits' | 'errors' | 'duration';
    return { name: STATS_METRICS[stat], type: stat === 'duration' ? 'histogram' : 'sum', where: [operation] };
  }
  if (QUANTILES.has(mq.aggregator ?? '')) return { name: mq.metric, type: 'exponential histogram', where: [] };
  return { name: mq.metric, type: storedAs(mq, metricTypes.get(mq.metric)), where: [] };
}

/**
 * The table a metric's points are in: a count's in the sum table, a gauge's (and a check's rate,
 * flushed as a gauge) in the gauge table, a distribution's in the exponential-histogram table. Without a known type, `.as_count()`/`.as_rate()` say it
 * is counted.
 */
function storedAs(mq: MetricQuery, known: DatadogMetricType | undefined): MetricType {
  if (known === 'count') return 'sum';
  if (known === 'gauge' || known === 'rate') return 'gauge';
  if (known === 'distribution') return 'exponential histogram';
  return mq.methods.some((m) => m.name === 'as_count' || m.name === 'as_rate') ? 'sum' : 'gauge';
}

const IGNORED_METHODS = new Set(['as_count', 'weighted', 'fill']);

function methodNotes(mq: MetricQuery): string[] {
  return mq.methods.flatMap((m) => {
    if (IGNORED_METHODS.has(m.name)) return [];
    if (m.name === 'as_rate') return [`${mq.metric}: .as_rate() drawn as counts per interval (HyperDX has no per-second rate of a sum)`];
    if (m.name === 'rollup') return [`${mq.metric}: .rollup(${m.args.join(', ')}) dropped (HyperDX picks the interval)`];
    throw new Unsupported(`${mq.metric}: .${m.name}() has no HyperDX equivalent`);
  });
}

function aggregation(mq: MetricQuery): Pick<SelectItem, 'aggFn' | 'level' | 'valueExpression'> {
  const agg = mq.aggregator ?? 'avg';
  const level = QUANTILES.get(agg);
  if (level !== undefined) return { aggFn: 'quantile', level, valueExpression: 'Value' };
  if (agg.startsWith('p')) throw new Unsupported(`${agg}: HyperDX quantiles are p50, p90, p95 and p99`);
  if (agg === 'histogram') throw new Unsupported('histogram: draws a distribution (only a distribution widget does)');
  if (agg === 'count') return { aggFn: 'count' };
  return { aggFn: agg as SelectItem['aggFn'], valueExpression: 'Value' };
}

function metricSelect(mq: MetricQuery, ctx: QueryContext): SelectItem {
  const metric = metricOf(mq, ctx.metricTypes);
  const where = [...metric.where, filterToLucene(tagScopeOf(mq, ctx), mq.filter, ctx)].filter((w) => w !== '').join(' AND ');
  return { ...aggregation(mq), where, whereLanguage: 'lucene', metricName: metric.name, metricType: metric.type };
}

/**
 * A distribution widget's query → one quantile select per level, over the whole population (its
 * group-by is the population, not a split). A distribution metric (`histogram:`, or read by
 * percentiles) is read from the exponential-histogram table the bridge writes sketches to; any
 * other metric's quantiles are those of its points.
 */
export function quantileSelects(mq: MetricQuery, ctx: QueryContext, levels: readonly number[]): { selects: SelectItem[]; notes: string[] } {
  const notes = methodNotes(mq);
  const distribution = mq.aggregator === 'histogram' || QUANTILES.has(mq.aggregator ?? '');
  const base = metricSelect({ ...mq, aggregator: undefined }, ctx);
  if (mq.groupBy.length > 0) notes.push(`${mq.metric}: the distribution over {${mq.groupBy.join(',')}} drawn as quantiles of all its points`);
  const selects = levels.map((level): SelectItem => ({ ...base, aggFn: 'quantile', level, valueExpression: 'Value', alias: `p${Math.round(level * 100)}`, ...(distribution ? { metricType: 'exponential histogram' as const } : {}) }));
  return { selects, notes };
}

export const groupColumns = (scope: TagScope, tags: readonly string[]): string[] => tags.filter((t) => t !== '*').map((t) => sqlField(tagColumn(scope.table, t, scope.optIn)));

/** Functions that change nothing HyperDX draws (its line charts fill empty buckets already). */
const TRANSPARENT_FUNCTIONS = new Set(['default_zero']);

/** Formula text over select letters; every metric leaf becomes the next select. */
function render(expr: Expr, leaf: (mq: MetricQuery) => string): string {
  switch (expr.kind) {
    case 'metric':
      return leaf(expr);
    case 'number':
      return String(expr.value);
    case 'negate':
      return `(0 - ${render(expr.operand, leaf)})`;
    case 'binary':
      return `(${render(expr.left, leaf)} ${expr.op} ${render(expr.right, leaf)})`;
    case 'call': {
      const [inner] = expr.args;
      if (!TRANSPARENT_FUNCTIONS.has(expr.name) || inner === undefined || inner.kind === 'string' || inner.kind === 'named') {
        throw new Unsupported(`${expr.name}() has no HyperDX equivalent`);
      }
      return render(inner, leaf);
    }
  }
}

const stripOuterParens = (text: string): string => (text.startsWith('(') && text.endsWith(')') && balanced(text.slice(1, -1)) ? text.slice(1, -1) : text);

function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    depth += c === '(' ? 1 : c === ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** Adds one expression (a `q:` series, a monitor query) to `into`. */
export function addExpression(into: Series, expr: Expr, ctx: QueryContext, alias?: string): void {
  const before = into.selects.length;
  const selects: SelectItem[] = [];
  const groupBy: string[] = [];
  const notes: string[] = [];
  const formula = render(expr, (mq) => {
    notes.push(...methodNotes(mq));
    selects.push(metricSelect(mq, ctx));
    groupBy.push(...groupColumns(tagScopeOf(mq, ctx), mq.groupBy));
    return letter(before + selects.length - 1);
  });
  into.selects.push(...selects);
  mergeGroupBy(into, groupBy);
  into.notes.push(...notes);
  if (expr.kind === 'metric') {
    if (alias) into.selects[before]!.alias = alias;
    into.formulas.push({ expression: letter(before), ...(alias ? { alias } : {}) });
  } else into.formulas.push({ expression: stripOuterParens(formula), ...(alias ? { alias } : {}) });
}

function mergeGroupBy(into: Series, groupBy: readonly string[]): void {
  for (const g of groupBy) if (!into.groupBy.includes(g)) into.groupBy.push(g);
}

/** A log query of the newer form: a count (or a measure) over a search, split by facets. */
function logSelect(q: NamedQuery): { select: SelectItem; groupBy: string[] } {
  const aggregation = q.compute?.aggregation ?? 'count';
  if (aggregation !== 'count') throw new Unsupported(`logs query "${q.name}": the ${aggregation} aggregation is not migrated (only count)`);
  return {
    select: { aggFn: 'count', where: translateLogSearch(q.search?.query ?? ''), whereLanguage: 'lucene' },
    groupBy: (q.group_by ?? []).map((g) => logFieldSql(g.facet)),
  };
}

const NAME_TOKEN = /[A-Za-z_][A-Za-z0-9_]*/g;

/** `100 * cnt / mx` with named queries → `100 * A / B`; functions in a formula are not migrated. */
function formulaOverLetters(formula: string, names: ReadonlyMap<string, string>): string {
  const rewritten = formula.replace(NAME_TOKEN, (name) => {
    const l = names.get(name);
    if (l === undefined) throw new Unsupported(`formula "${formula}": ${name} is not one of its queries (functions in formulas are not migrated)`);
    return l;
  });
  if (!/^[A-Z0-9.+\-*/()\s]*$/.test(rewritten)) throw new Unsupported(`formula "${formula}" is not plain arithmetic`);
  return rewritten;
}

const SOURCE_OF: Readonly<Record<string, SourceKind>> = { metrics: 'metric', logs: 'log' };

/** The newer form: named queries (metrics or logs), combined by formulas. */
export function addNamedQueries(into: Series, queries: readonly NamedQuery[], formulas: readonly { formula: string; alias?: string }[], ctx: QueryContext): void {
  const names = new Map<string, string>();
  for (const q of queries) {
    const source = SOURCE_OF[q.data_source];
    if (source === undefined) throw new Unsupported(`${q.data_source} queries are not migrated (metrics and logs are)`);
    if (into.selects.length > 0 && into.source !== source) throw new Unsupported('a chart mixing metrics and logs is not migrated (one source per HyperDX chart)');
    into.source = source;
    names.set(q.name, letter(into.selects.length));
    if (source === 'log') {
      const { select, groupBy } = logSelect(q);
      into.selects.push(select);
      mergeGroupBy(into, groupBy);
      continue;
    }
    const expr = parseMetricExpression(q.query ?? '');
    if (expr.kind !== 'metric') throw new Unsupported(`query "${q.name}" is not a single metric query`);
    into.notes.push(...methodNotes(expr));
    into.selects.push(metricSelect(expr, ctx));
    mergeGroupBy(into, groupColumns(tagScopeOf(expr, ctx), expr.groupBy));
  }
  const drawn: readonly { formula: string; alias?: string }[] = formulas.length > 0 ? formulas : queries.map((q) => ({ formula: q.name }));
  for (const f of drawn) {
    into.formulas.push({ expression: formulaOverLetters(f.formula, names), ...(f.alias ? { alias: f.alias } : {}) });
  }
}

export const emptySeries = (): Series => ({ source: 'metric', selects: [], formulas: [], groupBy: [], notes: [] });

/**
 * Formulas only where one says more than "draw select X": otherwise the selects are drawn as
 * they are, with the formulas' aliases.
 */
export function withoutTrivialFormulas(s: Series): Series {
  const trivial = s.formulas.length === s.selects.length && s.formulas.every((f, i) => f.expression === letter(i));
  if (!trivial) return s;
  return { ...s, selects: s.selects.map((sel, i) => (s.formulas[i]?.alias ? { ...sel, alias: s.formulas[i].alias } : sel)), formulas: [] };
}
