/**
 * Points, logs and service check runs for what a set of Datadog monitors read (./workload.ts makes
 * the points and logs, as for the dashboards' widgets), shaped so that each monitor's comparison
 * says something:
 * - every series also has points in the first minute of each window a monitor evaluates, and
 *   (doubled) in the minute before it, so a window one minute too wide or too narrow changes a
 *   value;
 * - for each monitor in turn, the first metric it reads that none before it scaled is scaled so
 *   that its groups fall on both sides of its threshold (an ungrouped one on either side, by the
 *   hash of its file); each log count monitor's groups get as many matching logs as put them on
 *   either side of its threshold, a log measure's values are scaled as a metric's, and a log
 *   formula's first query given copies of its logs until its groups straddle its threshold;
 * - each service check monitor's groups run once a minute, one CRITICAL for as many runs as alert,
 *   one a run short, one UNKNOWN, one WARNING, one OK.
 * Other monitors reading the same metric or logs see the same data: their comparison holds, it
 * is only less sure to straddle their thresholds.
 */
import { GROUP_SEP, type SentSeries, STEP_MS, type Variable, type Window } from './evaluate';
import { facetValue } from './evaluate';
import { type DatadogLog, eventSearchText, matches, readSearch } from './log-search';
import { metricTerms } from './metric-query';
import { alerts, type CheckRun, type FormulaQuery, type MonitorData, type MonitorModes, type MonitorQuery, monitorValues } from './monitor';
import { addNeeds, emptyNeeds, generate, hash, type KnownTypes, sendEvents, sendLogs, sendSeries } from './workload';

export interface MonitorRead {
  /** names the monitor (its file): an ungrouped monitor's side of its threshold comes from its hash */
  key: string;
  query: MonitorQuery;
  variables: readonly Variable[];
  /** minutes of the HyperDX interval the migration chose */
  intervalMinutes: number;
  /** how its alert is compared (what its report says HyperDX computes) */
  modes: MonitorModes;
}

/** Minutes of points every series has, ending at the end of the windows. */
const RECENT_MINUTES = 3;
/** The largest count of logs a count monitor's group is given to reach its threshold. */
const MAX_LOGS = 250;

/** A monitor's query as a widget request, the shape ./workload.ts reads needs from. */
function requestOf(q: MonitorQuery): unknown {
  if (q.kind === 'check') return {};
  if (q.kind === 'formula') return { queries: q.queries.map((n) => ({ data_source: n.over, search: { query: n.search }, group_by: n.groupBy.map((facet) => ({ facet })), compute: { metric: n.measure } })) };
  if (q.kind === 'metric') return { q: q.text };
  const groupBy = q.groupBy.map((facet) => ({ facet }));
  if (q.over === 'events') return { queries: [{ data_source: 'events', search: { query: q.search }, group_by: groupBy }] };
  return { log_query: { search: { query: q.search }, group_by: groupBy, compute: q.measure === undefined ? undefined : { facet: q.measure } } };
}

/** Copies of each series' first recent minute at the start of each window, and doubled in the minute before it. */
function widenSeries(series: SentSeries, end: number, windows: readonly number[]): SentSeries {
  const first = end / 1000 - RECENT_MINUTES * 60;
  const firstMinute = series.points.filter((p) => p.ts >= first && p.ts < first + 60);
  const extra = windows
    .filter((m) => m > RECENT_MINUTES)
    .flatMap((m) => {
      const start = end / 1000 - m * 60;
      return [...firstMinute.map((p) => ({ ts: p.ts - first + start, value: p.value })), ...firstMinute.map((p) => ({ ts: p.ts - first + start - 60, value: 2 * p.value }))];
    });
  return { ...series, points: [...extra, ...series.points].sort((a, b) => a.ts - b.ts) };
}

/** The factors that put `threshold` between two groups' values (one group: above it, then below it), values being linear in the factor. */
function straddling(values: readonly number[], threshold: number): number[] {
  const sorted = values.filter((v) => Number.isFinite(v) && v !== 0).sort((a, b) => a - b);
  if (sorted.length === 1) return [(threshold / sorted[0]!) * 1.25, (threshold / sorted[0]!) * 0.8];
  return sorted.slice(1).flatMap((hi, i) => (hi === sorted[i] ? [] : [threshold / ((hi + sorted[i]!) / 2)]));
}

