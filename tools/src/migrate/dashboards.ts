/**
 * A Datadog dashboard → a HyperDX dashboard: one tile per widget (groups become containers), in
 * the same order and roughly the same place; template variables become dashboard filters
 * (filters.ts). A widget HyperDX cannot draw becomes a Markdown tile saying why, with its
 * original queries, so nothing disappears silently. HyperDX has no per-tile text besides the
 * title and a Markdown tile's body (TileBase and the chart configs of the OpenAPI document), so
 * the original query text of every tile is kept in a last Markdown tile, "Migrated from Datadog".
 */
import type { DatadogDashboard, Widget, WidgetDefinition, WidgetLayout, WidgetRequest } from './datadog';
import { dashboardFilters, filterVariableNames, inlinedNotes } from './filters';
import { sharedKeyNotes, sharedLogKeys } from './log-keys';
import { EVENT_SEARCH, keptTo, LOG_SEARCH, spanSearch, translateSearch, withVariableDefaults } from './log-search';
import { type Expr, type FunctionArg, metricQueriesOf, parseMetricQueries, QueryError } from './metric-query';
import { type DashboardPlan, formerMarkerFor, type ItemReport, identityOf, markerFor, outcomeOf, type Sources, type Status, type TileInput } from './plan';
import {
  addExpression,
  addNamedQueries,
  DEFAULT_SETTINGS,
  emptySeries,
  type MetricType,
  type QueryContext,
  quantileSelects,
  type SelectItem,
  type Series,
  sourceIdOf,
  type TranslationSettings,
  Unsupported,
  type VariableUse,
  withoutTrivialFormulas,
} from './series';

/** HyperDX's grid is 24 columns wide (TileBase.x ≤ 23, w ≤ 24). */
const GRID = 24;
/** Datadog's ordered layout is 12 columns wide. */
const ORDERED_GRID = 12;
const FLOW = { w: 12, h: 6 };
const MAX_SELECTS = 20;
const MAX_FORMULAS = 10;
const MAX_MARKDOWN = 50_000;

interface TileDraft {
  name: string;
  /** the Datadog widget type, for the report */
  type: string;
  /** exact, approximated (how: `notes`) or dropped (why: `notes`); text widgets are `text` */
  status: Status | 'text';
  config: Record<string, unknown> & { displayType: string };
  /** the queries as Datadog wrote them */
  original: string[];
  notes: string[];
  /** false when the widget became a "not migrated" note */
  migrated: boolean;
}

/** The text of every query a widget holds, for the report and the notes tile. */
function originalQueries(def: WidgetDefinition): string[] {
  const requests = Array.isArray(def.requests) ? (def.requests as WidgetRequest[]) : def.requests ? Object.values(def.requests as Record<string, WidgetRequest>) : [];
  return requests.flatMap((r) => [
    ...(r.q ? [r.q] : []),
    ...(r.queries ?? []).map((q) => q.query ?? `${q.data_source}: ${q.search?.query ?? ''}`),
    ...(r.formulas ?? []).filter((f) => !(r.queries ?? []).some((q) => q.name === f.formula)).map((f) => `formula ${f.formula}`),
    ...(r.query?.query_string !== undefined ? [`${r.query.data_source}: ${r.query.query_string}`] : []),
    ...(r.query?.query !== undefined ? [r.query.query] : []),
  ]);
}

/** A `top(q, N, 'mean', 'desc')` around a series: how many, ranked how, which end. */
interface Top {
  limit: number;
  rank: string;
  order: string;
}

