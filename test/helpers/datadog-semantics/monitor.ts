/**
 * What a Datadog monitor means over a set of points and logs, computed here from the monitor's
 * own query (./metric-query.ts, ./log-search.ts), never from the migration's output: per group,
 * the value the monitor compares with its critical threshold, and whether it alerts.
 *
 * Datadog's meaning, as its monitor guides state it: a metric monitor `agg(last_X):query` reads
 * the query's series over the last X (here at a one-minute rollup: a gauge series' mean in each
 * minute, a count's sum, combined by the space aggregator per group of the `by` tags) and reduces
 * each group's points with the time aggregator (`avg`, `sum`, `min`, `max`, `last`); arithmetic
 * is applied at each point and then reduced ("classic" evaluation), except when the query has
 * arithmetic and an `.as_count()`: then each operand is reduced first and the arithmetic joins
 * the reduced values ("as_count() in monitor evaluations"). A log (span, event) monitor counts or
 * measures the records its search matches over the last X, per group of its `by` facets. The
 * critical threshold (`options.thresholds.critical`, else the query's) is compared with the
 * query's comparator.
 *
 * An approximated migration is compared against what its notes say HyperDX computes instead:
 * `MonitorModes` switches each documented difference to the HyperDX side.
 */
import { cellsOf, type Ctx, type Dataset, DATADOG, expressionGrid, type Grid, GROUP_SEP, type Leaf, logGrid, metricGrid, type Modes, NotModelled, reduceGrid, STEP_MS, tagValuesOf, type Variable } from './evaluate';
import { type MetricTerm, metricTerms, readFormula, readQuery, type Term } from './metric-query';

export type Comparator = '>' | '>=' | '<' | '<=' | '==' | '!=';

interface Common {
  /** the evaluation window, minutes */
  minutes: number;
  comparator: Comparator;
  threshold: number;
}

interface SearchQuery extends Common {
  kind: 'search';
  over: 'logs' | 'events' | 'spans';
  search: string;
  aggregation: string;
  measure: string | undefined;
  groupBy: string[];
  /** a count that compares an empty window as 0 (`on_missing_data` "default") */
  emptyIsZero: boolean;
}

/** A service check monitor: `"check".over(tags).by(tags).last(N).count_by_status()` and its critical count. */
interface CheckQuery extends Common {
  kind: 'check';
  check: string;
  /** `key:value` tags every run must have (`*`: none) */
  over: string[];
  by: string[];
  /** consecutive CRITICAL runs that alert */
  critical: number;
  /** the runs the query reads (`last(N)`) */
  last: number;
}

/** One named search query of a formula monitor (`options.variables`). */
interface NamedSearch {
  name: string;
  over: 'logs' | 'events' | 'spans';
  search: string;
  aggregation: string;
  measure: string | undefined;
  groupBy: string[];
}

/** `formula("(query / query1) * 100").last("1h") > 10` over named search queries. */
export interface FormulaQuery extends Common {
  kind: 'formula';
  formula: Term;
  queries: NamedSearch[];
}

export type MonitorQuery = (Common & { kind: 'metric'; timeAgg: string; text: string; expr: Term }) | SearchQuery | CheckQuery | FormulaQuery;

/** One service check run as the agent sends it (status 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN). */
export interface CheckRun {
  check: string;
  host: string;
  tags: string[];
  /** seconds */
  ts: number;
  status: number;
}

/** What the monitors read: points, logs, events and service check runs. */
export interface MonitorData extends Dataset {
  checks: readonly CheckRun[];
}

const CRITICAL = 2;

const UNIT_MINUTES: Record<string, number> = { m: 1, h: 60, d: 1440, w: 10080, mo: 43200 };

function windowMinutes(text: string): number {
  const m = /^(?:last_)?(\d+)(mo|[mhdw])$/.exec(text);
  if (!m) throw new NotModelled(`the evaluation window ${text.replace(/\d+/g, 'N')}`);
  return Number(m[1]) * UNIT_MINUTES[m[2]!]!;
}

const METRIC = /^\s*(\w+)\(([\w]+)\)\s*:\s*([\s\S]+?)\s*(>=|<=|==|!=|>|<)\s*(-?[\d.]+(?:e[+-]?\d+)?)\s*$/;
const SEARCH = /^\s*(logs|trace-analytics|spans|events)\("((?:[^"\\]|\\.)*)"\)((?:\.\w+\([^)]*\))*)\s*(>=|<=|==|!=|>|<)\s*(-?[\d.]+)\s*$/;
const FORMULA = /^\s*formula\("((?:[^"\\]|\\.)*)"\)\s*\.last\("(\w+)"\)\s*(>=|<=|==|!=|>|<)\s*(-?[\d.]+)\s*$/;