/** The factor that puts the threshold between the middle two groups' values (one group: on the side `above` says). */
function straddle(values: readonly number[], threshold: number, above: boolean): number | undefined {
  const factors = straddling(values, threshold);
  return values.length === 1 ? factors[above ? 0 : 1] : factors[Math.floor((factors.length - 1) / 2)];
}

/** Factors tried after those, nearest to 1 first: powers of two (and, for a gauge, their negatives: a threshold at or below 0). */
const POWERS = Array.from({ length: 41 }, (_, i) => 2 ** (i - 20)).sort((a, b) => Math.abs(Math.log2(a)) - Math.abs(Math.log2(b)));

const scaled = (s: SentSeries, factor: number): SentSeries => ({ ...s, points: s.points.map((p) => ({ ...p, value: p.value * factor })) });

/**
 * Scales, for each monitor in turn, the first metric it reads that no monitor before it scaled,
 * by the first factor that puts its groups on both sides of its threshold (one group: on the
 * side the hash of its key picks), as its alert is compared (`modes`).
 */
function scaleMetrics(series: Map<string, SentSeries[]>, reads: readonly MonitorRead[], data: () => MonitorData, end: number): void {
  const done = new Set<string>();
  for (const r of reads) {
    if (r.query.kind !== 'metric') continue;
    const metric = metricTerms(r.query.expr)
      .map((t) => t.metric)
      .find((m) => !done.has(m) && series.has(m));
    if (metric === undefined) continue;
    done.add(metric);
    const original = series.get(metric)!;
    const valuesAt = (factor: number): number[] => {
      series.set(
        metric,
        original.map((s) => scaled(s, factor)),
      );
      try {
        return [...monitorValues(r.query, data(), end, r.variables, r.modes).values()];
      } catch {
        return [];
      }
    };
    const above = hash(r.key) % 2 === 0;
    const meets = (factor: number): boolean => {
      const values = valuesAt(factor);
      const sides = new Set(values.map((v) => alerts(r.query, v)));
      return values.length > 1 ? sides.size === 2 : values.length === 1 && sides.has(above);
    };
    const gauge = original.every((s) => s.kind === 'gauge');
    const factor = [...straddling(valuesAt(1), r.query.threshold), ...POWERS, ...(gauge ? POWERS.map((f) => -f) : [])].find(meets);
    series.set(
      metric,
      original.map((s) => scaled(s, factor ?? 1)),
    );
  }
}

const groupOf = (log: DatadogLog, groupBy: readonly string[]): string => groupBy.map((f) => String(facetValue(log, f) ?? '')).join(GROUP_SEP);

/** The logs (events) of one search monitor, its groups given counts (or measures) on either side of its threshold. */
function shapedLogs(r: MonitorRead & { query: Extract<MonitorQuery, { kind: 'search' }> }, logs: DatadogLog[], end: number): DatadogLog[] {
  const q = r.query;
  const search = readSearch(q.over === 'events' ? eventSearchText(q.search) : q.search);
  const matched = logs.filter((l) => matches(search, l));
  const groups = [...new Set(matched.map((l) => groupOf(l, q.groupBy)))].sort();
  const attr = q.measure?.startsWith('@') ? q.measure.slice(1) : undefined;
  const distinct = q.aggregation === 'cardinality' && attr !== undefined;
  if (q.aggregation === 'count' || distinct) {
    if (q.threshold > MAX_LOGS || q.threshold < 1) return logs;
    const [low, high] = [Math.max(1, Math.ceil(q.threshold) - 1), Math.floor(q.threshold) + 2];
    const out = logs.filter((l) => !matched.includes(l));
    groups.forEach((g, i) => {
      const members = matched.filter((l) => groupOf(l, q.groupBy) === g);
      const want = groups.length === 1 ? (hash(r.key) % 2 === 0 ? high : low) : i % 2 === 0 ? low : high;
      // a count gets `want` logs; a unique count `want` distinct values of its facet
      for (let k = 0; k < want; k++) {
        const log = members[k % members.length]!;
        out.push({ ...log, ts: end - STEP_MS + ((k * 7919) % 59_000) + 500, attributes: distinct ? { ...log.attributes, [attr]: `distinct-${k}` } : log.attributes });
      }
    });
    return out;
  }
  if (attr === undefined || q.aggregation === 'cardinality') return logs;
  const values = groups.map((g) => {
    const v = matched.filter((l) => groupOf(l, q.groupBy) === g).map((l) => Number(l.attributes[attr]));
    return v.reduce((a, b) => a + b, 0) / v.length;
  });
  const factor = straddle(values, q.threshold, hash(r.key) % 2 === 0);
  if (factor === undefined) return logs;
  return logs.map((l) => (matched.includes(l) && typeof l.attributes[attr] === 'number' ? { ...l, attributes: { ...l.attributes, [attr]: (l.attributes[attr] as number) * factor } } : l));
}