function seriesOf(def: WidgetDefinition, ctx: QueryContext): { series: Series; top: Top | undefined } {
  const series = emptySeries();
  let top: Top | undefined;
  for (const request of (def.requests ?? []) as WidgetRequest[]) {
    if (request.q !== undefined) {
      for (const expr of parseMetricQueries(request.q)) {
        const [inner, found] = unwrapTop(expr);
        if (found !== undefined) top = found;
        addExpression(series, inner, ctx);
      }
    } else if (request.queries) {
      top = addNamedQueries(series, request.queries, request.formulas ?? [], ctx) ?? top;
      const limit = request.formulas?.find((f) => f.limit?.count)?.limit;
      const count = request.sort?.count ?? limit?.count;
      if (count !== undefined && (def.type === 'toplist' || def.type === 'sunburst' || def.type === 'treemap')) top = { limit: count, rank: 'the query aggregator', order: limit?.order ?? 'desc' };
    } else if (request.log_query) {
      const lq = request.log_query;
      addNamedQueries(series, [{ name: 'query1', data_source: 'logs', search: lq.search, compute: { aggregation: lq.compute?.aggregation ?? 'count', metric: lq.compute?.facet ?? lq.compute?.metric }, group_by: lq.group_by }], [], ctx);
      const limit = lq.group_by?.[0]?.limit;
      if (limit !== undefined && def.type === 'toplist') top = { limit, rank: 'the count', order: 'desc' };
    } else throw new Unsupported('a request without a query');
  }
  if (series.selects.length === 0) throw new Unsupported('no query to draw');
  if (series.selects.length > MAX_SELECTS) throw new Unsupported(`${series.selects.length} queries in one chart (HyperDX draws at most ${MAX_SELECTS})`);
  if (series.formulas.length > MAX_FORMULAS) throw new Unsupported(`${series.formulas.length} series in one chart (HyperDX computes at most ${MAX_FORMULAS} formulas)`);
  return { series: withoutTrivialFormulas(series), top };
}

const argText = (arg: FunctionArg | undefined): string | undefined => (arg === undefined ? undefined : arg.kind === 'string' ? arg.value : arg.kind === 'number' ? String(arg.value) : arg.kind === 'metric' ? arg.metric : undefined);

/** `top(q, 10, 'mean', 'desc')` → q and how it ranks (also `top5_max(q)`-style names are not read: they are functions HyperDX lacks). */
function unwrapTop(expr: Expr): [Expr, Top | undefined] {
  if (expr.kind !== 'call' || expr.name !== 'top') return [expr, undefined];
  const [inner, limit, rank, order] = expr.args;
  if (inner === undefined || inner.kind === 'string' || inner.kind === 'named') throw new Unsupported('top() without a query');
  return [inner, { limit: limit?.kind === 'number' ? limit.value : Number(argText(limit) ?? 10), rank: argText(rank) ?? 'mean', order: argText(order) ?? 'desc' }];
}

/**
 * A line chart's series limit: HyperDX keeps the N series with the highest peak, their largest
 * value in one interval (the time chart ranks metric series by their largest absolute value, and
 * the query of a log chart ranks groups by their largest value per interval); Datadog ranks them
 * by `rank` (mean, max, min, last, area, l2norm, norm) over the window, and `asc` keeps the
 * smallest, which HyperDX cannot: then every series is drawn.
 */
function topLimit(top: Top | undefined, notes: string[]): number | undefined {
  if (top === undefined) return undefined;
  if (top.order !== 'desc') {
    notes.push(`top ${top.limit} in ${top.order} order: HyperDX keeps the largest series only, so every series is drawn`);
    return undefined;
  }
  notes.push(`top ${top.limit}: HyperDX keeps the ${top.limit} series with the highest peak (largest value in one interval), Datadog the ${top.limit} with the highest ${top.rank}`);
  return top.limit;
}

/** `top()`'s ranking reducers by the aggregator they equal. */
const RANK_AGGREGATOR: Readonly<Record<string, string>> = { mean: 'avg', max: 'max', min: 'min', last: 'last', area: 'sum', sum: 'sum' };

/** Whether a top list keeps the bars Datadog would: ranked by the value it shows. */
const ranksByValue = (rank: string, reducer: string | undefined): boolean => rank === 'the query aggregator' || rank === 'the count' || RANK_AGGREGATOR[rank] === reducer;

function builder(displayType: string, series: Series, sources: Sources): TileDraft['config'] {
  const formulas = series.formulas.length > 0 ? { formulas: series.formulas, showOperandSeries: false } : {};
  return {
    displayType,
    sourceId: sourceIdOf(series.source, sources),
    select: series.selects,
    ...(series.groupBy.length > 0 ? { groupBy: series.groupBy.join(', ') } : {}),
    ...formulas,
  };
}

/**
 * A top list's (a sunburst's, a treemap's) limit on its bars (slices): HyperDX's bar and pie keep
 * the largest; an ascending order, or a rank other than the value shown, is said.
 */
