/**
 * What a Datadog widget means over a set of points and logs, computed here from the widget's own
 * queries (./metric-query.ts, ./log-search.ts), never from the migration's output: per interval
 * and group for a timeseries, per group over the window for a value, a top list or a table.
 *
 * Datadog's meaning, as its documentation states it: a series' value in an interval is the mean
 * of its points for a gauge and their sum for a count (`.as_count()`; `.as_rate()` divides that
 * by the interval's seconds); the space aggregator (`avg:` by default) combines the series a
 * filter keeps, per group of the `by {…}` tags; arithmetic joins series of the same group, a
 * number or an ungrouped series joins every group; a value widget reduces the series over the
 * window with its aggregator (old form: the whole expression's; newer form: each query's, then
 * the formula). A log query counts (or measures) the logs its search matches, per group.
 *
 * A migrated tile that says it approximates (its notes) is compared against what it says it
 * draws instead: `Modes` switches each documented difference to the HyperDX side.
 */
import { valuesAggregator } from './distribution';
import { type DatadogLog, eventSearchText, fieldsOf, matches, otherForm, readSearch, type Search } from './log-search';
import type { MetricTerm, TagFilter, Term } from './metric-query';
import { wildcardTest } from './wildcard';

/** One series as the agent sent it: its host, its other tags (`key:value` or bare), its points (a distribution's: its raw values, several a flush). */
export interface SentSeries {
  metric: string;
  kind: 'gauge' | 'count' | 'distribution';
  host: string;
  tags: string[];
  /** seconds */
  points: { ts: number; value: number }[];
}

export interface Dataset {
  series: ReadonlyMap<string, readonly SentSeries[]>;
  logs: readonly DatadogLog[];
  /**
   * Datadog events, in a log's shape as Datadog's event search sees them: `source` the source
   * type, `status` the alert type (error, warning, info, success), `message` title and text, tags;
   * no attributes
   */
  events: readonly DatadogLog[];
  /**
   * APM spans, in a log's shape as Datadog's span search sees them (./spans.ts): `service`, `status`
   * ok or error, `operation_name`, `resource_name`, `type` and span tags as tags, `@` attributes
   * (`@duration` in ns)
   */
  spans?: readonly DatadogLog[];
}

/** The intervals compared: `buckets` minutes (or `step` ms each) from `from` (ms). */
export interface Window {
  from: number;
  buckets: number;
  step?: number;
}

export const STEP_MS = 60_000;

/** Values by group (`by` tag values joined by GROUP_SEP, "" for none) and interval start (ms); a reduced value sits at interval 0. */
export type Grid = Map<string, Map<number, number>>;

export const GROUP_SEP = '\u0001';

/** Which side of each documented difference a tile is compared on (false/`datadog`: Datadog's meaning). */
export interface Modes {
  /** a gauge's value in an interval: the mean of its points (Datadog) or the last (HyperDX) */
  gaugeInterval: 'avg' | 'last';
  /** `.as_rate()` and `per_second()`…: per second (Datadog) or per interval (HyperDX) */
  ratesAsCounts: boolean;
  /** `.rollup(…)` ignored (HyperDX picks the interval) */
  ignoreRollup: boolean;
  /**
   * In a formula, a query with no value where another has one: no value (Datadog, unless the
   * query is in `default_zero()`), or 0 (HyperDX's formulas coalesce every operand)
   */
  formulaZero: boolean;
  /** a wildcard value matches its pattern (Datadog) or any value containing its text, in any case (HyperDX's search) */
  wildcardContains: boolean;
  /** a log search's `""` (a metric filter's `key:`) matches an empty attribute (tag) (Datadog) or also a missing one (HyperDX) */
  missingIsEmpty: boolean;
  /** a series' `hostname` tag is its own (Datadog) or its host (the bridge writes both to host.name) */
  hostnameIsHost: boolean;
  /** an event's success and info are two statuses (Datadog) or one (the bridge levels success as info) */
  eventStatusFold: boolean;
  /** an event without a service tag has no service (Datadog) or its source type's (the bridge files it there) */
  eventServiceIsSource: boolean;
  /** a measure's value that is not a number is left out (Datadog) or read as 0 (HyperDX) */
  notANumberIsZero: boolean;
  /** metrics whose type the migration did not know and reads as gauges: none (Datadog), or these, whose points sent as counts it does not find */
  readAsGauge: readonly string[];
  /**
   * group-by facets (or measures) a log without which is left out (Datadog: none), or drawn in an
   * empty group, its measure 0 (HyperDX, for the facets a tile says it cannot name in its search)
   */
  keepMissingFacets: readonly string[];
  /** names whose tag and `@` attribute are two fields (Datadog: none), or one (the bridge keeps a log's tags with its attributes, for the names a tile says) */
  sharedFields: readonly string[];
  /** a field with no value in a search (`tags:`) kept (Datadog) or dropped (the migration says it drops it) */
  dropEmptyTerms: boolean;
  /**
   * A value over the window: reduced per query with its aggregator over the intervals (Datadog),
   * or the select's aggregation over every series' per-interval value at once (HyperDX).
   */
  reduce: 'datadog' | 'flat';
  /** a value widget's group-by dropped (HyperDX's number tile shows one value) */
  dropGroups: boolean;
  /**
   * `top(…)`: Datadog's ranking; HyperDX's (`peak`: the series with the highest value in one
   * interval first); none (`all`: every series drawn); or the top list's own (`value`: its bars
   * ranked by the value they show, `top()` inside adds nothing)
   */
  top: 'datadog' | 'peak' | 'all' | 'value';
  /** a span search's `retained_by:…` kept (Datadog: its retention filters mark the spans they index) or dropped (the migration says it drops it) */
  dropRetainedBy: boolean;
}