const [OK, WARNING, CRITICAL, UNKNOWN] = [0, 1, 2, 3];

/**
 * The statuses of a service check monitor's groups, oldest first, one run a minute over the
 * `critical + 1` minutes before the end: one group CRITICAL for its last `critical` runs (it
 * alerts), one a run short of that, one UNKNOWN, one WARNING, one OK throughout; an ungrouped
 * monitor gets the first or the fourth, by the hash of its key.
 */
function checkSequences(critical: number, grouped: boolean, key: string): number[][] {
  const runs = critical + 1;
  const endingWith = (status: number, n: number): number[] => [...Array<number>(runs - n).fill(OK), ...Array<number>(n).fill(status)];
  const short = critical > 1 ? endingWith(CRITICAL, critical - 1) : [...Array<number>(runs - 1).fill(CRITICAL), OK];
  const all = [endingWith(CRITICAL, critical), short, endingWith(UNKNOWN, critical), endingWith(WARNING, critical), endingWith(OK, 0)];
  return grouped ? all : [all[hash(key) % 2 === 0 ? 0 : 3]!];
}

/** Service check runs for the check monitors among `reads` (each check once), before `end`. */
function checkRuns(reads: readonly MonitorRead[], end: number): CheckRun[] {
  const seen = new Set<string>();
  return reads.flatMap((r) => {
    if (r.query.kind !== 'check' || seen.has(r.query.check)) return [];
    const q = r.query;
    seen.add(q.check);
    return checkSequences(q.critical, q.by.length > 0, r.key).flatMap((statuses, g) => {
      const tags = [...q.over, ...q.by.filter((k) => k !== 'host').map((k) => `${k}:${k}-g${g}`)];
      return statuses.map((status, m) => ({ check: q.check, host: `check-host-${g}`, tags, ts: end / 1000 - (statuses.length - m) * 60 + 30, status }));
    });
  });
}

/** Copies the formula's first query may be given, in each group it alternates. */
const MULTIPLIERS = [1, 2, 3, 4, 6, 8, 12, 16];

/**
 * A log formula monitor's logs, the first query's matching logs copied (in every other group, or
 * in its one group) as many times as put its groups on both sides of its threshold (one group: on
 * the side the hash of its key picks), as its alert is compared; as generated when none does.
 */
function steeredFormula(r: MonitorRead & { query: FormulaQuery }, made: DatadogLog[], before: readonly DatadogLog[], end: number): DatadogLog[] {
  const [first] = r.query.queries;
  const search = readSearch(first!.search);
  const matched = made.filter((l) => first!.over === 'logs' && matches(search, l));
  const groups = [...new Set(matched.map((l) => groupOf(l, first!.groupBy)))].sort();
  const withCopies = (k: number): DatadogLog[] => {
    const copied = matched.filter((l) => groups.length === 1 || groups.indexOf(groupOf(l, first!.groupBy)) % 2 === 1);
    return [...made, ...Array.from({ length: k - 1 }, (_, c) => copied.map((l, i) => ({ ...l, ts: end - STEP_MS + (((c + 1) * 7919 + i * 613) % 59_000) + 500 }))).flat()];
  };
  const above = hash(r.key) % 2 === 0;
  const meets = (k: number): boolean => {
    let values: number[];
    try {
      values = [...monitorValues(r.query, { series: new Map(), logs: [...before, ...withCopies(k)], events: [], checks: [] }, end, r.variables, r.modes).values()];
    } catch {
      return false;
    }
    const sides = new Set(values.map((v) => alerts(r.query, v)));
    return values.length > 1 ? sides.size === 2 : values.length === 1 && sides.has(above);
  };
  return withCopies(MULTIPLIERS.find(meets) ?? 1);
}