function categoryLimit(def: WidgetDefinition, top: Top | undefined, notes: string[]): { limit?: number } {
  if (top === undefined) return {};
  if (top.order !== 'desc') {
    notes.push(`top ${top.limit} in ${top.order} order: HyperDX keeps the largest bars only, so every bar is drawn`);
    return {};
  }
  if (!ranksByValue(top.rank, datadogReducers(def).reducers[0])) notes.push(`top ${top.limit}: HyperDX keeps the ${top.limit} largest bars, Datadog the ${top.limit} with the highest ${top.rank} over time`);
  return { limit: top.limit };
}

/**
 * HyperDX's histogram queries (a quantile or a count of a histogram or exponential-histogram
 * metric) carry the group-by as one array column: an ORDER BY naming the group-by expression, which
 * its table and its limited pie or bar add by default, fails there (`Unknown identifier Attributes`).
 */
const readsHistogram = (series: Series): boolean => series.selects.some((s) => (s as SelectItem).metricType === 'histogram' || (s as SelectItem).metricType === 'exponential histogram');

/**
 * `series` ordered by its first value column, largest first (as Datadog's query table and top list
 * sort by default): a first select without an alias is given the name HyperDX would show
 * (`avg(metric)`) to be ordered by.
 */
function byFirstValue(series: Series): { series: Series; orderBy: string } {
  const [formula] = series.formulas;
  const [first, ...rest] = series.selects as [SelectItem, ...SelectItem[]];
  const named = formula !== undefined || first.alias !== undefined ? series : { ...series, selects: [{ ...first, alias: `${first.aggFn}(${first.metricName ?? first.valueExpression ?? ''})` }, ...rest] };
  const column = formula ? (formula.alias ?? formula.expression) : named.selects[0]!.alias!;
  return { series: named, orderBy: `\`${column.replace(/`/g, '\\`')}\` DESC` };
}

/**
 * A table. HyperDX's table orders its rows by the group-by unless told otherwise; over several
 * metric selects (or a formula) that names a column the query no longer has (`Attributes['x']`,
 * which the selects' pivot renames), and over a histogram (readsHistogram), and the query fails.
 * Such a table is ordered by its first value column instead.
 */
function tableConfig(series: Series, sources: Sources): TileDraft['config'] {
  if (series.groupBy.length === 0 || (series.formulas.length === 0 && series.selects.length < 2 && !readsHistogram(series))) return builder('table', series, sources);
  const ordered = byFirstValue(series);
  return { ...builder('table', ordered.series, sources), orderBy: ordered.orderBy };
}

/** A bar or pie chart; one that keeps its largest groups over a histogram is ordered by its value (readsHistogram). */
function categoricalConfig(displayType: 'bar' | 'pie', series: Series, sources: Sources, limit: { limit?: number }): TileDraft['config'] {
  if (limit.limit === undefined || series.groupBy.length === 0 || !readsHistogram(series)) return { ...builder(displayType, series, sources), ...limit };
  const ordered = byFirstValue(series);
  return { ...builder(displayType, ordered.series, sources), ...limit, orderBy: ordered.orderBy };
}

/** The quantiles a distribution widget becomes (the levels HyperDX's quantile computes). */
const DISTRIBUTION_LEVELS = [0.5, 0.9, 0.95, 0.99];

/**
 * A distribution widget (one metric's values over the window, as a histogram) → a table of its
 * p50/p90/p95/p99 over the window: HyperDX draws no value histogram of a metric (its heatmaps
 * read trace sources only), and quantiles are what the widget's percentile markers read off it.
 */
function distributionTile(def: WidgetDefinition, ctx: QueryContext, sources: Sources): Pick<TileDraft, 'config' | 'notes'> {
  const [request, ...more] = (def.requests ?? []) as WidgetRequest[];
  const text = request?.q ?? request?.query?.query ?? request?.queries?.find((q) => q.data_source === 'metrics')?.query;
  if (text === undefined) throw new Unsupported('a distribution of something other than a metric query (APM stats, spans) is not migrated');
  const [expr, ...others] = parseMetricQueries(text);
  if (expr?.kind !== 'metric' || others.length > 0) throw new Unsupported('a distribution of an expression is not migrated (HyperDX computes quantiles of one metric)');
  const { selects, notes } = quantileSelects(expr, ctx, DISTRIBUTION_LEVELS);
  if (more.length > 0) notes.push('requests after the first dropped (a distribution draws one)');
  return {
    config: { displayType: 'table', sourceId: sources.metric, select: selects },
    notes: [...notes, 'distribution drawn as a table of its p50, p90, p95 and p99 (HyperDX draws no value histogram of a metric)'],
  };
}