export const DATADOG: Modes = {
  gaugeInterval: 'avg',
  ratesAsCounts: false,
  ignoreRollup: false,
  formulaZero: false,
  wildcardContains: false,
  missingIsEmpty: false,
  hostnameIsHost: false,
  eventStatusFold: false,
  eventServiceIsSource: false,
  notANumberIsZero: false,
  readAsGauge: [],
  keepMissingFacets: [],
  sharedFields: [],
  dropEmptyTerms: false,
  reduce: 'datadog',
  dropGroups: false,
  top: 'datadog',
  dropRetainedBy: false,
};

export interface Variable {
  name: string;
  prefix: string | null;
  defaults: string[];
}

interface Ctx {
  data: Dataset;
  window: Window;
  modes: Modes;
  variables: readonly Variable[];
  /**
   * The order of the group-by tags (or facets) of the widget's first query: a chart has one
   * group-by, and a query splitting by the same tags in another order is drawn in these groups
   */
  groupOrder?: readonly string[];
}

/** `by` in the widget's order when it names the same tags. */
const orderedBy = (by: readonly string[], ctx: Ctx): readonly string[] => (ctx.groupOrder && ctx.groupOrder.length === by.length && by.every((b) => ctx.groupOrder!.includes(b)) ? ctx.groupOrder : by);

export class NotModelled extends Error {
  override name = 'NotModelled';
}

/** A series' value of a tag key: `host` is its host, other keys come from its tags. */
export function tagValuesOf(s: Pick<SentSeries, 'host' | 'tags'>, key: string, hostnameIsHost = false): string[] {
  if (key === 'host' || (key === 'hostname' && hostnameIsHost)) return [s.host];
  return s.tags.flatMap((t) => {
    const colon = t.indexOf(':');
    return colon < 0 ? (t === key ? [''] : []) : t.slice(0, colon) === key ? [t.slice(colon + 1)] : [];
  });
}

/** How a tile reads tags where it says HyperDX reads them otherwise (Modes). */
type TagModes = Pick<Modes, 'wildcardContains' | 'hostnameIsHost' | 'missingIsEmpty'>;

function tagMatches(s: SentSeries, key: string, value: string | undefined, modes: TagModes): boolean {
  if (value === undefined) {
    // a bare word is the bare tag, or a `key:value` tag written whole
    const colon = key.indexOf(':');
    return colon < 0 ? s.tags.includes(key) : tagMatches(s, key.slice(0, colon), key.slice(colon + 1), modes);
  }
  const test = value.includes('*') && value !== '*' ? wildcardTest(value, modes.wildcardContains) : value === '*' ? () => true : (v: string) => v === value;
  const values = tagValuesOf(s, key, modes.hostnameIsHost);
  return values.some(test) || (value === '' && modes.missingIsEmpty && values.length === 0);
}

