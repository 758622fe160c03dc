/**
 * A Datadog dashboard → a HyperDX dashboard: one tile per widget (groups become containers), in
 * the same order and roughly the same place; template variables become dashboard filters
 * (filters.ts). A widget HyperDX cannot draw becomes a Markdown tile saying why, with its
 * original queries, so nothing disappears silently. HyperDX has no per-tile text besides the
 * title and a Markdown tile's body (TileBase and the chart configs of the OpenAPI document), so
 * the original query text of every tile is kept in a last Markdown tile, "Migrated from Datadog".
 */
import type { DatadogDashboard, Widget, WidgetDefinition, WidgetLayout, WidgetRequest } from './datadog';
import { dashboardFilters, filterVariableNames } from './filters';
import { translateLogSearch } from './log-search';
import { type Expr, parseMetricQueries, QueryError } from './metric-query';
import { type DashboardPlan, markerFor, outcomeOf, type Sources, type TileInput } from './plan';
import { addExpression, addNamedQueries, DEFAULT_SETTINGS, emptySeries, type MetricType, type QueryContext, quantileSelects, type Series, type TranslationSettings, Unsupported, type VariableUse, withoutTrivialFormulas } from './series';

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

function seriesOf(def: WidgetDefinition, ctx: QueryContext): { series: Series; top: { limit: number } | undefined } {
  const series = emptySeries();
  let top: { limit: number } | undefined;
  for (const request of (def.requests ?? []) as WidgetRequest[]) {
    if (request.q !== undefined) {
      for (const expr of parseMetricQueries(request.q)) {
        const [inner, limit] = unwrapTop(expr);
        if (limit !== undefined) top = { limit };
        addExpression(series, inner, ctx);
      }
    } else if (request.queries) {
      addNamedQueries(series, request.queries, request.formulas ?? [], ctx);
      const limit = request.sort?.count ?? request.formulas?.find((f) => f.limit?.count)?.limit?.count;
      if (limit !== undefined && def.type === 'toplist') top = { limit };
    } else throw new Unsupported('a request without a query');
  }
  if (series.selects.length === 0) throw new Unsupported('no query to draw');
  if (series.selects.length > MAX_SELECTS) throw new Unsupported(`${series.selects.length} queries in one chart (HyperDX draws at most ${MAX_SELECTS})`);
  if (series.formulas.length > MAX_FORMULAS) throw new Unsupported(`${series.formulas.length} series in one chart (HyperDX computes at most ${MAX_FORMULAS} formulas)`);
  return { series: withoutTrivialFormulas(series), top };
}

/** `top(q, 10, 'mean', 'desc')` → q and 10 (toplists); the ordering is HyperDX's own (largest first). */
function unwrapTop(expr: Expr): [Expr, number | undefined] {
  if (expr.kind !== 'call' || expr.name !== 'top') return [expr, undefined];
  const [inner, limit] = expr.args;
  if (inner === undefined || inner.kind === 'string' || inner.kind === 'named') throw new Unsupported('top() without a query');
  return [inner, limit?.kind === 'number' ? limit.value : 10];
}

