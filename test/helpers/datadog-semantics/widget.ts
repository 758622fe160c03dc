/**
 * What a Datadog widget draws (./evaluate.ts over its requests), in the shape the migrated tile
 * draws it: per interval and group for a line or bar chart, one value per group for a value,
 * top list or table (`display` is the migrated tile's HyperDX display type, which says which
 * series the tile shows: a number or a bar chart shows its first).
 */
// the export format's types (what fields a request has), not the migration's reading of them
import type { NamedQuery, WidgetRequest as Request } from '../../../tools/src/migrate/datadog';
import { type Ctx, cellsOf, type Dataset, expressionGrid, flatMetric, type Grid, type Leaf, type LogQuery, logGrid, metricGrid, type Modes, NotModelled, type Operand, reduceGrid, topGroups, type Variable, type Window } from './evaluate';
import { PERCENTILE_TOLERANCE, percentileLevel } from './distribution';
import { type MetricTerm, metricTerms, readFormula, readQueries, readQuery, type Term } from './metric-query';

export interface WidgetDef {
  type: string;
  requests?: unknown;
  /** the older event stream widget's search */
  query?: unknown;
}

export interface Expected {
  /** `series`: per interval; `value`: one value per group (at interval 0) */
  shape: 'series' | 'value';
  series: Grid[];
  /** how far (relatively) a drawn value may lie from these: set where the widget reads a percentile of a distribution */
  tolerance?: number;
}

/** The HyperDX display types that draw one value per group over the window. */
const VALUE_DISPLAYS = new Set(['number', 'table', 'bar', 'pie']);
/** Those that show their first series only. */
const FIRST_ONLY = new Set(['number', 'bar', 'pie']);

const asGrid = (o: Operand): Grid => (typeof o === 'number' ? new Map([['', new Map([[0, o]])]]) : o);

function logQueryOf(q: NamedQuery): LogQuery {
  return { search: q.search?.query ?? '', aggregation: q.compute?.aggregation ?? 'count', measure: q.compute?.metric, groupBy: (q.group_by ?? []).map((g) => g.facet) };
}

/** A newer-form request: its named queries (reduced when a value is drawn), combined by its formulas. */
function namedSeries(r: Request, ctx: Ctx, value: boolean): Grid[] {
  const leaves = new Map<string, Operand>();
  for (const q of r.queries ?? []) {
    if (q.data_source === 'logs' || q.data_source === 'events' || q.data_source === 'spans') {
      leaves.set(q.name, logGrid({ ...logQueryOf(q), events: q.data_source === 'events', spans: q.data_source === 'spans' }, ctx, !value));
      continue;
    }
    if (q.data_source !== 'metrics') throw new NotModelled(`${q.data_source} queries`);
    const term = readQuery(q.query ?? '');
    if (term.type !== 'metric') throw new NotModelled('a named query that is not one metric query');
    leaves.set(q.name, !value ? metricGrid(term, ctx) : ctx.modes.reduce === 'flat' ? flatMetric(term, ctx, ctx.modes.dropGroups) : reduceGrid(metricGrid(term, ctx), q.aggregator ?? 'avg'));
  }
  const leaf: Leaf = (t) => {
    if (t.type !== 'ref') throw new NotModelled('a metric query inside a formula');
    const v = leaves.get(t.name);
    if (v === undefined) throw new NotModelled(`formula names ${t.name}`);
    return v;
  };
  const formulas = r.formulas?.length ? r.formulas.map((f) => f.formula) : (r.queries ?? []).map((q) => q.name);
  const tileCells = cellsOf([...leaves.values()]);
  return formulas.map((f) => asGrid(expressionGrid(readFormula(f), ctx, leaf, tileCells)));
}

/** An older-form `q:` request: each comma-separated expression, reduced over the window when a value is drawn. */
function qSeries(r: Request, ctx: Ctx, value: boolean): Grid[] {
  const exprs = readQueries(r.q!);
  const leaf = (t: MetricTerm): Grid => (value && ctx.modes.reduce === 'flat' ? flatMetric(t, ctx, ctx.modes.dropGroups) : metricGrid(t, ctx));
  const tileCells = cellsOf(exprs.flatMap(metricTerms).map(leaf));
  const grid = (e: Term): Operand => expressionGrid(e, ctx, (t) => leaf(t as MetricTerm), tileCells);
  if (!value || ctx.modes.reduce === 'flat') return exprs.map((e) => asGrid(grid(e)));
  return exprs.map((e) => asGrid(reduceGrid(grid(e), r.aggregator ?? 'avg')));
}

function requestSeries(r: Request, ctx: Ctx, value: boolean): Grid[] {
  if (r.q !== undefined) return qSeries(r, ctx, value);
  if (r.queries) return namedSeries(r, ctx, value);
  if (r.log_query) {
    const lq = r.log_query;
    return [logGrid({ search: lq.search?.query ?? '', aggregation: lq.compute?.aggregation ?? 'count', measure: lq.compute?.facet ?? lq.compute?.metric, groupBy: (lq.group_by ?? []).map((g) => g.facet) }, ctx, !value)];
  }
  const stream = r.query?.data_source;
  if (stream === 'logs_stream' || stream === 'event_stream' || stream === 'trace_stream')
    return [logGrid({ search: r.query?.query_string ?? '', aggregation: 'count', groupBy: [], events: stream === 'event_stream', spans: stream === 'trace_stream' }, ctx, false)];
  throw new NotModelled('a request without a query');
}