/** A variable's default as a filter: `*` (or none) keeps everything; several values: any of them. */
function variableFilter(v: Variable, key: string | undefined): TagFilter {
  const values = v.defaults.filter((d) => d !== '' && d !== '*');
  if (values.length === 0) return { op: 'all' };
  const tagKey = key ?? v.prefix;
  const terms = values.map((value): TagFilter => (tagKey ? { op: 'tag', key: tagKey, value } : { op: 'tag', key: value, value: undefined }));
  return terms.length === 1 ? terms[0]! : { op: 'or', of: terms };
}

export function seriesMatches(filter: TagFilter, s: SentSeries, variables: readonly Variable[], modes: TagModes): boolean {
  switch (filter.op) {
    case 'all':
      return true;
    case 'tag':
      return tagMatches(s, filter.key, filter.value, modes);
    case 'variable': {
      const v = variables.find((x) => x.name === filter.name);
      if (v === undefined) throw new NotModelled(`$${filter.name} is not a variable of the dashboard`);
      return seriesMatches(variableFilter(v, filter.key), s, variables, modes);
    }
    case 'not':
      return !seriesMatches(filter.of, s, variables, modes);
    case 'and':
      return filter.of.every((f) => seriesMatches(f, s, variables, modes));
    case 'or':
      return filter.of.some((f) => seriesMatches(f, s, variables, modes));
  }
}

const mean = (v: readonly number[]): number => v.reduce((a, b) => a + b, 0) / v.length;

const SPACE: Record<string, (v: number[]) => number> = {
  avg: mean,
  sum: (v) => v.reduce((a, b) => a + b, 0),
  min: (v) => Math.min(...v),
  max: (v) => Math.max(...v),
  count: (v) => v.length,
};

const bucketOf = (ctx: Ctx, ms: number): number | undefined => {
  const step = ctx.window.step ?? STEP_MS;
  const i = Math.floor((ms - ctx.window.from) / step);
  return i >= 0 && i < ctx.window.buckets ? ctx.window.from + i * step : undefined;
};

const groupKey = (values: readonly string[]): string => values.join(GROUP_SEP);

/** One series' value in each interval: the mean (or last) of a gauge's points, the sum of a count's. */
function seriesPerInterval(s: SentSeries, ctx: Ctx, timeAgg: 'avg' | 'last' | 'sum'): Map<number, number> {
  const points = new Map<number, number[]>();
  for (const p of [...s.points].sort((a, b) => a.ts - b.ts)) {
    const b = bucketOf(ctx, p.ts * 1000);
    if (b !== undefined) points.set(b, [...(points.get(b) ?? []), p.value]);
  }
  return new Map([...points].map(([b, v]) => [b, timeAgg === 'sum' ? SPACE.sum!(v) : timeAgg === 'last' ? v.at(-1)! : mean(v)]));
}

const UNIT_SECONDS: Record<string, number> = { per_second: 1, per_minute: 60, per_hour: 3600 };

/** How a metric term's methods change its series: `.as_count()`/`.as_rate()` on a count, `.rollup()`, `.fill()`. */
function methodEffects(t: MetricTerm, ctx: Ctx, kind: SentSeries['kind']): { scale: number } {
  let scale = 1;
  for (const m of t.methods) {
    if (m.name === 'as_count' || m.name === 'fill' || m.name === 'weighted') continue;
    if (m.name === 'as_rate') {
      if (kind === 'count' && !ctx.modes.ratesAsCounts) scale = 1 / (STEP_MS / 1000);
      continue;
    }
    if (m.name === 'rollup' && ctx.modes.ignoreRollup) continue;
    throw new NotModelled(`.${m.name}()`);
  }
  return { scale };
}

/**
 * `trace.<op>.hits` and the like: Datadog derives them from the tracer's APM stats, which the bridge
 * writes as its own metrics (dd.trace.*); the workload sends series, not APM stats.
 */
const APM_STATS = /^trace\./;
const APM_STATS_REASON = 'an APM stats metric (trace.…): the workload sends series, not the tracer stats it is derived from';

/** The series a metric term reads: those its filter keeps, of the table the tile reads (a count or a distribution read as a gauge is not found). */
const seriesRead = (t: MetricTerm, ctx: Ctx): SentSeries[] => (ctx.data.series.get(t.metric) ?? []).filter((s) => seriesMatches(t.filter, s, ctx.variables, ctx.modes) && !(s.kind !== 'gauge' && ctx.modes.readAsGauge.includes(t.metric)));