function builder(displayType: string, series: Series, sources: Sources): TileDraft['config'] {
  const formulas = series.formulas.length > 0 ? { formulas: series.formulas, showOperandSeries: false } : {};
  return {
    displayType,
    sourceId: series.source === 'log' ? sources.log : sources.metric,
    select: series.selects,
    ...(series.groupBy.length > 0 ? { groupBy: series.groupBy.join(', ') } : {}),
    ...formulas,
  };
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

/** Widgets drawn from metric or log queries, by HyperDX display type. */
function chartTile(def: WidgetDefinition, ctx: QueryContext, sources: Sources): Pick<TileDraft, 'config' | 'notes'> {
  const { series, top } = seriesOf(def, ctx);
  const notes = [...series.notes];
  const bars = ((def.requests ?? []) as WidgetRequest[]).some((r) => r.display_type === 'bars');
  switch (def.type) {
    case 'timeseries':
      return { config: builder(bars ? 'stacked_bar' : 'line', series, sources), notes };
    case 'query_value': {
      const { groupBy: _ignored, ...config } = builder('number', series, sources);
      if (series.groupBy.length > 0) notes.push('group-by dropped: a HyperDX number tile shows one value');
      return { config, notes };
    }
    case 'toplist':
      if (series.formulas.length > 0 || series.selects.length > 1) return { config: builder('table', series, sources), notes: [...notes, 'toplist of several queries drawn as a table (a HyperDX bar chart has one)'] };
      return { config: { ...builder('bar', series, sources), ...(top ? { limit: top.limit } : {}) }, notes };
    case 'query_table':
      return { config: builder('table', series, sources), notes };
    case 'heatmap':
      return { config: builder('line', series, sources), notes: [...notes, `${def.type} drawn as lines: HyperDX heatmaps read trace sources only`] };
    default:
      throw new Unsupported(`the ${def.type} widget has no HyperDX equivalent`);
  }
}

function logStreamTile(def: WidgetDefinition, sources: Sources): TileDraft['config'] {
  const request = ((def.requests ?? []) as WidgetRequest[])[0];
  if (request?.query?.data_source !== 'logs_stream') throw new Unsupported(`a ${request?.query?.data_source ?? 'list'} stream has no HyperDX equivalent (log streams do)`);
  return { displayType: 'search', sourceId: sources.log, select: '', where: translateLogSearch(request.query.query_string ?? ''), whereLanguage: 'lucene' };
}

const CHART_WIDGETS = new Set(['timeseries', 'query_value', 'toplist', 'query_table', 'heatmap', 'distribution']);

const markdown = (text: string): TileDraft['config'] => ({ displayType: 'markdown', markdown: text.length > MAX_MARKDOWN ? `${text.slice(0, MAX_MARKDOWN - 1)}…` : text });

const codeList = (lines: readonly string[]): string => lines.map((l) => `- \`${l.replace(/`/g, "'")}\``).join('\n');

function notMigrated(def: WidgetDefinition, reason: string, original: string[]): TileDraft {
  const title = def.title || def.type;
  return {
    name: title,
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
    if (def.type === 'note' || def.type === 'free_text') return { name: def.title ?? '', config: markdown(String(def.content ?? def.text ?? '')), original, notes: [], migrated: true };
    if (def.type === 'list_stream') return { name, config: logStreamTile(def, sources), original, notes: [], migrated: true };
    if (!CHART_WIDGETS.has(def.type)) throw new Unsupported(`the ${def.type} widget has no HyperDX equivalent`);
    const { config, notes } = def.type === 'distribution' ? distributionTile(def, ctx, sources) : chartTile(def, ctx, sources);
    return { name, config, original, notes: [...new Set(notes)].map((n) => `${name}: ${n}`), migrated: true };
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
  const width = layoutType === 'free' ? Math.max(1, ...laid.map((l) => l.x + l.width)) : ORDERED_GRID;
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
    `Migrated from the Datadog dashboard "${dashboard.title}" (${file}) by \`dd-otlp-bridge migrate\`. Metric names are Datadog's; tags are read where the bridge puts them.`,
    gaps.length > 0 ? `### Not expressed\n${gaps.map((g) => `- ${g}`).join('\n')}` : '',
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

export function translateDashboard(dashboard: DatadogDashboard, file: string, sources: Sources, settings: TranslationSettings = DEFAULT_SETTINGS): DashboardPlan {
  const filterNames = filterVariableNames(dashboard.template_variables);
  const usage = new UsageCollector(filterNames);
  const base = { variables: dashboard.template_variables, filters: filterNames, ...settings };
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
      tiles.push({ name: draft.name, ...places[i]!, config: draft.config, ...(containerId ? { containerId } : {}) } as TileInput);
    });
  };
  addTiles(dashboard.widgets, dashboard.layout_type);
  const filters = dashboardFilters(dashboard.template_variables, usage, sources.metric, mainMetricType(tiles, sources.metric));
  const notes = [...drafts.flatMap((d) => d.notes), ...filters.notes];
  const bottom = Math.max(0, ...tiles.filter((t) => t.containerId === undefined).map((t) => t.y + t.h));
  tiles.push(notesTile(dashboard, file, drafts, notes, bottom));
  const marker = markerFor('dashboard', dashboard.id ?? dashboard.title);
  return {
    kind: 'dashboard',
    file,
    name: dashboard.title,
    marker,
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
  };
}