const DATA_SOURCES: Record<string, NamedSearch['over']> = { logs: 'logs', events: 'events', spans: 'spans' };

/** A formula monitor: its formula over the named search queries `variables` (options.variables) holds. */
function readFormulaQuery(m: RegExpExecArray, variables: unknown, critical: number | undefined): FormulaQuery {
  const [, formula, window, comparator, threshold] = m;
  const list = Array.isArray(variables) ? (variables as Record<string, unknown>[]) : [];
  const queries = list.map((v): NamedSearch => {
    const over = DATA_SOURCES[String(v.data_source)];
    if (over === undefined) throw new NotModelled(`a formula over ${String(v.data_source)} queries`);
    const compute = (v.compute ?? {}) as { aggregation?: string; metric?: string };
    const groupBy = ((v.group_by ?? []) as { facet: string }[]).map((g) => g.facet);
    return { name: String(v.name), over, search: (v.search as { query?: string } | undefined)?.query ?? '', aggregation: compute.aggregation ?? 'count', measure: compute.metric, groupBy };
  });
  if (queries.length === 0) throw new NotModelled('a formula monitor without its queries');
  return { kind: 'formula', formula: readFormula(formula!.replace(/\\"/g, '"')), queries, minutes: windowMinutes(window!), comparator: comparator as Comparator, threshold: critical ?? Number(threshold) };
}

const TIME_AGGS = new Set(['avg', 'sum', 'min', 'max', 'last']);

const args = (text: string | undefined): string[] => [...(text ?? '').matchAll(/"([^"]*)"/g)].map((m) => m[1]!);

/**
 * A monitor's query, read here; `critical` (options.thresholds.critical) wins over the query's
 * number, as in Datadog; `onMissingData` (options.on_missing_data) says whether a count monitor
 * over logs, events or spans compares an empty window as 0 ("default", as Datadog's monitor API
 * documents it) or not.
 */
export function readMonitorQuery(type: string, query: string, critical: number | undefined, onMissingData = 'default', variables: unknown = undefined): MonitorQuery {
  if (type === 'service check') return readCheckQuery(query, critical);
  const formula = FORMULA.exec(query);
  if (formula) return readFormulaQuery(formula, variables, critical);
  if (type === 'query alert' || type === 'metric alert') {
    const m = METRIC.exec(query);
    if (!m) throw new NotModelled('a metric monitor query of another form');
    const [, timeAgg, window, expr, comparator, threshold] = m;
    if (!TIME_AGGS.has(timeAgg!)) throw new NotModelled(`the ${timeAgg} time aggregation`);
    return { kind: 'metric', timeAgg: timeAgg!, text: expr!, minutes: windowMinutes(window!), expr: readQuery(expr!), comparator: comparator as Comparator, threshold: critical ?? Number(threshold) };
  }
  const m = SEARCH.exec(query);
  if (!m || !['log alert', 'event-v2 alert', 'trace-analytics alert'].includes(type)) throw new NotModelled(`${type} monitors`);
  const [, over, search, chain, comparator, threshold] = m;
  const calls = new Map([...chain!.matchAll(/\.(\w+)\(([^)]*)\)/g)].map((c) => [c[1]!, args(c[2])]));
  const [aggregation = 'count', measure] = calls.get('rollup') ?? [];
  const last = calls.get('last')?.[0];
  if (last === undefined) throw new NotModelled('a search monitor without .last()');
  const groupBy = (calls.get('by') ?? [])
    .flatMap((b) => b.split(','))
    .map((f) => f.trim())
    .filter((f) => f !== '');
  return {
    kind: 'search',
    over: over === 'logs' ? 'logs' : over === 'events' ? 'events' : 'spans',
    search: search!.replace(/\\"/g, '"'),
    aggregation,
    measure,
    groupBy,
    emptyIsZero: aggregation === 'count' && onMissingData === 'default',
    minutes: windowMinutes(last),
    comparator: comparator as Comparator,
    threshold: critical ?? Number(threshold),
  };
}

/** `"check".over("a:b").by("host","c").last(3).count_by_status()`, read call by call. */
function readCheckQuery(query: string, critical: number | undefined): CheckQuery {
  const name = /^\s*"([^"]+)"/.exec(query);
  const calls = new Map([...query.slice(name?.[0].length ?? 0).matchAll(/\.(\w+)\(([^)]*)\)/g)].map((c) => [c[1]!, args(c[2])]));
  if (!name || !calls.has('count_by_status') || !calls.has('last')) throw new NotModelled('a service check query of another form');
  const tags = (call: string): string[] =>
    (calls.get(call) ?? [])
      .flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter((t) => t !== '' && t !== '*');
  const last = Number(query.match(/\.last\((\d+)\)/)?.[1]);
  // Datadog alerts after `critical` consecutive CRITICAL runs (the service check monitor's alert conditions)
  return { kind: 'check', check: name[1]!, over: tags('over'), by: tags('by'), critical: critical ?? last, last, minutes: 1, comparator: '>=', threshold: CRITICAL };
}