/**
 * A distribution query per interval (or over the window) and group: the aggregator over every value
 * the kept series hold there (./distribution.ts), not over per-series values.
 */
function distributionGrid(t: MetricTerm, kept: readonly SentSeries[], ctx: Ctx, perInterval: boolean, dropGroups: boolean): Grid {
  const f = valuesAggregator(t.space);
  if (f === undefined) throw new NotModelled(`the ${t.space} aggregator of a distribution`);
  // `.as_count()` of a distribution's count is its number of values, what `count:` is already
  for (const m of t.methods) if (m.name !== 'fill' && m.name !== 'as_count') throw new NotModelled(`.${m.name}() of a distribution`);
  const cells = new Map<string, Map<number, number[]>>();
  for (const s of kept) {
    const group = dropGroups ? '' : groupKey(orderedBy(t.by, ctx).map((k) => tagValuesOf(s, k, ctx.modes.hostnameIsHost)[0] ?? 'N/A'));
    const row = cells.get(group) ?? new Map<number, number[]>();
    cells.set(group, row);
    for (const p of s.points) {
      const b = bucketOf(ctx, p.ts * 1000);
      if (b === undefined) continue;
      const at = perInterval ? b : 0;
      row.set(at, row.get(at) ?? []);
      row.get(at)!.push(p.value);
    }
  }
  return new Map([...cells].map(([g, row]) => [g, new Map([...row].map(([b, v]) => [b, f(v)]))]));
}

/** A metric query per interval and group: each kept series' per-interval value, combined by the space aggregator. */
export function metricGrid(t: MetricTerm, ctx: Ctx): Grid {
  if (APM_STATS.test(t.metric)) throw new NotModelled(APM_STATS_REASON);
  const kept = seriesRead(t, ctx);
  if (kept.some((s) => s.kind === 'distribution')) return distributionGrid(t, kept, ctx, true, false);
  const space = SPACE[t.space];
  if (space === undefined) throw new NotModelled(`the ${t.space} space aggregator`);
  const cells = new Map<string, Map<number, number[]>>();
  for (const s of kept) {
    const { scale } = methodEffects(t, ctx, s.kind);
    const group = groupKey(orderedBy(t.by, ctx).map((k) => tagValuesOf(s, k, ctx.modes.hostnameIsHost)[0] ?? 'N/A'));
    const row = cells.get(group) ?? new Map<number, number[]>();
    cells.set(group, row);
    for (const [b, v] of seriesPerInterval(s, ctx, s.kind === 'count' ? 'sum' : ctx.modes.gaugeInterval)) row.set(b, [...(row.get(b) ?? []), v * scale]);
  }
  return new Map([...cells].map(([g, row]) => [g, new Map([...row].map(([b, v]) => [b, space(v)]))]));
}

export type Operand = Grid | number;

/** What a metric term or a named query (`ref`, in a formula) is worth. */
export type Leaf = (t: MetricTerm | { type: 'ref'; name: string }) => Operand;

/** A grid of one ungrouped series (no `by`), which joins every group of the other side. */
const ungrouped = (g: Grid): boolean => g.size === 1 && g.has('');

/** Joins two operands cell by cell (same group, same interval); a cell missing on either side has no value. */
function combine(a: Operand, b: Operand, op: (x: number, y: number) => number): Operand {
  if (typeof a === 'number' && typeof b === 'number') return op(a, b);
  if (typeof a === 'number') return mapGrid(b as Grid, (v) => op(a, v));
  if (typeof b === 'number') return mapGrid(a, (v) => op(v, b));
  const groups = ungrouped(a) && !ungrouped(b) ? [...b.keys()] : ungrouped(b) && !ungrouped(a) ? [...a.keys()] : [...new Set([...a.keys(), ...b.keys()])];
  const rowOf = (g: Grid, group: string): Map<number, number> | undefined => (ungrouped(g) ? g.get('') : g.get(group));
  const out: Grid = new Map();
  for (const group of groups) {
    const [ra, rb] = [rowOf(a, group), rowOf(b, group)];
    if (ra === undefined || rb === undefined) continue;
    const row = new Map<number, number>();
    for (const [bucket, x] of ra) {
      const y = rb.get(bucket);
      const v = y === undefined ? Number.NaN : op(x, y);
      if (Number.isFinite(v)) row.set(bucket, v);
    }
    out.set(group, row);
  }
  return out;
}