/**
 * How Datadog reduces each select's query to one value over the window: the request's
 * aggregator for the older form (avg when none; it reduces the whole expression), each query's
 * for the newer form (then the formula combines the values); a log query is computed over the
 * window directly. In the order seriesOf adds the selects.
 */
function datadogReducers(def: WidgetDefinition): { reducers: (string | 'log')[]; arithmetic: boolean } {
  const reducers: (string | 'log')[] = [];
  let arithmetic = false;
  for (const request of (def.requests ?? []) as WidgetRequest[]) {
    if (request.q !== undefined) {
      for (const expr of parseMetricQueries(request.q)) {
        const count = metricQueriesOf(unwrapTop(expr)[0]).length;
        arithmetic ||= count > 1;
        reducers.push(...Array<string>(count).fill(request.aggregator ?? 'avg'));
      }
    } else if (request.queries) reducers.push(...request.queries.map((q) => (q.data_source === 'logs' ? 'log' : (q.aggregator ?? 'avg'))));
    else if (request.log_query) reducers.push('log');
  }
  return { reducers, arithmetic };
}

/** Space aggregation and reduction that give the same value taken together or one after the other. */
const SAME_AT_ONCE: Readonly<Record<string, string>> = { sum: 'sum', max: 'max', min: 'min', count: 'sum' };

/**
 * A value over the window (query_value, toplist, query_table, sunburst, treemap, geomap): HyperDX
 * reduces a select over the window in one step, applying its aggregation to every series' value
 * in every interval at once (its number, table and categorical charts drop the time buckets);
 * Datadog aggregates across series per interval, then reduces the intervals. The two agree when
 * both steps are sums, maxima or minima (a count of series summed over time), and for a log query,
 * which Datadog also computes over the window at once. Arithmetic of several queries in the older
 * form is reduced after it is computed; HyperDX computes the formula from the reduced values.
 */
function reductionNotes(def: WidgetDefinition, series: Series): string[] {
  const { reducers, arithmetic } = datadogReducers(def);
  const notes = series.selects.flatMap((select, i) => {
    const reducer = reducers[i] ?? 'avg';
    if (reducer === 'log' || select.metricType === undefined || SAME_AT_ONCE[select.aggFn] === reducer) return [];
    return [
      `value over the window: HyperDX takes the ${select.aggFn === 'quantile' ? `p${Math.round((select.level ?? 0) * 100)}` : select.aggFn} of every series' value in every interval at once; Datadog the ${reducer} over time of the ${select.aggFn === 'quantile' ? 'percentile' : select.aggFn} across series`,
    ];
  });
  if (arithmetic) notes.push("value over the window of arithmetic: Datadog reduces the result over time, HyperDX computes it from each query's value over the window");
  return notes;
}

