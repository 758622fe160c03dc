/**
 * A Datadog monitor → what HyperDX alerts on, plus the alert:
 * - metric monitors (`avg(last_5m):avg:system.cpu.user{env:prod} by {host} > 90`) and service
 *   checks (the bridge stores a check as a gauge named after it, 0 OK … 3 UNKNOWN) → a line tile
 *   on the generated "Datadog monitors" dashboard and an alert on that tile;
 * - log monitors (`logs("…").index("*").rollup("count").last("5m") > 100`) → a saved search and
 *   an alert on it.
 * Anomaly, forecast, outlier and composite monitors, and everything else HyperDX cannot evaluate,
 * are skipped and reported with the reason.
 */
import type { AlertChannelWebhook, AlertInterval, AlertThresholdType } from '../stack-api/types';
import type { DatadogMonitor, NamedQuery } from './datadog';
import { EVENT_SEARCH, holdingFacets, keptTo, LOG_SEARCH, searchFieldSql, spanSearch, translateSearch } from './log-search';
import { metricQueriesOf, parseMetricExpression, QueryError } from './metric-query';
import { channelsFor, convertMessage, type WebhookMap } from './notifications';
import { type AlertDraft, formerMarkerFor, identityOf, MARKER_PREFIX, markerFor, type MonitorPlan, outcomeOf, type Sources, type TileInput } from './plan';
import {
  addExpression,
  addNamedQueries,
  DEFAULT_SETTINGS,
  defaultsContext,
  emptySeries,
  filterToLucene,
  GAUGE_INTERVAL_NOTE,
  groupColumns,
  logAggregation,
  METRIC_TAGS,
  type SelectItem,
  type Series,
  sourceIdOf,
  tagScopeOf,
  type TranslationSettings,
  Unsupported,
  withoutTrivialFormulas,
} from './series';

export type { WebhookMap } from './notifications';

const INTERVALS: readonly [AlertInterval, number][] = [
  ['1m', 1],
  ['5m', 5],
  ['15m', 15],
  ['30m', 30],
  ['1h', 60],
  ['6h', 360],
  ['12h', 720],
  ['1d', 1440],
];

/** A month as Datadog's `last_1mo` window spans it: 30 days. */
const UNIT_MINUTES: Record<string, number> = { m: 1, h: 60, d: 1440, w: 10080, mo: 43200 };

/**
 * `last_10m`, `5m` → the smallest HyperDX interval covering the window (and a note if wider or
 * narrower). HyperDX's checker looks at an alert once per interval, over windows aligned to the
 * clock; Datadog evaluates the last X every minute: past a minute, that is said too.
 */
function intervalFor(window: string, notes: string[]): AlertInterval {
  const m = /^(?:last_)?(\d+)(mo|[mhdw])$/.exec(window);
  if (!m) throw new Unsupported(`evaluation window "${window}" is not understood`);
  const minutes = Number(m[1]) * UNIT_MINUTES[m[2]!]!;
  const fit = INTERVALS.find(([, n]) => n >= minutes) ?? INTERVALS[INTERVALS.length - 1]!;
  if (fit[1] !== minutes) notes.push(`evaluation window ${window} became the ${fit[0]} interval (HyperDX intervals: ${INTERVALS.map(([i]) => i).join(', ')})`);
  if (fit[1] > 1) notes.push(`checked once every ${fit[0]} over windows aligned to the clock, where Datadog checks the last ${m[1]}${m[2]} every minute: an alert can come up to ${fit[0]} later, and a breach across two windows is seen in two parts`);
  return fit[0];
}

const COMPARATORS: Record<string, AlertThresholdType> = { '>': 'above_exclusive', '>=': 'above', '<': 'below', '<=': 'below_or_equal', '==': 'equal', '!=': 'not_equal' };

interface Condition {
  thresholdType: AlertThresholdType;
  threshold: number;
}