const mapGrid = (g: Grid, f: (v: number) => number): Grid => new Map([...g].map(([k, row]) => [k, new Map([...row].map(([b, v]): [number, number] => [b, f(v)]).filter(([, v]) => Number.isFinite(v)))]));

const OPS: Record<string, (x: number, y: number) => number> = { '+': (x, y) => x + y, '-': (x, y) => x - y, '*': (x, y) => x * y, '/': (x, y) => x / y };

type LeafTerm = MetricTerm | { type: 'ref'; name: string };

/** The leaves of an expression, each with whether it sits directly in `default_zero()`. */
function leavesOf(t: Term, zeroed: boolean, out: Map<LeafTerm, boolean>): Map<LeafTerm, boolean> {
  switch (t.type) {
    case 'metric':
    case 'ref':
      out.set(t, zeroed);
      break;
    case 'neg':
      leavesOf(t.of, false, out);
      break;
    case 'op':
      leavesOf(t.left, false, out);
      leavesOf(t.right, false, out);
      break;
    case 'call':
      for (const a of t.args) if (typeof a !== 'string') leavesOf(a, t.name === 'default_zero' && (a.type === 'metric' || a.type === 'ref'), out);
      break;
    default:
      break;
  }
  return out;
}

/** `g` with a 0 in every cell of `cells` it has no value in. */
function filled(g: Operand, cells: ReadonlyMap<string, ReadonlySet<number>>): Operand {
  if (typeof g === 'number' || (ungrouped(g) && cells.size > 0 && !cells.has(''))) return g;
  const out: Grid = new Map([...g].map(([k, row]) => [k, new Map(row)]));
  for (const [group, buckets] of cells) {
    const row = out.get(group) ?? new Map<number, number>();
    out.set(group, row);
    for (const b of buckets) if (!row.has(b)) row.set(b, 0);
  }
  return out;
}

/**
 * An expression per interval and group; `leaf` computes each metric term (or named query). Where
 * one operand has a value and another none, the other counts as 0 if it is in `default_zero()`
 * (Datadog), or always (`formulaZero`: HyperDX's formulas); otherwise the result has no value.
 */
export function expressionGrid(t: Term, ctx: Ctx, leaf: Leaf, tileCells?: Cells): Operand {
  const leaves = leavesOf(t, false, new Map());
  const values = new Map([...leaves.keys()].map((l) => [l, leaf(l)]));
  const cells = cellsOf([...values.values()]);
  const formula = t.type !== 'metric' && t.type !== 'ref';
  const operand = (l: LeafTerm): Operand => {
    const v = values.get(l)!;
    if (ctx.modes.formulaZero && formula) return filled(v, tileCells ?? cells);
    return leaves.get(l) ? filled(v, cells) : v;
  };
  return evaluateTerm(t, ctx, operand);
}

/** Groups and intervals, by group. */
export type Cells = Map<string, Set<number>>;

/** Every group and interval some operand has a value in (an ungrouped operand's only when all are). */
export function cellsOf(values: readonly Operand[]): Cells {
  const cells: Cells = new Map();
  const grids = values.filter((v): v is Grid => typeof v !== 'number' && v.size > 0);
  for (const g of grids.filter((x) => !ungrouped(x) || grids.every(ungrouped))) for (const [group, row] of g) cells.set(group, new Set([...(cells.get(group) ?? []), ...row.keys()]));
  return cells;
}

function evaluateTerm(t: Term, ctx: Ctx, operand: (l: LeafTerm) => Operand): Operand {
  switch (t.type) {
    case 'metric':
    case 'ref':
      return operand(t);
    case 'number':
      return t.value;
    case 'neg':
      return combine(0, evaluateTerm(t.of, ctx, operand), OPS['-']!);
    case 'op':
      return combine(evaluateTerm(t.left, ctx, operand), evaluateTerm(t.right, ctx, operand), OPS[t.op]!);
    case 'call':
      return callGrid(t, ctx, operand);
  }
}