/** Widgets drawn from metric or log queries, by HyperDX display type. */
function chartTile(def: WidgetDefinition, ctx: QueryContext, sources: Sources): Pick<TileDraft, 'config' | 'notes'> {
  const { series, top } = seriesOf(def, ctx);
  const notes = [...series.notes];
  const bars = ((def.requests ?? []) as WidgetRequest[]).some((r) => r.display_type === 'bars');
  const nulls = ((def.requests ?? []) as WidgetRequest[]).some((r) => /\.fill\(\s*null/.test(r.q ?? '')) ? { fillNulls: false } : {};
  switch (def.type) {
    case 'timeseries': {
      const seriesLimit = topLimit(top, notes);
      return { config: { ...builder(bars ? 'stacked_bar' : 'line', series, sources), ...nulls, ...(seriesLimit !== undefined ? { seriesLimit } : {}) }, notes };
    }
    case 'query_value': {
      const { groupBy: _ignored, ...config } = builder('number', series, sources);
      if (series.groupBy.length > 0) notes.push('group-by dropped: a HyperDX number tile shows one value');
      if (series.formulas.length > 1) throw new Unsupported('a value of several formulas (a HyperDX number tile computes one)');
      return { config, notes: [...notes, ...reductionNotes(def, series)] };
    }
    case 'toplist': {
      if (series.formulas.length > 0 || series.selects.length > 1) return { config: tableConfig(series, sources), notes: [...notes, ...reductionNotes(def, series), 'toplist of several queries drawn as a table (a HyperDX bar chart has one)'] };
      return { config: categoricalConfig('bar', series, sources, categoryLimit(def, top, notes)), notes: [...notes, ...reductionNotes(def, series)] };
    }
    case 'query_table':
      return { config: tableConfig(series, sources), notes: [...notes, ...reductionNotes(def, series)] };
    case 'sunburst':
    case 'treemap':
      if (series.formulas.length > 0 || series.selects.length > 1) throw new Unsupported(`a ${def.type} of several queries (a HyperDX pie has one)`);
      return {
        config: categoricalConfig('pie', series, sources, categoryLimit(def, top, notes)),
        notes: [...notes, ...reductionNotes(def, series), ...(series.groupBy.length > 1 ? [`${def.type} drawn as a pie, one slice per combination of its groups (Datadog nests them)`] : [])],
      };
    case 'geomap':
      return { config: tableConfig(series, sources), notes: [...notes, ...reductionNotes(def, series), 'geomap drawn as a table by country (HyperDX draws no map)'] };
    case 'heatmap':
      return { config: builder('line', series, sources), notes: [...notes, `${def.type} drawn as lines: HyperDX heatmaps read trace sources only`] };
    default:
      throw new Unsupported(`the ${def.type} widget has no HyperDX equivalent`);
  }
}

/** The list streams HyperDX's search tile shows: logs, events (log records too) and APM spans (over a trace source). */
const STREAMS: Readonly<Record<string, 'logs' | 'events' | 'spans'>> = { logs_stream: 'logs', event_stream: 'events', trace_stream: 'spans' };

/** A search tile listing what a Datadog search over `kind` matches. */
function searchTile(kind: 'logs' | 'events' | 'spans', query: string, ctx: QueryContext, sources: Sources, notes: string[]): TileDraft['config'] {
  const search = withVariableDefaults(query, ctx.variables, notes);
  const schema = kind === 'spans' ? spanSearch(ctx.semconv) : kind === 'events' ? EVENT_SEARCH : LOG_SEARCH;
  const where = translateSearch(search, schema, notes);
  return { displayType: 'search', sourceId: sourceIdOf(kind === 'spans' ? 'trace' : 'log', sources), select: '', where: keptTo(kind, where), whereLanguage: 'lucene' };
}

function logStreamTile(def: WidgetDefinition, ctx: QueryContext, sources: Sources, notes: string[]): TileDraft['config'] {
  const request = ((def.requests ?? []) as WidgetRequest[])[0];
  const kind = STREAMS[request?.query?.data_source ?? ''];
  if (kind === undefined) throw new Unsupported(`a ${request?.query?.data_source ?? 'list'} stream has no HyperDX equivalent (log, event and trace streams do)`);
  return searchTile(kind, request!.query!.query_string ?? '', ctx, sources, notes);
}

/** Widgets of text or pictures only: no query, nothing to translate. */
const TEXT_WIDGETS = new Set(['note', 'free_text', 'image', 'iframe']);

/** A text widget's Markdown: its text, or its picture or page as a link. */
function textOf(def: WidgetDefinition): string {
  if (def.type === 'image') return `![${def.title ?? ''}](${String(def.url ?? '')})`;
  if (def.type === 'iframe') return `[${def.title ?? String(def.url ?? '')}](${String(def.url ?? '')})`;
  return String(def.content ?? def.text ?? '');
}

const CHART_WIDGETS = new Set(['timeseries', 'query_value', 'toplist', 'query_table', 'heatmap', 'distribution', 'sunburst', 'treemap', 'geomap']);

const markdown = (text: string): TileDraft['config'] => ({ displayType: 'markdown', markdown: text.length > MAX_MARKDOWN ? `${text.slice(0, MAX_MARKDOWN - 1)}…` : text });

const codeList = (lines: readonly string[]): string => lines.map((l) => `- \`${l.replace(/`/g, "'")}\``).join('\n');

