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
import { listValue, luceneField, luceneValue, sqlField, tagColumn, type Table, wildcardNote } from './attributes';
import type { NamedQuery, TemplateVariable } from './datadog';
import type { Sources } from './plan';
import { EVENT_LEVELS_NOTE, EVENT_SERVICE_NOTE, EVENT_SEARCH, holdingFacets, keptTo, LOG_SEARCH, type SearchSchema, searchFieldSql, spanSearch, translateSearch, withVariableDefaults } from './log-search';
import { Unsupported } from './unsupported';
import { type Expr, type Filter, type MetricQuery, metricQueriesOf, parseMetricExpression } from './metric-query';
import { bundledMetricTypes, type MetricTypes } from './metric-types';

export { Unsupported } from './unsupported';

export type MetricType = 'gauge' | 'sum' | 'histogram' | 'exponential histogram';

/** SelectItem of the OpenAPI document (names as there). */
export interface SelectItem {
  aggFn: 'avg' | 'count' | 'count_distinct' | 'max' | 'min' | 'quantile' | 'sum';
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

export type SourceKind = 'metric' | 'log' | 'trace';

/** What a chart draws: selects (A, B, … in order), the formulas over them, one group-by. */
export interface Series {
  source: SourceKind;
  selects: SelectItem[];
  formulas: FormulaItem[];
  groupBy: string[];
  /** What was approximated; the chart is still drawn. */
  notes: string[];
  /** a formula reads a query outside `default_zero()` (FORMULA_ZERO_NOTE) */
  bareOperands?: boolean;
}

/** How a query used a template variable: `$v` (in) or `!$v` (not in). */
export type VariableUse = 'in' | 'not in';

export interface QueryContext extends TranslationSettings {
  variables: readonly TemplateVariable[];
  /** Variables that are HyperDX dashboard filters: their `$v` terms are dropped, the filter applies them. */
  filters: ReadonlySet<string>;
  /** Filled in while translating: how each filter variable was used, for the filter's default. */
  uses: Map<string, Set<VariableUse>>;
  /** Metrics some query of the same dashboard reads with `.as_count()`/`.as_rate()`: counted ones. */
  counted?: ReadonlySet<string>;
  /** Metrics some query of the same dashboard reads a percentile of (not listed as counts or rates): distributions. */
  distributions?: ReadonlySet<string>;
  /** LogAttributes keys the dashboard's log queries name both as a tag and as an attribute (log-keys.ts). */
  sharedLogKeys?: ReadonlySet<string>;
}

/** What a translation needs to know of the bridge and the metrics, beside the export itself. */
export interface TranslationSettings {
  /** The semantic-convention opt-in the bridge runs with (APM-stats attribute names). */
  semconv: SemconvOptIn;
  /** Metric types (metric-types.ts): which table a metric is in when its query does not say. */
  metricTypes: MetricTypes;
}

/** What a run without options translates with: the bundled integrations-core metric types. */
export const DEFAULT_SETTINGS: TranslationSettings = { semconv: DEFAULT_SEMCONV, metricTypes: bundledMetricTypes() };

/** A context where every variable takes its default (monitors; no dashboard to hold filters). */
export const defaultsContext = (variables: readonly TemplateVariable[], settings: TranslationSettings = DEFAULT_SETTINGS): QueryContext => ({ variables, filters: new Set(), uses: new Map(), ...settings });

/** Which table's attribute column a tag is read from, and under which names. */
export interface TagScope {
  table: Table;
  optIn: SemconvOptIn;
  /** the tags of an APM-stats metric (`trace.*`) */
  apm?: boolean;
}

export const METRIC_TAGS: TagScope = { table: 'metrics', optIn: DEFAULT_SEMCONV };

const QUANTILES: ReadonlyMap<string, number> = new Map([
  ['p50', 0.5],
  ['p90', 0.9],
  ['p95', 0.95],
  ['p99', 0.99],
]);

const letter = (i: number): string => String.fromCharCode(65 + i);

/** A tag term as the agent would have sent it, split the way the bridge splits it (a bare tag `foo` as `unnamed_foo:foo`). */
function tagTerm(scope: TagScope, key: string, value: string, bare = false): string {
  const [k, v] = bare ? (splitTag(key) ?? [key, '']) : [key, value];
  const column = tagColumn(scope.table, k, scope.optIn, scope.apm);
  return `${luceneField(column)}:${column.list && !v.includes('*') ? listValue(v) : luceneValue(v)}`;
}

const isEverything = (value: string): boolean => value === '*' || value === '';

/**
 * `$v` of a dashboard filter → nothing (the filter applies it; the use is recorded); any other
 * `$v` → its defaults: `*` filters nothing, `prefix:default` (several: any of them) otherwise.
 */
function variableTerm(scope: TagScope, name: string, ctx: QueryContext, negated: boolean, key?: string): string {
  const variable = ctx.variables.find((v) => v.name === name);
  if (variable === undefined) throw new Unsupported(`template variable $${name} is not defined by the dashboard`);
  if (ctx.filters.has(name) && (key === undefined || key === variable.prefix)) {
    ctx.uses.set(name, (ctx.uses.get(name) ?? new Set<VariableUse>()).add(negated ? 'not in' : 'in'));
    return '';
  }
  const values = variable.defaults;
  if (values.length === 0 || values.some(isEverything)) return '';
  const tagKey = key ?? variable.prefix;
  const terms = values.map((value) => (tagKey ? tagTerm(scope, tagKey, value) : tagTerm(scope, value, '', true)));
  return terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`;
}

export function filterToLucene(scope: TagScope, filter: Filter, ctx: QueryContext, negated = false): string {
  switch (filter.kind) {
    case 'any':
      return '';
    case 'tag':
      return tagTerm(scope, filter.key, filter.value, filter.bare);
    case 'var':
      return variableTerm(scope, filter.name, ctx, negated, filter.key);
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

/**
 * The tracer metrics Datadog derives from APM stats, as the bridge writes them
 * (src/signals/traces/stats.ts): `trace.<op>.hits|errors` (also `.by_http_status`, the same count
 * split by status), `trace.<op>.duration.by.<tag>.<N>p` and the distribution `pNN:trace.<op>`
 * (quantiles of the duration histogram). What else Datadog derives (`.apdex`, `.duration` as
 * time spent, …) the bridge does not write.
 */
const APM_METRIC = /^trace\.(.+?)\.(hits|errors)(?:\.by_http_status|\.by\.[\w.]+)?$/;
const APM_PERCENTILE = /^trace\.(.+)\.duration\.by\.[\w]+\.(\d+)p$/;
const APM_ANY = /^trace\./;

interface Metric {
  name: string;
  type: MetricType;
  where: string[];
  /** a quantile the metric's name carries (`….90p`) */
  level?: number;
  notes: string[];
}

/**
 * The APM-stats metrics carry span attribute names, which follow the opt-in
 * (src/signals/traces/stats.ts); every other metric's tags are written under the default names.
 */
export const tagScopeOf = (mq: MetricQuery, ctx: QueryContext): TagScope => (APM_ANY.test(mq.metric) ? { table: 'metrics', optIn: ctx.semconv, apm: true } : METRIC_TAGS);

const operationWhere = (operation: string): string => `${luceneField({ map: 'Attributes', key: OPERATION_ATTRIBUTE })}:${luceneValue(operation)}`;

const HISTOGRAM_QUANTILE_NOTE = "a quantile of the bridge's duration histogram (the tracer's sketch bins, interpolated) over every span the filter keeps";

function apmMetric(mq: MetricQuery): Metric | undefined {
  const counted = APM_METRIC.exec(mq.metric);
  if (counted) {
    const stat = counted[2] as 'hits' | 'errors';
    return { name: STATS_METRICS[stat], type: 'sum', where: [operationWhere(counted[1]!)], notes: [] };
  }
  const percentile = APM_PERCENTILE.exec(mq.metric);
  if (percentile) {
    const level = Number(percentile[2]) / 100;
    return { name: STATS_METRICS.duration, type: 'histogram', where: [operationWhere(percentile[1]!)], level, notes: [`${mq.metric}: ${HISTOGRAM_QUANTILE_NOTE} (Datadog aggregates a percentile per ${mq.metric.split('.by.')[1]!.split('.')[0]})`] };
  }
  if (!APM_ANY.test(mq.metric)) return undefined;
  const operation = /^trace\.(.+?)(?:\.duration)?$/.exec(mq.metric)![1]!;
  if (QUANTILES.has(mq.aggregator ?? '') && !mq.metric.endsWith('.duration')) {
    return { name: STATS_METRICS.duration, type: 'histogram', where: [operationWhere(operation)], notes: [`${mq.metric}: ${HISTOGRAM_QUANTILE_NOTE}`] };
  }
  if (mq.metric.endsWith('.duration')) throw new Unsupported(`${mq.metric}: the time spent is the sum of the bridge's duration histogram, which HyperDX charts do not compute (only its quantiles and counts)`);
  throw new Unsupported(`${mq.metric}: the bridge derives trace.<op>.hits, .errors and duration quantiles from APM stats, not this metric`);
}

function metricOf(mq: MetricQuery, ctx: QueryContext): Metric {
  const apm = apmMetric(mq);
  if (apm) return apm;
  if (QUANTILES.has(mq.aggregator ?? '')) return { name: mq.metric, type: 'exponential histogram', where: [], notes: counterPercentileNotes(mq, ctx) };
  return { name: mq.metric, where: [], ...storedAs(mq, ctx) };
}

/**
 * Datadog computes percentiles of distributions only: of a metric its integration lists as a
 * count or a rate (kong's, cockroachdb's `.bucket`), the widget draws nothing unless that metric
 * is sent as a distribution after all. The tile reads the sketches' table either way, and says so.
 * A metric listed as a gauge is not said: the lists call some distributions gauges (langchain's).
 */
function counterPercentileNotes(mq: MetricQuery, ctx: QueryContext): string[] {
  const known = ctx.metricTypes.get(mq.metric);
  if (known !== 'count' && known !== 'rate') return [];
  return [`${mq.aggregator}:${mq.metric}: listed as a ${known}, and Datadog computes percentiles of distributions only: drawn from the distribution table, where the bridge has points only if the metric is sent as a distribution`];
}

/**
 * The table a metric's points are in: a count's in the sum table, a gauge's (and a check's rate,
 * flushed as a gauge) in the gauge table, a distribution's in the exponential-histogram table.
 * Without a known type, a metric some query counts (`.as_count()`/`.as_rate()`, here or elsewhere
 * in the dashboard) is read from the sum table, any other from the gauge table, and that guess is
 * stated.
 */
function storedAs(mq: MetricQuery, ctx: QueryContext): { type: MetricType; notes: string[] } {
  const known = ctx.metricTypes.get(mq.metric);
  if (ctx.distributions?.has(mq.metric)) return { type: 'exponential histogram', notes: [] };
  if (known === 'count') return { type: 'sum', notes: [] };
  if (known === 'gauge' || known === 'rate') return { type: 'gauge', notes: [] };
  if (known === 'distribution') return { type: 'exponential histogram', notes: [] };
  if (mq.methods.some((m) => m.name === 'as_count' || m.name === 'as_rate') || ctx.counted?.has(mq.metric)) return { type: 'sum', notes: [] };
  return { type: 'gauge', notes: [`${mq.metric}: its type is not known (not in the metric types read): read as a gauge; a count would draw nothing (give --metric-types)`] };
}

/** `.fill(…)` values that mean "empty buckets are 0", which HyperDX's line charts draw by default. */
const FILL_ZERO = new Set(['zero', '0']);

function methodNotes(mq: MetricQuery): string[] {
  return mq.methods.flatMap((m) => {
    if (m.name === 'as_count') return [];
    if (m.name === 'fill') return FILL_ZERO.has(m.args[0] ?? '') || m.args[0] === 'null' ? [] : [`${mq.metric}: .fill(${m.args.join(', ')}) drawn with empty intervals as 0`];
    if (m.name === 'weighted') return [`${mq.metric}: .weighted() dropped (HyperDX weighs every series alike, Datadog by the time a tag value was present)`];
    if (m.name === 'as_rate') return [`${mq.metric}: .as_rate() drawn as counts per interval (HyperDX has no per-second rate of a sum)`];
    if (m.name === 'rollup') return [`${mq.metric}: .rollup(${m.args.join(', ')}) dropped (HyperDX picks the interval and takes the last point of a gauge, the sum of a count)`];
    throw new Unsupported(`${mq.metric}: .${m.name}() has no HyperDX equivalent`);
  });
}

/** What HyperDX computes of a histogram table: quantiles and counts only. */
function aggregation(mq: MetricQuery, metric: Metric): Pick<SelectItem, 'aggFn' | 'level' | 'valueExpression'> {
  const agg = mq.aggregator ?? 'avg';
  const level = metric.level ?? QUANTILES.get(agg);
  if (level !== undefined) {
    if (!HYPERDX_LEVELS.has(level)) throw new Unsupported(`${mq.metric}: the ${level * 100}th percentile (HyperDX quantiles are p50, p90, p95 and p99)`);
    return { aggFn: 'quantile', level, valueExpression: 'Value' };
  }
  if (agg.startsWith('p')) throw new Unsupported(`${agg}: HyperDX quantiles are p50, p90, p95 and p99`);
  if (agg === 'histogram') throw new Unsupported('histogram: draws a distribution (only a distribution widget does)');
  if (agg === 'count') return { aggFn: 'count' };
  if (metric.type === 'histogram' || metric.type === 'exponential histogram') throw new Unsupported(`${agg}:${mq.metric}: HyperDX computes quantiles and counts of a distribution, not its ${agg}`);
  return { aggFn: agg as SelectItem['aggFn'], valueExpression: 'Value' };
}

const HYPERDX_LEVELS: ReadonlySet<number> = new Set(QUANTILES.values());

/**
 * HyperDX's value of a gauge series in an interval is its last point there (its metric query
 * buckets each series with `last_value`); Datadog's default time aggregation of a gauge is the
 * mean of the points in the interval. They differ whenever an interval holds several points
 * (the agent's checks flush every 15 s; a one-hour chart has one-minute intervals).
 */
export const GAUGE_INTERVAL_NOTE = "a gauge's value in each interval is its last point there (Datadog averages the interval's points)";

/**
 * The bridge writes a `hostname` tag to the resource's host.name, where the series' own host
 * (the agent's) wins (src/signals/shared/known-keys.ts): a query on the tag reads the host.
 */
export const HOSTNAME_NOTE = "the hostname tag is read as the host: the bridge writes it to host.name, where the series' own host wins";

/** The terms of a filter, negated or not: its tags (`key:value`) and variables. */
function filterTerms(filter: Filter): Extract<Filter, { kind: 'tag' | 'var' }>[] {
  switch (filter.kind) {
    case 'tag':
    case 'var':
      return [filter];
    case 'not':
      return filterTerms(filter.filter);
    case 'and':
    case 'or':
      return filter.filters.flatMap(filterTerms);
    default:
      return [];
  }
}

/** The tag keys a filter names (a variable's when it names one). */
const filterKeys = (filter: Filter): string[] => filterTerms(filter).flatMap((t) => (t.kind === 'var' ? (t.key ? [t.key] : []) : [t.bare ? (splitTag(t.key)?.[0] ?? t.key) : t.key]));

/** The tag values of a filter that hold a wildcard (`host:web-*`), other than a lone `*`. */
const wildcardValues = (filter: Filter): string[] => filterTerms(filter).flatMap((t) => (t.kind === 'tag' && t.value.includes('*') && t.value !== '*' ? [t.value] : []));

/** The keys a filter names with the empty value (`key:`). */
const emptyValued = (filter: Filter): string[] => filterTerms(filter).flatMap((t) => (t.kind === 'tag' && !t.bare && t.value === '' ? [t.key] : []));

export const emptyValueNote = (key: string): string => `${key}: (the empty value) also matches points without the tag (HyperDX reads a missing tag as empty)`;

/** One metric query → its select, and what it approximates. */
function metricSelect(mq: MetricQuery, ctx: QueryContext, notes: string[] = []): SelectItem {
  const metric = metricOf(mq, ctx);
  notes.push(...metric.notes);
  if (metric.type === 'gauge') notes.push(GAUGE_INTERVAL_NOTE);
  notes.push(...wildcardValues(mq.filter).map(wildcardNote), ...emptyValued(mq.filter).map(emptyValueNote));
  for (const tag of mq.groupBy) if (tagColumn('metrics', tag).list) notes.push(`split by ${tag}: a series with several ${tag} values is drawn in the group of its first (the bridge writes them as one list)`);
  if ([...mq.groupBy, ...filterKeys(mq.filter)].includes('hostname')) notes.push(HOSTNAME_NOTE);
  const where = [...metric.where, filterToLucene(tagScopeOf(mq, ctx), mq.filter, ctx)].filter((w) => w !== '').join(' AND ');
  return { ...aggregation(mq, metric), where, whereLanguage: 'lucene', metricName: metric.name, metricType: metric.type };
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
  const known = distribution ? { ...ctx, metricTypes: new Map([...ctx.metricTypes, [mq.metric, 'distribution' as const]]) } : ctx;
  const base = metricSelect({ ...mq, aggregator: 'count' }, known, notes);
  if (mq.groupBy.length > 0) notes.push(`${mq.metric}: the distribution over {${mq.groupBy.join(',')}} drawn as quantiles of all its points`);
  const selects = levels.map((level): SelectItem => ({ ...base, aggFn: 'quantile', level, valueExpression: 'Value', alias: `p${Math.round(level * 100)}`, ...(distribution ? { metricType: 'exponential histogram' as const } : {}) }));
  return { selects, notes };
}

export const groupColumns = (scope: TagScope, tags: readonly string[]): string[] => tags.filter((t) => t !== '*').map((t) => sqlField(tagColumn(scope.table, t, scope.optIn, scope.apm)));

/** Functions that turn a count into a rate: drawn as counts per HyperDX interval, and said. */
const RATE_FUNCTIONS = new Set(['per_second', 'per_minute', 'per_hour']);

/** How a function call is drawn: `default_zero` around the whole series is what line charts do anyway. */
function functionArg(expr: Extract<Expr, { kind: 'call' }>): Expr {
  const [inner, ...rest] = expr.args;
  if (inner === undefined || inner.kind === 'string' || inner.kind === 'named' || rest.length > 0) throw new Unsupported(`${expr.name}() has no HyperDX equivalent`);
  return inner;
}

/**
 * HyperDX's formulas read every operand as `coalesce(value, 0)` and a divisor as `nullif(…, 0)`
 * (common-utils' formula compiler), over the intervals and groups any select of the chart has: a
 * query with no value where another has one counts as 0, what Datadog does only for a query in
 * `default_zero()`; elsewhere Datadog draws no value there.
 */
export const FORMULA_ZERO_NOTE = 'in a formula, a query with no value in an interval counts as 0 (Datadog draws no value there unless the query is in default_zero())';

/** A formula's metric leaves, and how many of them are not in `default_zero()`. */
interface Leaves {
  all: number;
  bare: number;
}

/** Formula text over select letters; every metric leaf becomes the next select. */
function render(expr: Expr, leaf: (mq: MetricQuery) => string, notes: string[], ctx: QueryContext, leaves: Leaves, zeroed = false): string {
  switch (expr.kind) {
    case 'metric':
      leaves.all++;
      if (!zeroed) leaves.bare++;
      return leaf(expr);
    case 'number':
      return String(expr.value);
    case 'negate':
      return `(0 - ${render(expr.operand, leaf, notes, ctx, leaves, zeroed)})`;
    case 'binary':
      return `(${render(expr.left, leaf, notes, ctx, leaves, zeroed)} ${expr.op} ${render(expr.right, leaf, notes, ctx, leaves, zeroed)})`;
    case 'call': {
      const inner = functionArg(expr);
      // around a single query, default_zero() is what HyperDX's formula does with every operand;
      // around the whole series, what a line chart draws anyway (empty intervals as 0)
      if (expr.name === 'default_zero') return render(inner, leaf, notes, ctx, leaves, zeroed || inner.kind === 'metric');
      if (RATE_FUNCTIONS.has(expr.name)) {
        const counted = metricQueriesOf(inner).every((mq) => metricOf(mq, ctx).type === 'sum');
        if (!counted) throw new Unsupported(`${expr.name}() of a gauge (its change per unit of time) has no HyperDX equivalent`);
        notes.push(`${expr.name}(): drawn as counts per HyperDX interval, not per ${expr.name.slice(4)}`);
        return render(inner, leaf, notes, ctx, leaves, zeroed);
      }
      throw new Unsupported(`${expr.name}() has no HyperDX equivalent`);
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

const tagList = (columns: readonly string[]): string => `{${columns.join(', ')}}`;

/**
 * HyperDX applies a chart's one group-by to every select, so every select must split by the same
 * tags: `a by {status} / b` would otherwise divide each status by its own part of b (100 % each).
 */
function requireGroupBy(into: Series, columns: readonly string[]): void {
  if (into.selects.length === 0) {
    into.groupBy.splice(0, into.groupBy.length, ...columns);
    return;
  }
  const same = columns.length === into.groupBy.length && columns.every((c) => into.groupBy.includes(c));
  if (!same) throw new Unsupported(`its queries split by different tags (${tagList(into.groupBy)} and ${tagList(columns)}): HyperDX applies one group-by to every query of a chart`);
}

/** Adds one expression (a `q:` series, a monitor query) to `into`. */
export function addExpression(into: Series, expr: Expr, ctx: QueryContext, alias?: string): void {
  const before = into.selects.length;
  const notes: string[] = [];
  const leaves: Leaves = { all: 0, bare: 0 };
  const formula = render(
    expr,
    (mq) => {
      notes.push(...methodNotes(mq));
      const select = metricSelect(mq, ctx, notes);
      requireGroupBy(into, groupColumns(tagScopeOf(mq, ctx), mq.groupBy));
      into.selects.push(select);
      return letter(into.selects.length - 1);
    },
    notes,
    ctx,
    leaves,
  );
  if (expr.kind !== 'metric' && leaves.bare > 0) into.bareOperands = true;
  into.notes.push(...notes);
  if (expr.kind === 'metric') {
    if (alias) into.selects[before]!.alias = alias;
    into.formulas.push({ expression: letter(before), ...(alias ? { alias } : {}) });
  } else into.formulas.push({ expression: stripOuterParens(formula), ...(alias ? { alias } : {}) });
}

/** Datadog's log aggregations → HyperDX's (`pc99` is the 99th percentile, `cardinality` a unique count). */
const LOG_AGGREGATIONS: Readonly<Record<string, Pick<SelectItem, 'aggFn' | 'level'>>> = {
  count: { aggFn: 'count' },
  cardinality: { aggFn: 'count_distinct' },
  avg: { aggFn: 'avg' },
  sum: { aggFn: 'sum' },
  min: { aggFn: 'min' },
  max: { aggFn: 'max' },
  median: { aggFn: 'quantile', level: 0.5 },
  pc50: { aggFn: 'quantile', level: 0.5 },
  pc90: { aggFn: 'quantile', level: 0.9 },
  pc95: { aggFn: 'quantile', level: 0.95 },
  pc99: { aggFn: 'quantile', level: 0.99 },
};

/**
 * A log (or span) aggregation over a search: a count, a unique count of a facet, or a measure
 * (attributes are strings in ClickHouse: a measure is read as a number; a column of its own, a
 * span's Duration, is a number already). HyperDX reads an aggregated value through
 * toFloat64OrDefault, which makes a value that is not a number 0 (even when ours is NULL): an avg,
 * min, max or percentile counts it where Datadog's measure leaves it out, which is said (a sum
 * is not changed by it). The facet is read as written:
 * `@duration` an attribute, a bare name a reserved field or a tag (`cardinality` of `host` counts
 * hosts, which the bridge keeps as the resource's host.name, not as an attribute named host); a
 * bare name that is neither is where the bridge writes a log's tags and attributes alike.
 */
export function logAggregation(aggregation: string, metric: string | undefined, what: string, schema: SearchSchema, notes: string[]): Pick<SelectItem, 'aggFn' | 'level' | 'valueExpression'> {
  const agg = LOG_AGGREGATIONS[aggregation];
  if (agg === undefined) throw new Unsupported(`${what}: the ${aggregation} aggregation has no HyperDX equivalent`);
  if (agg.aggFn === 'count') return agg;
  if (metric === undefined || metric === '') throw new Unsupported(`${what}: ${aggregation} of no attribute`);
  const field = searchFieldSql(schema, metric);
  const column = typeof schema.column(metric) === 'string';
  if (!column && agg.aggFn !== 'count_distinct' && agg.aggFn !== 'sum') notes.push(`${NOT_A_NUMBER_NOTE} (${aggregation} of ${metric})`);
  return { ...agg, valueExpression: agg.aggFn === 'count_distinct' || column ? field : `toFloat64OrNull(${field})` };
}

/** What HyperDX makes of a measure's value that is not a number. */
export const NOT_A_NUMBER_NOTE = 'a record whose measure is not a number is read as 0 (HyperDX reads every value as a number), where Datadog leaves it out';

/** Where a query of a search source reads: logs, events (log records too) or spans. */
const searchOf = (dataSource: string, ctx: QueryContext): SearchSchema => (dataSource === 'spans' ? spanSearch(ctx.semconv) : dataSource === 'events' ? EVENT_SEARCH : LOG_SEARCH);

/** A search kept to the records of its source (logs and events share the logs table). */
const searchWhere = (dataSource: string, where: string): string => keptTo(dataSource === 'events' ? 'events' : dataSource === 'spans' ? 'spans' : 'logs', where);

/** A log (or event, or span) query of the newer form: a count (or a measure) over a search, split by facets. */
function searchSelect(q: NamedQuery, ctx: QueryContext, notes: string[]): { select: SelectItem; groupBy: string[] } {
  const schema = searchOf(q.data_source, ctx);
  const search = withVariableDefaults(q.search?.query ?? '', ctx.variables, notes);
  const interval = (q.compute as { interval?: number } | undefined)?.interval;
  if (interval !== undefined) notes.push(`the ${interval / 60_000}-minute rollup of "${q.name}" dropped: HyperDX picks the interval`);
  const facets = (q.group_by ?? []).map((g) => g.facet);
  if (q.data_source === 'events' && facets.includes('status')) notes.push(`${EVENT_LEVELS_NOTE}: split by status, success is drawn as info`);
  if (q.data_source === 'events' && facets.includes('service')) notes.push(`${EVENT_SERVICE_NOTE}: split by service, it is drawn in that group`);
  const aggregation = q.compute?.aggregation ?? 'count';
  // a measure or unique count reads the records that hold the attribute (HyperDX would read a missing one as 0 or '')
  const measured = aggregation !== 'count' && q.compute?.metric ? [q.compute.metric] : [];
  return {
    select: {
      ...logAggregation(aggregation, q.compute?.metric, `${q.data_source} query "${q.name}"`, schema, notes),
      where: searchWhere(q.data_source, holdingFacets(translateSearch(search, schema, notes), [...facets, ...measured], schema, notes)),
      whereLanguage: 'lucene',
    },
    groupBy: facets.map((f) => searchFieldSql(schema, f)),
  };
}

const NAME_TOKEN = /[A-Za-z_][A-Za-z0-9_]*/g;

/** A function wrapped around a whole formula: `per_second(query1)`, `top(query1, 10, 'mean', 'desc')`. */
const WRAPPER = /^\s*(\w+)\((.*)\)\s*$/;

/** The arguments after the first of a wrapper's argument text (`query1, 10, 'mean', 'desc'`). */
const wrapperArgs = (text: string): string[] => {
  const depth0 = text.split(',');
  return depth0.slice(1).map((a) => a.trim().replace(/^['"]|['"]$/g, ''));
};

/**
 * `100 * cnt / mx` with named queries → `100 * A / B`. Around the whole formula, `default_zero()`
 * is what a line chart draws anyway, `per_second()` (…minute, …hour) of counted queries is drawn
 * per interval and said, `top()` is returned for the chart to keep its N series; any other function
 * in a formula is not migrated. Operands HyperDX counts as 0 where Datadog has none: said
 * (FORMULA_ZERO_NOTE).
 */
function formulaOverLetters(formula: string, names: ReadonlyMap<string, string>, counted: (letter: string) => boolean, notes: string[]): { expression: string; bare: boolean; top?: { limit: number; rank: string; order: string } } {
  let body = formula;
  let top: { limit: number; rank: string; order: string } | undefined;
  for (let m = WRAPPER.exec(body); m && ['default_zero', 'top', ...RATE_FUNCTIONS].includes(m[1]!) && balanced(m[2]!); m = WRAPPER.exec(body)) {
    const [, name, inner] = m as unknown as [string, string, string];
    if (name === 'top') {
      const [limit, rank, order] = wrapperArgs(inner);
      top = { limit: Number(limit ?? 10) || 10, rank: rank ?? 'mean', order: order ?? 'desc' };
      body = inner.split(',')[0]!;
      continue;
    }
    body = inner;
    if (RATE_FUNCTIONS.has(name)) {
      const letters = body.replace(NAME_TOKEN, (n) => names.get(n) ?? n);
      if (!(letters.match(/\b[A-Z]\b/g) ?? []).every(counted)) throw new Unsupported(`formula "${formula}": ${name}() of a gauge (its change per unit of time) has no HyperDX equivalent`);
      notes.push(`${name}(): drawn as counts per HyperDX interval, not per ${name.slice(4)}`);
    }
  }
  const bare = (body.replace(/default_zero\(\s*\w+\s*\)/g, '').match(NAME_TOKEN) ?? []).filter((n) => names.has(n));
  const rewritten = body.replace(NAME_TOKEN, (name) => {
    // around one query, default_zero() is what HyperDX's formula does with every operand
    if (name === 'default_zero') return '';
    const l = names.get(name);
    if (l === undefined) throw new Unsupported(`formula "${formula}": ${name} is not one of its queries (functions in formulas are not migrated)`);
    return l;
  });
  if (!/^[A-Z0-9.+\-*/()\s]*$/.test(rewritten)) throw new Unsupported(`formula "${formula}" is not plain arithmetic`);
  return { expression: rewritten, bare: bare.length > 0, ...(top ? { top } : {}) };
}

const SOURCE_OF: Readonly<Record<string, SourceKind>> = { metrics: 'metric', logs: 'log', events: 'log', spans: 'trace' };

/** The newer form: named queries (metrics or logs), combined by formulas. */
export function addNamedQueries(into: Series, queries: readonly NamedQuery[], formulas: readonly { formula: string; alias?: string }[], ctx: QueryContext): { limit: number; rank: string; order: string } | undefined {
  const names = new Map<string, string>();
  for (const q of queries) {
    const source = SOURCE_OF[q.data_source];
    if (source === undefined) throw new Unsupported(`${q.data_source} queries are not migrated (metrics, logs, events and spans are)`);
    if (into.selects.length > 0 && into.source !== source) throw new Unsupported('a chart mixing metrics, logs or spans is not migrated (one source per HyperDX chart)');
    into.source = source;
    names.set(q.name, letter(into.selects.length));
    if (source !== 'metric') {
      const { select, groupBy } = searchSelect(q, ctx, into.notes);
      requireGroupBy(into, groupBy);
      into.selects.push(select);
      continue;
    }
    const expr = parseMetricExpression(q.query ?? '');
    if (expr.kind !== 'metric') throw new Unsupported(`query "${q.name}" is not a single metric query`);
    into.notes.push(...methodNotes(expr));
    const select = metricSelect(expr, ctx, into.notes);
    requireGroupBy(into, groupColumns(tagScopeOf(expr, ctx), expr.groupBy));
    into.selects.push(select);
  }
  const drawn: readonly { formula: string; alias?: string }[] = formulas.length > 0 ? formulas : queries.map((q) => ({ formula: q.name }));
  const counted = (l: string): boolean => into.selects[l.charCodeAt(0) - 65]?.metricType === 'sum' || into.source !== 'metric';
  let top: { limit: number; rank: string; order: string } | undefined;
  for (const f of drawn) {
    const rendered = formulaOverLetters(f.formula, names, counted, into.notes);
    top = rendered.top ?? top;
    if (rendered.bare && !/^[A-Z]$/.test(rendered.expression.trim())) into.bareOperands = true;
    into.formulas.push({ expression: rendered.expression, ...(f.alias ? { alias: f.alias } : {}) });
  }
  return top;
}

/** The source a series reads; spans need a trace source. */
export function sourceIdOf(kind: SourceKind, sources: Sources): string {
  if (kind !== 'trace') return kind === 'log' ? sources.log : sources.metric;
  if (sources.trace === undefined) throw new Unsupported('a spans query needs a trace source (the instance has not exactly one: give --trace-source)');
  return sources.trace;
}

export const emptySeries = (): Series => ({ source: 'metric', selects: [], formulas: [], groupBy: [], notes: [] });

/**
 * Formulas only where one says more than "draw select X": otherwise the selects are drawn as
 * they are, with the formulas' aliases. Formulas over several selects count a missing operand as
 * 0: said when an operand is not in `default_zero()`.
 */
export function withoutTrivialFormulas(s: Series): Series {
  const trivial = s.formulas.length === s.selects.length && s.formulas.every((f, i) => f.expression === letter(i));
  if (!trivial) return s.selects.length > 1 && s.bareOperands ? { ...s, notes: [...s.notes, FORMULA_ZERO_NOTE] } : s;
  return { ...s, selects: s.selects.map((sel, i) => (s.formulas[i]?.alias ? { ...sel, alias: s.formulas[i].alias } : sel)), formulas: [] };
}