/**
 * The critical threshold (options win over the query's number, as in Datadog); the rest is
 * reported. `emptyIsZero`: Datadog also compares an empty window as 0 (a count monitor over logs,
 * events or spans with `on_missing_data` "default", as Datadog's monitor API documents it).
 */
function condition(monitor: DatadogMonitor, comparator: string, queryThreshold: number, notes: string[], emptyIsZero = false): Condition {
  const thresholds = monitor.options.thresholds ?? {};
  for (const other of ['warning', 'critical_recovery', 'warning_recovery'] as const) {
    if (thresholds[other] !== undefined) notes.push(`${other.replace('_', ' ')} threshold ${thresholds[other]} not migrated (a HyperDX alert has one threshold)`);
  }
  const cond = { thresholdType: COMPARATORS[comparator]!, threshold: thresholds.critical ?? queryThreshold };
  if (firesOnZero(cond) && !emptyIsZero) notes.push(`HyperDX counts an interval without data as 0, which meets "${comparator} ${cond.threshold}": this alert also fires when no data arrives (Datadog's does not, unless it notifies on no data)`);
  return cond;
}

/** Whether an empty interval (HyperDX evaluates it as 0) meets the condition. */
function firesOnZero({ thresholdType, threshold }: Condition): boolean {
  switch (thresholdType) {
    case 'above':
      return 0 >= threshold;
    case 'above_exclusive':
      return 0 > threshold;
    case 'below':
      return 0 < threshold;
    case 'below_or_equal':
      return 0 <= threshold;
    case 'equal':
      return threshold === 0;
    case 'not_equal':
      return threshold !== 0;
    default:
      return false;
  }
}

const MAX_NOTE = 4096;

function alertDraft(monitor: DatadogMonitor, marker: string, message: string, cond: Condition, interval: AlertInterval, channels: AlertChannelWebhook[], extra: Partial<AlertDraft>): AlertDraft {
  const tags = monitor.tags.length > 0 ? ` Tags: ${monitor.tags.join(', ')}.` : '';
  const note = `${marker} — migrated from the Datadog monitor "${monitor.name}"${monitor.id !== undefined ? ` (#${monitor.id})` : ''}: ${monitor.query}.${tags}`;
  const [channel, ...more] = channels;
  return {
    name: monitor.name,
    ...(message !== '' ? { message } : {}),
    note: note.length > MAX_NOTE ? `${note.slice(0, MAX_NOTE - 1)}…` : note,
    interval,
    ...cond,
    ...(channel ? { channel, ...(more.length > 0 ? { channels } : {}) } : {}),
    ...extra,
  };
}

const MONITOR_TILE = { w: 12, h: 6 };

/** `s`: the series as drawn (withoutTrivialFormulas). */
function monitorTile(name: string, s: Series, sources: Sources, index: number): TileInput {
  return {
    name,
    x: (index % 2) * MONITOR_TILE.w,
    y: Math.floor(index / 2) * MONITOR_TILE.h,
    ...MONITOR_TILE,
    config: {
      displayType: 'line',
      sourceId: sourceIdOf(s.source, sources),
      select: s.selects,
      ...(s.groupBy.length > 0 ? { groupBy: s.groupBy.join(', ') } : {}),
      ...(s.formulas.length > 0 ? { formulas: s.formulas, showOperandSeries: false } : {}),
    },
  };
}

const METRIC_MONITOR = /^\s*(\w+)\(([\w]+)\)\s*:\s*([\s\S]+?)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(?:by\s*\{([^}]*)\})?\s*$/i;

const NOT_EVALUABLE = ['anomalies', 'forecast', 'outliers'];

interface Target {
  tile?: TileInput;
  search?: MonitorPlan['target'];
  interval: AlertInterval;
  cond: Condition;
  extra: Partial<AlertDraft>;
}