/** Collapses a value's groups into one (HyperDX's number tile draws one value: `dropGroups`). */
function oneGroup(g: Grid): Grid {
  if (g.size <= 1) return g;
  throw new NotModelled('a grouped value drawn as one number');
}

/** The group-by of the widget's first query: a metric query's `by` tags, a log query's facets. */
function firstGroupBy(requests: readonly Request[]): string[] | undefined {
  for (const r of requests) {
    const text = r.q ?? r.queries?.find((q) => q.data_source === 'metrics')?.query;
    const log = r.queries?.find((q) => q.data_source === 'logs' || q.data_source === 'spans') ?? r.log_query;
    if (text !== undefined) {
      const [term] = readQueries(text).flatMap(metricTerms);
      if (term) return term.by;
    }
    if (log) return (log.group_by ?? []).map((g) => g.facet);
  }
  return undefined;
}

/** The quantiles a distribution widget is drawn as (the migration's note says which). */
const DISTRIBUTION_QUANTILES = ['p50', 'p90', 'p95', 'p99'];

/**
 * A distribution widget (the histogram of a distribution's values over the window) drawn as a table
 * of its quantiles: each quantile of every value its query keeps over the window, one population.
 * Of a gauge or a count (the distribution of its series' values) no model.
 */
function distributionQuantiles(requests: readonly Request[], ctx: Ctx): Expected {
  const text = requests[0]?.q ?? requests[0]?.query?.query;
  const [term, ...more] = text === undefined ? [] : readQueries(text).flatMap(metricTerms);
  if (term === undefined || more.length > 0) throw new NotModelled('a distribution widget of no single metric query');
  const series = DISTRIBUTION_QUANTILES.map((space) => flatMetric({ ...term, space, by: [] }, ctx, true));
  return { shape: 'value', series, tolerance: PERCENTILE_TOLERANCE };
}

export function expectedOf(def: WidgetDef, variables: readonly Variable[], data: Dataset, window: Window, modes: Modes, display: string): Expected {
  const requestList = (Array.isArray(def.requests) ? def.requests : []) as Request[];
  const ctx: Ctx = { data, window, modes, variables, groupOrder: firstGroupBy(requestList) };
  if (def.type === 'distribution') return distributionQuantiles(requestList, ctx);
  const value = VALUE_DISPLAYS.has(display) || display === 'search';
  const requests = requestList;
  // the older event stream widget: its search in `query`
  let series = def.type === 'event_stream' ? [logGrid({ search: String(def.query ?? ''), aggregation: 'count', groupBy: [], events: true }, ctx, false)] : requests.flatMap((r) => requestSeries(r, ctx, value));
  if (FIRST_ONLY.has(display) || display === 'search') series = series.slice(0, 1);
  if (display === 'number' || display === 'search') series = series.map(oneGroup);
  const limit = display === 'bar' || display === 'pie' ? topLimitOf(requests) : undefined;
  if (limit !== undefined && modes.top !== 'all') series = series.map((g) => topGroups(g, limit, 'last', 'desc', 'datadog'));
  return { shape: value ? 'value' : 'series', series, ...(readsPercentile(requests) ? { tolerance: PERCENTILE_TOLERANCE } : {}) };
}

/** Whether a metric query of the widget reads a percentile (`p95:`): of a distribution, Datadog's and HyperDX's are both approximate. */
function readsPercentile(requests: readonly Request[]): boolean {
  const texts = requests.flatMap((r) => [...(r.q ? [r.q] : []), ...(r.queries ?? []).flatMap((q) => (q.data_source === 'metrics' && q.query ? [q.query] : []))]);
  return texts.some((text) =>
    readQueries(text)
      .flatMap(metricTerms)
      .some((t) => percentileLevel(t.space) !== undefined),
  );
}

/** `top(…, 10, 'sum', 'desc')` around a whole query or formula: its count. */
const TOP_CALL = /^\s*top\(.*,\s*(\d+)\s*,\s*'\w+'\s*,\s*'desc'\s*\)\s*$/;
const topCallLimit = (text: string | undefined): number | undefined => {
  const m = TOP_CALL.exec(text ?? '');
  return m ? Number(m[1]) : undefined;
};

/** A top list's count (`sort.count`, a formula's `limit.count`, a log group's `limit`, a `top()` around its query). */
function topLimitOf(requests: readonly Request[]): number | undefined {
  for (const r of requests) {
    const n = r.sort?.count ?? r.formulas?.find((f) => f.limit?.count)?.limit?.count ?? r.log_query?.group_by?.[0]?.limit ?? topCallLimit(r.q) ?? topCallLimit(r.formulas?.[0]?.formula);
    if (n !== undefined) return n;
  }
  return undefined;
}