/** Which side of each documented difference a migrated alert is compared on (Datadog's by default). */
export interface MonitorModes extends Modes {
  /** the window compared, minutes (Datadog's `last_X`, or the HyperDX interval the report names) */
  minutes?: number;
  /** each series read once over the whole window (a gauge's last point, a count's sum), then combined: HyperDX's one interval */
  oneInterval: boolean;
  /** a window without data is a value of 0 (HyperDX's checker) rather than none */
  noDataIsZero: boolean;
  /** a service check's UNKNOWN run alerts as a CRITICAL one (HyperDX's `>= 2` on the status) */
  unknownAlerts: boolean;
}

export const DATADOG_MONITOR: MonitorModes = { ...DATADOG, oneInterval: false, noDataIsZero: false, unknownAlerts: false };

/** Each group's one value (a reduced grid's, or one interval's). */
const mapValues = (g: Grid): Map<string, number> => new Map([...g].flatMap(([group, row]) => (row.size > 0 ? [[group, [...row.values()][0]!] as const] : [])));

const hasAsCount = (t: Term): boolean => metricTerms(t).some((m) => m.methods.some((x) => x.name === 'as_count'));

/** A metric monitor's value per group over the window that ends at `end` (ms). */
function metricValues(q: Extract<MonitorQuery, { kind: 'metric' }>, data: Dataset, end: number, variables: readonly Variable[], modes: MonitorModes): Map<string, number> {
  const minutes = modes.minutes ?? q.minutes;
  // operands split by the same tags in another order join in the groups of the first one's order
  const groupOrder = metricTerms(q.expr)[0]?.by;
  if (modes.oneInterval) {
    // one interval: each series' value over it (a gauge's last point, a count's sum), combined per group
    const ctx: Ctx = { data, window: { from: end - minutes * STEP_MS, buckets: 1, step: minutes * STEP_MS }, modes: { ...modes, gaugeInterval: 'last' }, variables, groupOrder };
    const leaf: Leaf = (t) => metricGrid(t as MetricTerm, ctx);
    const grid = expressionGrid(q.expr, ctx, leaf, cellsOf(metricTerms(q.expr).map(leaf)));
    return typeof grid === 'number' ? new Map([['', grid]]) : mapValues(grid);
  }
  const ctx: Ctx = { data, window: { from: end - minutes * STEP_MS, buckets: minutes }, modes, variables, groupOrder };
  const arithmetic = q.expr.type !== 'metric';
  // as_count() with arithmetic: each operand reduced over the window first, then the arithmetic
  const leaf: Leaf = arithmetic && hasAsCount(q.expr) ? (t) => reduceGrid(metricGrid(t as MetricTerm, ctx), q.timeAgg) : (t) => metricGrid(t as MetricTerm, ctx);
  const grid = expressionGrid(q.expr, ctx, leaf, cellsOf(metricTerms(q.expr).map(leaf)));
  const reduced = arithmetic && hasAsCount(q.expr) ? grid : reduceGrid(grid, q.timeAgg);
  return typeof reduced === 'number' ? new Map([['', reduced]]) : mapValues(reduced);
}

/** A search monitor's value per group over the window that ends at `end` (ms). */
function searchValues(q: SearchQuery, data: Dataset, end: number, modes: MonitorModes): Map<string, number> {
  if (q.over === 'spans') throw new NotModelled('span monitors (the workload sends no spans)');
  const minutes = modes.minutes ?? q.minutes;
  const ctx: Ctx = { data, window: { from: end - minutes * STEP_MS, buckets: minutes }, modes, variables: [] };
  const values = mapValues(logGrid({ search: q.search, aggregation: q.aggregation, measure: q.measure, groupBy: q.groupBy, events: q.over === 'events' }, ctx, false));
  return values.size === 0 && q.emptyIsZero ? new Map([['', 0]]) : values;
}