/**
 * What becomes of the monitor's time aggregation. HyperDX buckets a gauge series by its last
 * point in the interval before it aggregates across series (test/hyperdx-api/migrate-tiles.test.ts
 * pins this), so for gauges only Datadog's `last` survives. Other series give one space
 * aggregation per interval of each series' total over the interval: Datadog's value is that only
 * for the sum over the window of a sum across series (test/hyperdx-api/
 * migrate-monitors-rendered.test.ts: `min(last_1h):min:` of a count compares a minute's count in
 * Datadog, an hour's in HyperDX).
 */
function timeAggregationNotes(selects: readonly SelectItem[], timeAggr: string, window: string): string[] {
  if (selects.some((s) => s.metricType === 'gauge')) return timeAggr === 'last' ? [] : [`time aggregation ${timeAggr}(${window}): HyperDX reads each gauge series' last point in the interval, where Datadog takes the ${timeAggr} of its points`];
  const spaceAggs = new Set<string>(selects.map((s) => s.aggFn));
  if (timeAggr === 'sum' && spaceAggs.size === 1 && spaceAggs.has('sum')) return [];
  return [`time aggregation ${timeAggr}(${window}) became one ${[...spaceAggs].join('/')} per interval of each series' total over the interval, where Datadog takes the ${timeAggr} of the values at each rollup point`];
}

function metricTarget(monitor: DatadogMonitor, sources: Sources, index: number, settings: TranslationSettings, notes: string[]): Target {
  const m = METRIC_MONITOR.exec(monitor.query);
  if (!m) throw new Unsupported('the query is not `time_aggr(window):query comparator threshold`');
  const [, timeAggr, window, queryText, comparator, threshold, trailingBy] = m;
  const called = NOT_EVALUABLE.find((f) => queryText!.includes(`${f}(`));
  if (called) throw new Unsupported(`${called}() monitors have no HyperDX equivalent (an alert compares a value with a fixed threshold)`);
  const series = emptySeries();
  const ctx = defaultsContext(monitor.variables, settings);
  const expr = parseMetricExpression(queryText!);
  addExpression(series, expr, ctx);
  const [first] = metricQueriesOf(expr);
  if (trailingBy)
    series.groupBy.push(
      ...groupColumns(
        first ? tagScopeOf(first, ctx) : METRIC_TAGS,
        trailingBy.split(',').map((t) => t.trim()),
      ),
    );
  const drawn = withoutTrivialFormulas(series);
  notes.push(...timeAggregationNotes(drawn.selects, timeAggr!, window!));
  // over the alert's one interval, the time aggregation's note says how a gauge is read
  notes.push(...drawn.notes.filter((n) => n !== GAUGE_INTERVAL_NOTE));
  return { tile: monitorTile(monitor.name, drawn, sources, index), interval: intervalFor(window!, notes), cond: condition(monitor, comparator!, Number(threshold), notes), extra: {} };
}

/** `"check".over("tags").by("tags").last(N).count_by_status()` */
const SERVICE_CHECK = /^\s*"([^"]+)"\s*\.over\(([^)]*)\)(?:\s*\.by\(([^)]*)\))?\s*\.last\((\d+)\)\s*\.count_by_status\(\)\s*$/;

const quotedList = (args: string | undefined): string[] => [...(args ?? '').matchAll(/"([^"]*)"/g)].map((m) => m[1]!).flatMap((s) => s.split(',').map((t) => t.trim()));

/** The bridge's service-check gauge is 2 for CRITICAL, 3 for UNKNOWN (docs/translation.md, Type mapping). */
const [CRITICAL, UNKNOWN] = [2, 3];