function callGrid(t: Extract<Term, { type: 'call' }>, ctx: Ctx, operand: (l: LeafTerm) => Operand): Operand {
  const [inner, ...rest] = t.args;
  if (inner === undefined || typeof inner === 'string') throw new NotModelled(`${t.name}() of no expression`);
  if (t.name === 'default_zero') return evaluateTerm(inner, ctx, operand);
  if (t.name in UNIT_SECONDS) {
    const grid = evaluateTerm(inner, ctx, operand);
    return ctx.modes.ratesAsCounts ? grid : combine(grid, UNIT_SECONDS[t.name]! / (STEP_MS / 1000), OPS['*']!);
  }
  if (t.name === 'top') {
    const grid = evaluateTerm(inner, ctx, operand);
    if (typeof grid === 'number') return grid;
    const [limit, rank, order] = rest.map((a) => (typeof a === 'string' ? a : a.type === 'number' ? String(a.value) : ''));
    return topGroups(grid, Number(limit ?? 10), rank ?? 'mean', order ?? 'desc', ctx.modes.top);
  }
  throw new NotModelled(`${t.name}()`);
}

const RANKS: Record<string, (v: number[]) => number> = {
  mean,
  max: (v) => Math.max(...v),
  min: (v) => Math.min(...v),
  sum: SPACE.sum!,
  area: SPACE.sum!,
  last: (v) => v.at(-1)!,
  l2norm: (v) => Math.sqrt(v.reduce((a, b) => a + b * b, 0)),
  norm: (v) => Math.sqrt(v.reduce((a, b) => a + b * b, 0)),
};

/**
 * The `limit` groups ranked first: by Datadog's reducer and order, or by HyperDX's peak. A group
 * with no value (a measure none of its records holds) has nothing to rank or draw: it comes after
 * every group with one, so it never takes the place of a drawn group.
 */
export function topGroups(grid: Grid, limit: number, rank: string, order: string, how: Modes['top']): Grid {
  if (grid.size <= limit || how === 'all' || how === 'value') return grid;
  const valued = [...grid].filter(([, row]) => row.size > 0);
  const score = (row: Map<number, number>): number => {
    const values = [...row.entries()].sort(([a], [b]) => a - b).map(([, v]) => v);
    if (how === 'peak') return Math.max(...values.map(Math.abs));
    const f = RANKS[rank];
    if (f === undefined) throw new NotModelled(`top() ranked by ${rank}`);
    return f(values);
  };
  // ties in group order, byte by byte (as ClickHouse orders the groups)
  const ranked = valued.sort(([ga, a], [gb, b]) => (how === 'peak' || order === 'desc' ? score(b) - score(a) : score(a) - score(b)) || (ga < gb ? -1 : ga > gb ? 1 : 0));
  return new Map([...ranked, ...[...grid].filter(([, row]) => row.size === 0)].slice(0, limit));
}

/** Reduces each group's intervals to one value (at interval 0), as a value widget does. */
export function reduceGrid(grid: Operand, aggregator: string): Operand {
  if (typeof grid === 'number') return grid;
  const f = aggregator === 'last' ? (v: number[]) => v.at(-1)! : aggregator === 'percentile' ? undefined : SPACE[aggregator];
  if (f === undefined) throw new NotModelled(`the ${aggregator} aggregator`);
  return new Map(
    [...grid].flatMap(([g, row]) => {
      const values = [...row.entries()].sort(([a], [b]) => a - b).map(([, v]) => v);
      return values.length === 0 ? [] : [[g, new Map([[0, f(values)]])] as const];
    }),
  );
}

/**
 * HyperDX's value over the window of one metric query: its aggregation applied to every kept
 * series' per-interval value at once (a gauge's last point, a count's sum per interval), per group.
 */
export function flatMetric(t: MetricTerm, ctx: Ctx, dropGroups: boolean): Grid {
  if (APM_STATS.test(t.metric)) throw new NotModelled(APM_STATS_REASON);
  const kept = seriesRead(t, ctx);
  if (kept.some((s) => s.kind === 'distribution')) return distributionGrid(t, kept, ctx, false, dropGroups);
  const space = SPACE[t.space];
  if (space === undefined) throw new NotModelled(`the ${t.space} space aggregator`);
  const values = new Map<string, number[]>();
  for (const s of kept) {
    const { scale } = methodEffects(t, ctx, s.kind);
    const group = dropGroups ? '' : groupKey(orderedBy(t.by, ctx).map((k) => tagValuesOf(s, k, ctx.modes.hostnameIsHost)[0] ?? 'N/A'));
    for (const v of seriesPerInterval(s, ctx, s.kind === 'count' ? 'sum' : 'last').values()) values.set(group, [...(values.get(group) ?? []), v * scale]);
  }
  return new Map([...values].map(([g, v]) => [g, new Map([[0, space(v)]])]));
}