/** A formula monitor's value per group: each named query over the window, joined by the formula (a group one query lacks has no value, unless `formulaZero`). */
function formulaValues(q: FormulaQuery, data: Dataset, end: number, modes: MonitorModes): Map<string, number> {
  if (q.queries.some((n) => n.over === 'spans')) throw new NotModelled('span monitors (the workload sends no spans)');
  const minutes = modes.minutes ?? q.minutes;
  const ctx: Ctx = { data, window: { from: end - minutes * STEP_MS, buckets: minutes }, modes, variables: [], groupOrder: q.queries[0]!.groupBy };
  const grids = new Map(q.queries.map((n) => [n.name, logGrid({ search: n.search, aggregation: n.aggregation, measure: n.measure, groupBy: n.groupBy, events: n.over === 'events' }, ctx, false)]));
  const leaf: Leaf = (t) => {
    const grid = t.type === 'ref' ? grids.get(t.name) : undefined;
    if (grid === undefined) throw new NotModelled('a formula naming no query of the monitor');
    return grid;
  };
  const grid = expressionGrid(q.formula, ctx, leaf, cellsOf([...grids.values()]));
  return typeof grid === 'number' ? new Map([['', grid]]) : mapValues(grid);
}

/**
 * A service check monitor per group (its `by` tags' values): the status of its last run before
 * `end`, and whether its last `critical` runs are all CRITICAL (UNKNOWN too: `unknownAlerts`).
 * It reads the query's last N runs: here the runs of the last N minutes (the workload runs each
 * check once a minute), so a window after the runs has no value, as HyperDX's has no data.
 */
export function checkStates(q: CheckQuery, runs: readonly CheckRun[], end: number, modes: MonitorModes): Map<string, { status: number; alerts: boolean }> {
  const byGroup = new Map<string, CheckRun[]>();
  for (const run of runs) {
    const recent = run.ts * 1000 < end && run.ts * 1000 >= end - Math.max(q.last, q.critical + 1) * STEP_MS;
    if (run.check !== q.check || !recent || !q.over.every((t) => run.tags.includes(t))) continue;
    const group = q.by.map((k) => tagValuesOf(run, k)[0] ?? 'N/A').join(GROUP_SEP);
    byGroup.set(group, [...(byGroup.get(group) ?? []), run]);
  }
  const failing = (status: number): boolean => status === CRITICAL || (modes.unknownAlerts && status === 3);
  return new Map(
    [...byGroup].map(([group, list]) => {
      const recent = [...list].sort((a, b) => a.ts - b.ts).slice(-q.critical);
      return [group, { status: recent.at(-1)!.status, alerts: recent.length === q.critical && recent.every((r) => failing(r.status)) }];
    }),
  );
}

/** The value per group (by values joined by GROUP_SEP) a monitor compares with its threshold. */
export function monitorValues(q: MonitorQuery, data: MonitorData, end: number, variables: readonly Variable[], modes: MonitorModes): Map<string, number> {
  if (q.kind === 'check') return new Map([...checkStates(q, data.checks, end, modes)].map(([g, s]) => [g, s.status]));
  const values = q.kind === 'metric' ? metricValues(q, data, end, variables, modes) : q.kind === 'formula' ? formulaValues(q, data, end, modes) : searchValues(q, data, end, modes);
  if (values.size === 0 && modes.noDataIsZero) return new Map([['', 0]]);
  return values;
}

const COMPARE: Record<Comparator, (v: number, t: number) => boolean> = {
  '>': (v, t) => v > t,
  '>=': (v, t) => v >= t,
  '<': (v, t) => v < t,
  '<=': (v, t) => v <= t,
  '==': (v, t) => v === t,
  '!=': (v, t) => v !== t,
};

/** Whether a group's value alerts: it meets the critical threshold. */
export const alerts = (q: MonitorQuery, value: number): boolean => COMPARE[q.comparator](value, q.threshold);

/** Per group, the value a monitor compares and whether it alerts (a service check: its last run's status, and its consecutive runs). */
export function monitorOutcome(q: MonitorQuery, data: MonitorData, end: number, variables: readonly Variable[], modes: MonitorModes): Map<string, { value: number; alerts: boolean }> {
  if (q.kind === 'check') return new Map([...checkStates(q, data.checks, end, modes)].map(([g, s]) => [g, { value: s.status, alerts: s.alerts }]));
  return new Map([...monitorValues(q, data, end, variables, modes)].map(([g, v]) => [g, { value: v, alerts: alerts(q, v) }]));
}

export { GROUP_SEP };