function serviceCheckTarget(monitor: DatadogMonitor, sources: Sources, index: number, notes: string[]): Target {
  const m = SERVICE_CHECK.exec(monitor.query);
  if (!m) throw new Unsupported('the service check query is not `"check".over(…).by(…).last(N).count_by_status()`');
  const [, check, over, by, last] = m;
  const where = quotedList(over)
    .filter((t) => t !== '*' && t !== '')
    .map((t) => {
      const colon = t.indexOf(':');
      return filterToLucene(METRIC_TAGS, colon < 0 ? { kind: 'tag', key: t, value: '', bare: true } : { kind: 'tag', key: t.slice(0, colon), value: t.slice(colon + 1) }, defaultsContext([]));
    })
    .join(' AND ');
  const groupBy = quotedList(by).filter((t) => t !== '*' && t !== '');
  const series: Series = {
    source: 'metric',
    selects: [{ aggFn: 'max', valueExpression: 'Value', where, whereLanguage: 'lucene', metricName: check!, metricType: 'gauge' }],
    formulas: [],
    groupBy: groupColumns(METRIC_TAGS, groupBy),
    notes: [],
  };
  const consecutive = Math.max(1, Math.round(monitor.options.thresholds?.critical ?? Number(last)));
  if (monitor.options.thresholds?.warning !== undefined) notes.push(`warning after ${monitor.options.thresholds.warning} checks not migrated (a HyperDX alert has one threshold)`);
  // the gauge's values order the statuses: HyperDX's `>= 2` cannot leave UNKNOWN (3) out, where Datadog's check alert counts CRITICAL runs only
  notes.push(`an UNKNOWN status (${UNKNOWN}) also meets the alert's ">= ${CRITICAL}": Datadog alerts on CRITICAL runs only (an UNKNOWN one leaves the monitor OK)`);
  if (consecutive > 1) notes.push(`${consecutive} consecutive CRITICAL checks became ${consecutive} consecutive 1m windows with a CRITICAL status`);
  return {
    tile: monitorTile(monitor.name, series, sources, index),
    interval: '1m',
    cond: { thresholdType: 'above', threshold: CRITICAL },
    extra: consecutive > 1 ? { numConsecutiveWindows: consecutive } : {},
  };
}

/** `logs("q").index("*").rollup("count").by("a,b").last("5m") > N`; APM: `trace-analytics("q")…` */
const LOG_MONITOR = /^\s*(?:logs|trace-analytics|spans|events)\("((?:[^"\\]|\\.)*)"\)((?:\.\w+\([^)]*\))*)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

/**
 * A log (or APM span: `kind` trace) monitor: a count becomes a saved search and a search alert
 * (HyperDX search alerts count the matching records); a measure (`rollup("avg", "@duration")`, a
 * unique count, a percentile) becomes a tile over the Logs (Traces) source on the monitors
 * dashboard, and a tile alert on it.
 */