/** A log (or event) query of the newer form (or the older `log_query`), as Datadog counts or measures it. */
export interface LogQuery {
  search: string;
  aggregation: string;
  measure?: string;
  groupBy: string[];
  /** over Datadog events rather than logs */
  events?: boolean;
  /** over APM spans rather than logs */
  spans?: boolean;
}

const LOG_AGGS: Record<string, (v: number[]) => number> = {
  count: (v) => v.length,
  sum: SPACE.sum!,
  avg: mean,
  min: SPACE.min!,
  max: SPACE.max!,
};

/** `$name` in a log search → its default, as the search runs when the dashboard opens. */
export function withDefaults(search: string, variables: readonly Variable[]): string {
  return search.replace(/(^|[\s(])(-?)(?:([@\w.-]+):)?\$([A-Za-z0-9_.-]+?)(?:\.value)?(?=$|[\s)"])/g, (_w, before: string, neg: string, key: string | undefined, name: string) => {
    const v = variables.find((x) => x.name === name);
    if (v === undefined) throw new NotModelled(`$${name} is not a variable of the dashboard`);
    const values = v.defaults.filter((d) => d !== '' && d !== '*');
    // a default of everything filters nothing: the term goes (`key:$v.value` with its key)
    if (values.length === 0) return before;
    const tagKey = key ?? v.prefix;
    const terms = values.map((x) => (tagKey ? `${tagKey}:${x}` : x));
    return `${before}${neg}${terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`}`;
  });
}

/** A log's value of a facet (`@attr`, `service`, a tag key), or of its other form where the tile says the two are one (`shared`). */
export function facetValue(log: DatadogLog, facet: string, shared?: readonly string[]): string | number | boolean | undefined {
  return ownFacetValue(log, facet) ?? otherForm(log, facet, shared);
}

function ownFacetValue(log: DatadogLog, facet: string): string | number | boolean | undefined {
  if (facet.startsWith('@')) return log.attributes[facet.slice(1)];
  if (facet === 'service' || facet === 'source' || facet === 'host' || facet === 'status' || facet === 'message') return log[facet];
  const tag = log.tags.find((t) => t.startsWith(`${facet}:`));
  return tag?.slice(facet.length + 1);
}

/** A log query per interval (or over the window: `perInterval` false) and group. */
/**
 * Attributes Datadog's intake and the bridge both take for a log's own fields (message, status,
 * host, service, source, time, trace ids) when a JSON message holds them: a search on one of
 * them as an `@attribute` means what each remapping left, which is not modelled.
 */
export const RESERVED =
  /^@(message|msg|log|formattedMessage|status|severity|level|levelname|syslog\.(severity|hostname|timestamp)|host|hostname|service|ddsource|ddtags|timestamp|@timestamp|_timestamp|Timestamp|eventTime|date|published_date|time|dd\..*|env|version)$/;

/** The logs (or events) of each source: most searches name one, and a scan of them all per query is the slow part. */
const bySource = new WeakMap<readonly DatadogLog[], Map<string, DatadogLog[]>>();

/** The records a search can match: those of the `source` it requires, when it requires one. */
function candidates(search: Search, records: readonly DatadogLog[]): readonly DatadogLog[] {
  const terms = search.kind === 'and' ? search.of : [search];
  const source = terms.find((t) => t.kind === 'field' && t.field === 'source' && t.value.kind === 'text' && !t.value.text.includes('*'));
  if (source?.kind !== 'field' || source.value.kind !== 'text') return records;
  let index = bySource.get(records);
  if (!index) {
    index = new Map();
    for (const record of records) {
      const same = index.get(record.source) ?? [];
      same.push(record);
      index.set(record.source, same);
    }
    bySource.set(records, index);
  }
  return index.get(source.value.text) ?? [];
}

/** Event statuses Datadog's search accepts for an alert type; with `fold`, success and info as one (the bridge's). */
function eventStatus(status: string, fold: boolean): string {
  const s = status.toLowerCase() === 'ok' ? 'success' : status.toLowerCase() === 'warn' ? 'warning' : status.toLowerCase();
  return fold && s === 'success' ? 'info' : s;
}

export function logGrid(q: LogQuery, ctx: Ctx, perInterval: boolean): Grid {
  const defaulted = withDefaults(q.search, ctx.variables);
  const text = q.events ? eventSearchText(defaulted) : defaulted;
  const kept = q.spans && ctx.modes.dropRetainedBy ? text.replace(/(^|[\s(])-?retained_by:\S+/g, '$1') : text;
  const search = readSearch(ctx.modes.dropEmptyTerms ? kept.replace(/(^|[\s(])-?@?[A-Za-z_][\w.-]*:(?=$|[\s)])/g, '$1') : kept);
  for (const field of [...fieldsOf(search).keys(), ...q.groupBy, ...(q.measure ? [q.measure] : [])]) if (RESERVED.test(field)) throw new NotModelled(`a log search on ${field.replace(/^@(dd\.|syslog\.).*/, '@$1…')}, a field the intake takes for the log's own`);
  const cells = new Map<string, Map<number, DatadogLog[]>>();
  const records = q.spans ? (ctx.data.spans ?? []) : q.events ? ctx.data.events.map((e) => ({ ...e, status: eventStatus(e.status, ctx.modes.eventStatusFold), service: e.service || (ctx.modes.eventServiceIsSource ? e.source : '') })) : ctx.data.logs;
  // a span's status is ok or error, as written (no log status aliases)
  const statusOf = q.spans ? (text: string) => text.toLowerCase() : q.events ? (text: string) => eventStatus(text, ctx.modes.eventStatusFold) : undefined;
  for (const log of candidates(search, records)) {
    const b = bucketOf(ctx, log.ts);
    if (b === undefined || !matches(search, log, { contains: ctx.modes.wildcardContains, missingIsEmpty: ctx.modes.missingIsEmpty, shared: ctx.modes.sharedFields, ...(statusOf ? { status: statusOf } : {}) })) continue;
    const groupValues = orderedBy(q.groupBy, ctx).map((f) => facetValue(log, f, ctx.modes.sharedFields) ?? (ctx.modes.keepMissingFacets.includes(f) ? '' : undefined));
    if (groupValues.some((v) => v === undefined)) continue;
    const g = groupKey(groupValues.map(String));
    const row = cells.get(g) ?? new Map<number, DatadogLog[]>();
    cells.set(g, row);
    const at = perInterval ? b : 0;
    row.set(at, [...(row.get(at) ?? []), log]);
  }
  const value = (logs: DatadogLog[]): number | undefined => {
    if (q.aggregation === 'cardinality')
      return new Set(
        logs
          .map((l) => facetValue(l, q.measure!, ctx.modes.sharedFields))
          .filter((v) => v !== undefined)
          .map(String),
      ).size;
    if (q.aggregation === 'count') return logs.length;
    const f = LOG_AGGS[q.aggregation];
    if (f === undefined) throw new NotModelled(`the ${q.aggregation} log aggregation`);
    const numberOf = (v: string | number | boolean | undefined): number => {
      const n = Number(v ?? (ctx.modes.keepMissingFacets.includes(q.measure!) ? 0 : Number.NaN));
      return v !== undefined && Number.isNaN(n) && ctx.modes.notANumberIsZero ? 0 : n;
    };
    const numbers = logs.map((l) => numberOf(facetValue(l, q.measure!, ctx.modes.sharedFields))).filter((n) => Number.isFinite(n));
    return numbers.length === 0 ? undefined : f(numbers);
  };
  // a count over the window with no group is 0 when nothing matched (a value, not a gap)
  if (!perInterval && q.groupBy.length === 0 && cells.size === 0 && (q.aggregation === 'count' || q.aggregation === 'cardinality')) return new Map([['', new Map([[0, 0]])]]);
  return new Map(
    [...cells].map(([g, row]) => [
      g,
      new Map(
        [...row].flatMap(([b, logs]) => {
          const v = value(logs);
          return v === undefined ? [] : [[b, v] as const];
        }),
      ),
    ]),
  );
}

export type { Ctx };