function notMigrated(def: WidgetDefinition, reason: string, original: string[]): TileDraft {
  const title = def.title || def.type;
  return {
    name: title,
    type: def.type,
    status: 'dropped',
    config: markdown(`**Not migrated** (Datadog ${def.type} widget): ${reason}.${original.length > 0 ? `\n\n${codeList(original)}` : ''}`),
    original,
    notes: [`${title}: ${reason}`],
    migrated: false,
  };
}

export function widgetTile(def: WidgetDefinition, ctx: QueryContext, sources: Sources): TileDraft {
  const original = originalQueries(def);
  const name = def.title || def.type;
  try {
    if (TEXT_WIDGETS.has(def.type)) return { name: def.title ?? '', type: def.type, status: 'text', config: markdown(textOf(def)), original, notes: [], migrated: true };
    if (def.type === 'list_stream' || def.type === 'event_stream') {
      const notes: string[] = sharedKeyNotes(def, ctx.variables, ctx.sharedLogKeys);
      // the older event stream widget holds its search in `query`
      const config = def.type === 'event_stream' ? searchTile('events', typeof def.query === 'string' ? def.query : '', ctx, sources, notes) : logStreamTile(def, ctx, sources, notes);
      return { name, type: def.type, status: notes.length > 0 ? 'approximated' : 'exact', config, original, notes: notes.map((n) => `${name}: ${n}`), migrated: true };
    }
    if (!CHART_WIDGETS.has(def.type)) throw new Unsupported(`the ${def.type} widget has no HyperDX equivalent`);
    const { config, notes } = def.type === 'distribution' ? distributionTile(def, ctx, sources) : chartTile(def, ctx, sources);
    const unique = [...new Set([...notes, ...sharedKeyNotes(def, ctx.variables, ctx.sharedLogKeys)])];
    return { name, type: def.type, status: unique.length > 0 ? 'approximated' : 'exact', config, original, notes: unique.map((n) => `${name}: ${n}`), migrated: true };
  } catch (err) {
    if (err instanceof Unsupported || err instanceof QueryError) return notMigrated(def, err.message, original);
    throw err;
  }
}

interface Placed {
  x: number;
  y: number;
  w: number;
  h: number;
}

const clampTile = ({ x, y, w, h }: Placed): Placed => {
  const cx = Math.min(Math.max(0, x), GRID - 1);
  return { x: cx, y: Math.max(0, y), w: Math.min(Math.max(1, w), GRID - cx), h: Math.max(2, h) };
};

/**
 * Datadog positions → HyperDX's 24-column grid: an ordered layout's 12 columns are doubled; a free
 * layout is scaled so its right-most widget ends at the grid's edge. Widgets without a position
 * (older ordered exports) flow two to a row.
 */
function placeAll(widgets: readonly Widget[], layoutType: 'ordered' | 'free'): Placed[] {
  const laid = widgets.map((w) => w.layout).filter((l): l is WidgetLayout => l !== undefined);
  const width = layoutType === 'free' ? laid.reduce((m, l) => Math.max(m, l.x + l.width), 1) : ORDERED_GRID;
  const scale = GRID / width;
  return widgets.map((w, i) => {
    const l = w.layout;
    if (l === undefined) return { x: (i % 2) * FLOW.w, y: Math.floor(i / 2) * FLOW.h, ...FLOW };
    return clampTile({ x: Math.round(l.x * scale), y: Math.round(l.y * scale), w: Math.round(l.width * scale), h: Math.round(l.height * scale) });
  });
}

interface Container {
  id: string;
  title: string;
  collapsed: boolean;
}

function notesTile(dashboard: DatadogDashboard, file: string, drafts: readonly TileDraft[], gaps: readonly string[], y: number): TileInput {
  const lines = drafts.filter((d) => d.original.length > 0).map((d) => `**${d.name || '(untitled)'}**\n${codeList(d.original)}`);
  const text = [
    `Migrated from the Datadog dashboard "${dashboard.title}" (${file}) by \`dd-otlp-bridge migrate\`. Metric names are Datadog's; tags are read where the bridge puts them. A title ending in ${APPROXIMATED} is a tile that approximates its Datadog widget: how is listed below.`,
    gaps.length > 0 ? `### Approximated or not migrated\n${gaps.map((g) => `- ${g}`).join('\n')}` : '',
    `### Original queries\n${lines.join('\n\n')}`,
  ]
    .filter((t) => t !== '')
    .join('\n\n');
  return { name: 'Migrated from Datadog', x: 0, y, w: GRID, h: 8, config: markdown(text) };
}