function searchTarget(monitor: DatadogMonitor, over: 'log' | 'event' | 'trace', sources: Sources, settings: TranslationSettings, marker: string, index: number, notes: string[]): Target {
  if (FORMULA_MONITOR.test(monitor.query)) return formulaTarget(monitor, sources, settings, index, notes);
  const m = LOG_MONITOR.exec(monitor.query);
  if (!m) throw new Unsupported(`the query is not \`${over === 'trace' ? 'trace-analytics' : `${over}s`}("…").….last("…") comparator threshold\``);
  // events are log records of the Logs source (docs/translation.md, Events)
  const kind = over === 'trace' ? 'trace' : 'log';
  const schema = over === 'trace' ? spanSearch(settings.semconv) : over === 'event' ? EVENT_SEARCH : LOG_SEARCH;
  const [, search, chain, comparator, threshold] = m;
  const calls = new Map([...chain!.matchAll(/\.(\w+)\(([^)]*)\)/g)].map((c) => [c[1]!, quotedList(c[2])]));
  const rollup = calls.get('rollup') ?? ['count'];
  const window = calls.get('last')?.[0];
  if (window === undefined) throw new Unsupported('the query has no .last("…") window');
  const index_ = calls.get('index')?.[0];
  if (index_ !== undefined && index_ !== '*') notes.push(`index("${index_}") dropped (ClickStack has one ${kind === 'log' ? 'logs' : 'traces'} table)`);
  const facets = (calls.get('by') ?? []).filter((f) => f !== '');
  const groupBy = facets.map((f) => searchFieldSql(schema, f));
  const searched = holdingFacets(translateSearch(search!.replace(/\\"/g, '"'), schema, notes), facets, schema, notes);
  const where = keptTo(over === 'trace' ? 'spans' : `${over}s`, searched);
  const interval = intervalFor(window, notes);
  const counted = rollup[0] === 'count' && rollup.length === 1;
  const cond = condition(monitor, comparator!, Number(threshold), notes, counted && (monitor.options.on_missing_data ?? 'default') === 'default');
  if (counted) {
    return {
      search: { kind: 'search', search: { name: monitor.name, sourceId: sourceIdOf(kind, sources), where, whereLanguage: 'lucene', tags: [marker, 'datadog'] } },
      interval,
      cond,
      extra: groupBy.length > 0 ? { groupBy: groupBy.join(', ') } : {},
    };
  }
  const measure = rollup[1] === undefined ? [] : [rollup[1]];
  const select: SelectItem = { ...logAggregation(rollup[0]!, rollup[1], `rollup("${rollup.join('", "')}")`, schema, notes), where: holdingFacets(where, measure, schema, notes), whereLanguage: 'lucene' };
  const series: Series = { source: kind, selects: [select], formulas: [], groupBy, notes: [] };
  return { tile: monitorTile(monitor.name, series, sources, index), interval, cond, extra: {} };
}

/** `formula("(query / query1) * 100").last("1h") > 10`, its named queries in `options.variables` */
const FORMULA_MONITOR = /^\s*formula\("((?:[^"\\]|\\.)*)"\)\s*\.last\("(\w+)"\)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

/** The named queries of a formula monitor, as a widget's newer-form request holds them. */
function namedQueriesOf(monitor: DatadogMonitor): NamedQuery[] {
  const variables = monitor.options.variables;
  const valid = (q: unknown): q is NamedQuery => typeof q === 'object' && q !== null && typeof (q as NamedQuery).name === 'string' && typeof (q as NamedQuery).data_source === 'string';
  if (!Array.isArray(variables) || variables.length === 0 || !variables.every(valid)) throw new Unsupported('the formula names queries that options.variables does not hold as named queries');
  return variables;
}

/**
 * A formula over named log (event, span) queries: their selects and the formula on a tile of the
 * monitors dashboard, as a widget's, and an alert on it. A query's group limit (its top N groups)
 * is dropped: HyperDX's alert evaluates every group.
 */