/** Points, logs and service check runs for `reads`, over windows that end at `end` (ms, a minute boundary). */
export function monitorDataset(reads: readonly MonitorRead[], end: number, types: KnownTypes): MonitorData {
  const recent: Window = { from: end - RECENT_MINUTES * STEP_MS, buckets: RECENT_MINUTES };
  const needs = emptyNeeds();
  for (const r of reads) if (r.query.kind === 'metric') addNeeds(needs, [requestOf(r.query)], r.variables);
  const generated = generate(needs, recent, types);
  const windows = [...new Set(reads.flatMap((r) => [r.query.minutes, r.intervalMinutes]))];
  const series = new Map([...generated.series].map(([m, list]) => [m, list.map((s) => widenSeries(s, end, windows))]));
  const logs: DatadogLog[] = [];
  const events: DatadogLog[] = [];
  const lastMinute: Window = { from: end - STEP_MS, buckets: 1 };
  for (const r of reads) {
    if (r.query.kind === 'formula') {
      const one = emptyNeeds();
      addNeeds(one, [requestOf(r.query)], r.variables);
      const made = generate(one, lastMinute, types);
      logs.push(...steeredFormula(r as MonitorRead & { query: FormulaQuery }, [...made.logs], logs, end));
      events.push(...made.events);
      continue;
    }
    if (r.query.kind !== 'search' || r.query.over === 'spans') continue;
    const one = emptyNeeds();
    addNeeds(one, [requestOf(r.query)], r.variables);
    const made = generate(one, lastMinute, types);
    const search = r as MonitorRead & { query: Extract<MonitorQuery, { kind: 'search' }> };
    if (r.query.over === 'events') events.push(...shapedLogs(search, [...made.events], end));
    else logs.push(...shapedLogs(search, [...made.logs], end));
  }
  const checks = checkRuns(reads, end);
  const data = (): MonitorData => ({ series, logs, events, checks });
  scaleMetrics(series, reads, data, end);
  return data();
}

/** Sends `data` as the agent does; the tables it lands in, with the rows each must reach. */
export async function sendDataset(intakeUrl: string, apiKey: string, data: MonitorData): Promise<[table: string, rows: number][]> {
  const series = [...data.series.values()].flat();
  await sendSeries(intakeUrl, apiKey, series);
  if (data.checks.length > 0) await sendCheckRuns(intakeUrl, apiKey, data.checks);
  await sendLogs(intakeUrl, apiKey, data.logs);
  if (data.events.length > 0) await sendEvents(intakeUrl, apiKey, data.events);
  const points = (kind: SentSeries['kind']): number => series.filter((s) => s.kind === kind).reduce((n, s) => n + s.points.length, 0);
  return [
    ['otel_metrics_gauge', points('gauge') + data.checks.length],
    ['otel_metrics_sum', points('count')],
    ['otel_logs', data.logs.length + data.events.length],
  ];
}

/** Service check runs as the agent flushes them: a JSON array on /api/v1/check_run. */
async function sendCheckRuns(intakeUrl: string, apiKey: string, runs: readonly CheckRun[]): Promise<void> {
  const body = JSON.stringify(runs.map((r) => ({ check: r.check, host_name: r.host, timestamp: r.ts, status: r.status, tags: r.tags })));
  const res = await fetch(`${intakeUrl}/api/v1/check_run`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', 'DD-Api-Key': apiKey } });
  if (res.status !== 202) throw new Error(`/api/v1/check_run: ${res.status} ${await res.text()}`);
}