/** The metric table most of the dashboard's selects read (where a filter's drop-down finds its values). */
function mainMetricType(tiles: readonly TileInput[], metricSource: string): MetricType {
  const counts = new Map<MetricType, number>();
  for (const t of tiles) {
    if (t.config?.sourceId !== metricSource || !Array.isArray(t.config.select)) continue;
    for (const s of t.config.select as { metricType?: MetricType }[]) if (s.metricType) counts.set(s.metricType, (counts.get(s.metricType) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'gauge';
}

/** Collects, widget by widget, how the queries use the filter variables. */
class UsageCollector {
  readonly uses = new Map<string, Set<VariableUse>>();
  readonly unusedBy = new Map<string, string[]>();
  constructor(private readonly filters: ReadonlySet<string>) {}

  /** A context for one widget; `done` records its uses once the widget is translated. */
  forWidget(base: Omit<QueryContext, 'uses'>): { ctx: QueryContext; done: (draft: TileDraft, metricSource: string) => void } {
    const ctx: QueryContext = { ...base, uses: new Map() };
    const done = (draft: TileDraft, metricSource: string): void => {
      if (!draft.migrated) return;
      for (const [name, uses] of ctx.uses) for (const use of uses) this.uses.set(name, (this.uses.get(name) ?? new Set<VariableUse>()).add(use));
      if (draft.config.sourceId !== metricSource) return;
      for (const name of this.filters) if (!ctx.uses.has(name)) this.unusedBy.set(name, [...(this.unusedBy.get(name) ?? []), draft.name || '(untitled)']);
    };
    return { ctx, done };
  }
}

/** Marks the title of a tile that approximates its widget; the notes tile says how. */
export const APPROXIMATED = '[≈]';

const tileTitle = (draft: TileDraft): string => (draft.status === 'approximated' ? `${draft.name} ${APPROXIMATED}`.trim() : draft.name);

/** The metric query texts of one widget. */
const widgetMetricTexts = (def: WidgetDefinition): string[] =>
  ((Array.isArray(def.requests) ? def.requests : []) as WidgetRequest[]).flatMap((r) => [...(r.q ? [r.q] : []), ...(r.queries ?? []).flatMap((q) => (q.data_source === 'metrics' && q.query ? [q.query] : []))]);

/** Every widget's definition, groups opened. */
const flatDefinitions = (widgets: readonly Widget[]): WidgetDefinition[] => widgets.flatMap((w) => (w.definition.type === 'group' ? flatDefinitions(w.definition.widgets ?? []) : [w.definition]));

/** Every metric query text of a widget and its groups, for the dashboard-wide pass. */
function metricTexts(widgets: readonly Widget[]): string[] {
  return widgets.flatMap((w) => [...widgetMetricTexts(w.definition), ...metricTexts(w.definition.widgets ?? [])]);
}

/** Each widget's metric query texts (widgets with none left out), groups opened. */
function metricWidgetTexts(widgets: readonly Widget[]): string[][] {
  return widgets.flatMap((w) => (w.definition.type === 'group' ? metricWidgetTexts(w.definition.widgets ?? []) : [widgetMetricTexts(w.definition)].filter((t) => t.length > 0)));
}

/** Every metric query of the dashboard, parsed (a widget whose text does not parse reports its own error). */
function metricQueries(dashboard: DatadogDashboard): ReturnType<typeof metricQueriesOf> {
  return metricTexts(dashboard.widgets).flatMap((text) => {
    try {
      return parseMetricQueries(text).flatMap(metricQueriesOf);
    } catch {
      return [];
    }
  });
}

/**
 * Metrics some query of the dashboard counts (`.as_count()`/`.as_rate()`): the bridge writes them
 * to the sum table, so a query of the same metric without the modifier reads that table too.
 */
const countedMetrics = (queries: ReturnType<typeof metricQueriesOf>): Set<string> => new Set(queries.filter((q) => q.methods.some((m) => m.name === 'as_count' || m.name === 'as_rate')).map((q) => q.metric));

/**
 * Metrics some query of the dashboard reads a percentile of (`p95:`), which Datadog computes of
 * distributions only, unless listed as a count or a rate: the bridge writes a distribution's
 * sketches to the exponential-histogram table, so its other queries (`count:`) read that table too.
 */
function distributionMetrics(queries: ReturnType<typeof metricQueriesOf>, types: TranslationSettings['metricTypes']): Set<string> {
  const counter = (metric: string): boolean => types.get(metric) === 'count' || types.get(metric) === 'rate';
  return new Set(queries.filter((q) => /^p\d/.test(q.aggregator ?? '') && !counter(q.metric)).map((q) => q.metric));
}

function widgetReport(draft: TileDraft): ItemReport {
  const prefix = `${draft.name}: `;
  const notes = draft.notes.map((n) => (n.startsWith(prefix) ? n.slice(prefix.length) : n));
  return { name: draft.name || '(untitled)', type: draft.type, status: draft.status, notes };
}

/** `identity`: what names the export when it has no Datadog id (its path under the DIR given). */
export function translateDashboard(dashboard: DatadogDashboard, file: string, sources: Sources, settings: TranslationSettings = DEFAULT_SETTINGS, identity = file): DashboardPlan {
  const filterNames = filterVariableNames(dashboard.template_variables, metricWidgetTexts(dashboard.widgets));
  const usage = new UsageCollector(filterNames);
  const queries = metricQueries(dashboard);
  const base = {
    variables: dashboard.template_variables,
    filters: filterNames,
    counted: countedMetrics(queries),
    distributions: distributionMetrics(queries, settings.metricTypes),
    sharedLogKeys: sharedLogKeys(flatDefinitions(dashboard.widgets), dashboard.template_variables),
    ...settings,
  };
  const tiles: TileInput[] = [];
  const drafts: TileDraft[] = [];
  const containers: Container[] = [];
  const addTiles = (widgets: readonly Widget[], layout: 'ordered' | 'free', containerId?: string): void => {
    const places = placeAll(widgets, layout);
    widgets.forEach((w, i) => {
      if (w.definition.type === 'group') {
        const id = `group-${containers.length + 1}`;
        containers.push({ id, title: w.definition.title || `Group ${containers.length + 1}`, collapsed: false });
        addTiles(w.definition.widgets ?? [], 'ordered', id);
        return;
      }
      const { ctx, done } = usage.forWidget(base);
      const draft = widgetTile(w.definition, ctx, sources);
      done(draft, sources.metric);
      drafts.push(draft);
      tiles.push({ name: tileTitle(draft), ...places[i]!, config: draft.config, ...(containerId ? { containerId } : {}) } as TileInput);
    });
  };
  addTiles(dashboard.widgets, dashboard.layout_type);
  // a variable with a tag key that is not a filter was written into its queries (inlinedNotes)
  const filterCandidates = dashboard.template_variables.filter((v) => v.prefix === null || filterNames.has(v.name));
  const filters = dashboardFilters(filterCandidates, usage, sources.metric, mainMetricType(tiles, sources.metric));
  const dashboardNotes = [...inlinedNotes(dashboard.template_variables, filterNames), ...filters.notes];
  const notes = [...drafts.flatMap((d) => d.notes), ...dashboardNotes];
  const bottom = tiles.filter((t) => t.containerId === undefined).reduce((m, t) => Math.max(m, t.y + t.h), 0);
  tiles.push(notesTile(dashboard, file, drafts, notes, bottom));
  const marker = markerFor('dashboard', identityOf(dashboard.id, identity));
  const formerMarker = formerMarkerFor('dashboard', dashboard.id, dashboard.title);
  return {
    kind: 'dashboard',
    file,
    name: dashboard.title,
    marker,
    ...(formerMarker ? { formerMarker } : {}),
    body: {
      name: dashboard.title,
      tiles,
      tags: [marker, 'datadog'],
      ...(containers.length > 0 ? { containers } : {}),
      ...(filters.filters.length > 0 ? { filters: filters.filters } : {}),
      ...(filters.savedFilterValues.length > 0 ? { savedFilterValues: filters.savedFilterValues } : {}),
    },
    outcome: outcomeOf(notes, true),
    notes,
    widgets: drafts.map(widgetReport),
    dashboardNotes,
  };
}