function formulaTarget(monitor: DatadogMonitor, sources: Sources, settings: TranslationSettings, index: number, notes: string[]): Target {
  const [, formula, window, comparator, threshold] = FORMULA_MONITOR.exec(monitor.query)!;
  const queries = namedQueriesOf(monitor);
  const series = emptySeries();
  const top = addNamedQueries(series, queries, [{ formula: formula!.replace(/\\"/g, '"') }], defaultsContext(monitor.variables, settings));
  if (top) throw new Unsupported('top() in a monitor formula has no HyperDX equivalent (an alert evaluates every group)');
  for (const q of queries) for (const g of q.group_by ?? []) if (g.limit !== undefined) notes.push(`the group limit of ${g.limit} of "${q.name}" (by ${g.facet}) dropped: HyperDX's alert evaluates every group`);
  const drawn = withoutTrivialFormulas(series);
  notes.push(...drawn.notes);
  return { tile: monitorTile(monitor.name, drawn, sources, index), interval: intervalFor(window!, notes), cond: condition(monitor, comparator!, Number(threshold), notes), extra: {} };
}

const TARGETS: Record<string, 'metric' | 'service' | 'log' | 'event' | 'trace'> = {
  'query alert': 'metric',
  'metric alert': 'metric',
  'service check': 'service',
  'log alert': 'log',
  'trace-analytics alert': 'trace',
  'event-v2 alert': 'event',
};

/** Options a HyperDX alert has nothing for: said when the monitor sets them. */
function optionNotes(monitor: DatadogMonitor): string[] {
  const o = monitor.options;
  const notes: string[] = [];
  if (typeof o.renotify_interval === 'number' && o.renotify_interval > 0) notes.push(`renotify every ${o.renotify_interval} min dropped: HyperDX notifies once when the alert fires and once when it resolves`);
  if (typeof o.escalation_message === 'string' && o.escalation_message.trim() !== '') notes.push('escalation message dropped: HyperDX does not renotify');
  if (o.notify_no_data === true) notes.push(`no-data alert${typeof o.no_data_timeframe === 'number' ? ` after ${o.no_data_timeframe} min` : ''} dropped: HyperDX alerts on values, not on their absence`);
  if (typeof o.evaluation_delay === 'number' && o.evaluation_delay > 0) notes.push(`evaluation delay of ${o.evaluation_delay} s dropped`);
  for (const delay of ['new_host_delay', 'new_group_delay'] as const) if (typeof o[delay] === 'number' && (o[delay] as number) > 0) notes.push(`${delay.replace(/_/g, ' ')} of ${o[delay]} s dropped`);
  if (monitor.tags.length > 0) notes.push(`tags ${monitor.tags.join(', ')} kept in the alert's note (HyperDX alerts have no tags)`);
  return notes;
}

/**
 * A monitor's tile is named after it and its identity, so two monitors of one name keep a tile
 * each on the shared monitors dashboard.
 */
const tileName = (monitor: DatadogMonitor, marker: string): string => `${monitor.name} (${monitor.id !== undefined ? `#${monitor.id}` : marker.slice(MARKER_PREFIX.length)})`;

/**
 * `index` places the tile on the generated monitors dashboard; `identity` names the export when it
 * has no Datadog id (its path under the DIR given).
 */
export function translateMonitor(monitor: DatadogMonitor, file: string, sources: Sources, webhooks: WebhookMap, index: number, settings: TranslationSettings = DEFAULT_SETTINGS, identity = file): MonitorPlan {
  const marker = markerFor('monitor', identityOf(monitor.id, identity));
  const formerMarker = formerMarkerFor('monitor', monitor.id, monitor.name);
  const notes: string[] = [];
  const base = { kind: 'monitor' as const, file, name: monitor.name, marker, type: monitor.type, ...(formerMarker ? { formerMarker } : {}) };
  try {
    const kind = TARGETS[monitor.type];
    if (kind === undefined) throw new Unsupported(`${monitor.type} monitors have no HyperDX equivalent`);
    const t = kind === 'metric' ? metricTarget(monitor, sources, index, settings, notes) : kind === 'service' ? serviceCheckTarget(monitor, sources, index, notes) : searchTarget(monitor, kind, sources, settings, marker, index, notes);
    notes.push(...optionNotes(monitor));
    const converted = convertMessage(monitor.message);
    notes.push(...converted.notes);
    const channels = channelsFor(converted, webhooks, notes).map((webhookId): AlertChannelWebhook => ({ type: 'webhook', webhookId }));
    const source = t.tile ? { source: 'tile' as const } : { source: 'saved_search' as const };
    const alert = channels.length > 0 ? alertDraft(monitor, marker, converted.message, t.cond, t.interval, channels, { ...source, ...t.extra }) : undefined;
    if (!alert) notes.push('no alert created: no notification handle maps to a HyperDX webhook (give --notify-map FILE, --webhook NAME=ID or --default-webhook ID)');
    const target = t.tile ? { kind: 'tile' as const, tile: { ...t.tile, name: tileName(monitor, marker) } } : t.search;
    return { ...base, target, alert, outcome: outcomeOf(notes, true), notes };
  } catch (err) {
    if (!(err instanceof Unsupported || err instanceof QueryError)) throw err;
    return { ...base, target: undefined, alert: undefined, outcome: 'skipped', notes: [...notes, err.message] };
  }
}
