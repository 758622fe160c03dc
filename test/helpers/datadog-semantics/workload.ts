/**
 * Points and logs for the metrics and searches a set of Datadog widgets read, made so that their
 * filters and groups have something to keep, drop and split, and sent as the agent sends them:
 * v2 series (protobuf, zstd, the agent's headers; a gauge every 15 s, a count every 15 s with
 * its interval) and agent-json logs (zstd). Hand-made values over real queries: what is real is
 * the queries (integrations-core's dashboards) and the wire formats (the agent's).
 *
 * Per metric, at least four series: their tag values come from the filters that read the metric
 * (the first value named for each key on series 0 and 1, each further value on a series of its
 * own, and a value no filter names on the last), the keys a query splits by alternate between
 * two values, and a `gen_series` tag keeps the series apart. A metric's type is what the agent sends for it: integrations-core's
 * metadata (the bundled types); without one, a count when some query counts it
 * (`.as_count()`/`.as_rate()`), else a gauge.
 *
 * Per log query, logs that meet its search (each `OR` branch in turn), in two groups of each
 * facet it splits by, with a measure where it measures, and one that does not meet it.
 */
import { AGENT_PROTOBUF_HEADERS, agentZstd, encodeMetricPayload } from '../../fixtures/metrics/agent-payloads';
import { shipEntriesAsAgent } from '../agent-logs';
import type { Dataset, SentSeries, Variable, Window } from './evaluate';
import { type DatadogLog, eventSearchText, fieldsOf, matches, readSearch, type Search, type Value } from './log-search';
import { type MetricTerm, metricTerms, readQueries, type TagFilter } from './metric-query';
import { flushValues, percentileLevel } from './distribution';
import { RESERVED, withDefaults } from './evaluate';

interface MetricNeed {
  /** tag key → values filters name (wildcards made concrete) */
  values: Map<string, string[]>;
  bare: Set<string>;
  groups: Set<string>;
  counted: boolean;
  /** some query reads a percentile of it (`p95:`): Datadog computes one of a distribution only */
  percentile: boolean;
}

export interface LogNeed {
  search: string;
  groupBy: string[];
  measure: string | undefined;
}

export interface Needs {
  metrics: Map<string, MetricNeed>;
  logs: LogNeed[];
  /** searches over Datadog events */
  events: LogNeed[];
  /** searches over APM spans (./spans.ts) */
  spans: LogNeed[];
}

export const emptyNeeds = (): Needs => ({ metrics: new Map(), logs: [], events: [], spans: [] });

const concrete = (value: string): string => value.replace(/\*/g, 'x');

/** A value a filter names; a wildcard one also brings a value that holds its text but not its pattern (`web-*`: `pre-web-x`). */
function addValue(need: MetricNeed, key: string, value: string): void {
  const values = need.values.get(key) ?? [];
  const add = (v: string): void => {
    if (!values.includes(v)) values.push(v);
  };
  add(concrete(value));
  if (value.includes('*') && value !== '*' && !value.startsWith('*')) add(`pre-${concrete(value)}`);
  need.values.set(key, values);
}

function collectFilter(f: TagFilter, need: MetricNeed, variables: readonly Variable[]): void {
  switch (f.op) {
    case 'tag':
      if (f.value === undefined) {
        const colon = f.key.indexOf(':');
        if (colon < 0) need.bare.add(f.key);
        else addValue(need, f.key.slice(0, colon), f.key.slice(colon + 1));
      } else addValue(need, f.key, f.value);
      break;
    case 'variable': {
      const v = variables.find((x) => x.name === f.name);
      const key = f.key ?? v?.prefix;
      for (const d of v?.defaults ?? []) if (d !== '*' && d !== '' && key) addValue(need, key, d);
      break;
    }
    case 'not':
      collectFilter(f.of, need, variables);
      break;
    case 'and':
    case 'or':
      for (const x of f.of) collectFilter(x, need, variables);
      break;
    default:
      break;
  }
}

interface RequestLike {
  q?: string;
  queries?: { data_source: string; query?: string; search?: { query: string }; compute?: { metric?: string }; group_by?: { facet: string }[] }[];
  formulas?: { formula: string }[];
  log_query?: { search?: { query: string }; compute?: { facet?: string; metric?: string }; group_by?: { facet: string }[] };
  query?: { data_source?: string; query_string?: string };
}

const STREAMS = { logs: 'logs_stream', events: 'event_stream', spans: 'trace_stream' } as const;

/** The search queries of a request over logs (`logs`), events (`events`) or APM spans (`spans`). */
function searchNeeds(r: RequestLike, over: keyof typeof STREAMS): LogNeed[] {
  const stream = STREAMS[over];
  return [
    ...(r.queries ?? []).filter((q) => q.data_source === over).map((q) => ({ search: q.search?.query ?? '', groupBy: (q.group_by ?? []).map((g) => g.facet), measure: q.compute?.metric })),
    ...(r.log_query && over === 'logs' ? [{ search: r.log_query.search?.query ?? '', groupBy: (r.log_query.group_by ?? []).map((g) => g.facet), measure: r.log_query.compute?.facet ?? r.log_query.compute?.metric }] : []),
    ...(r.query?.data_source === stream ? [{ search: r.query.query_string ?? '', groupBy: [], measure: undefined }] : []),
  ];
}

/** `needs` with a search's variables replaced by their defaults (one naming an undefined variable is skipped: the migration drops it). */
function addSearches(into: LogNeed[], searches: readonly LogNeed[], variables: readonly Variable[]): void {
  for (const l of searches) {
    try {
      into.push({ ...l, search: withDefaults(l.search, variables) });
    } catch {
      // the migration drops it with its reason
    }
  }
}

/** The older event stream widget's search (`query`), added to `needs`. */
export const addEventStreamNeeds = (needs: Needs, query: string, variables: readonly Variable[]): void => addSearches(needs.events, [{ search: query, groupBy: [], measure: undefined }], variables);

function metricNeed(needs: Needs, metric: string): MetricNeed {
  const need = needs.metrics.get(metric) ?? { values: new Map(), bare: new Set(), groups: new Set(), counted: false, percentile: false };
  needs.metrics.set(metric, need);
  return need;
}

/** What a widget's requests read, added to `needs`; a query this module cannot read is skipped (the comparison reports it). */
export function addNeeds(needs: Needs, requests: unknown, variables: readonly Variable[]): void {
  for (const r of (Array.isArray(requests) ? requests : []) as RequestLike[]) {
    const texts = [...(r.q ? [r.q] : []), ...(r.queries ?? []).filter((q) => q.data_source === 'metrics' && q.query).map((q) => q.query!)];
    for (const text of texts) {
      let terms: MetricTerm[];
      try {
        terms = readQueries(text).flatMap(metricTerms);
      } catch {
        continue;
      }
      for (const t of terms) {
        const need = metricNeed(needs, t.metric);
        collectFilter(t.filter, need, variables);
        for (const g of t.by) need.groups.add(g);
        if (t.methods.some((m) => m.name === 'as_count' || m.name === 'as_rate')) need.counted = true;
        if (percentileLevel(t.space) !== undefined) need.percentile = true;
      }
    }
    addSearches(needs.logs, searchNeeds(r, 'logs'), variables);
    addSearches(needs.events, searchNeeds(r, 'events'), variables);
    addSearches(needs.spans, searchNeeds(r, 'spans'), variables);
  }
}

/** Seconds into each minute the agent's 15 s flushes fall at. */
const OFFSETS = [5, 20, 35, 50];
/** Series per metric, at least. */
const SERIES = 4;

/** FNV-1a of `text`: a stable choice by name. */
export function hash(text: string): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

/** Series i (of `count`) has a key's first named value on 0 and 1, each further one on its own series, another on the last; a split key alternates. */
function valueFor(key: string, need: MetricNeed, i: number, count: number): string {
  const named = need.values.get(key) ?? [];
  if (named.length === 0) return `${key.replace(/[^\w.-]/g, '_')}-${i % 2}`;
  if (i === count - 1) return `${named[0]}-other`;
  return named[Math.max(0, Math.min(i - 1, named.length - 1))]!;
}

export type KnownTypes = ReadonlyMap<string, string>;

/** Series i's points: a gauge's or a count's every 15 s, a distribution's raw values (distribution.ts). */
function pointsOf(kind: SentSeries['kind'], base: number, i: number, window: Window): SentSeries['points'] {
  return Array.from({ length: window.buckets }, (_, m) =>
    OFFSETS.flatMap((o, j) => {
      const ts = window.from / 1000 + m * 60 + o;
      return kind === 'distribution' ? flushValues(base, i, m, j).map((value) => ({ ts, value })) : [{ ts, value: base + 10 * i + (((m * 4 + j) * 7 + i * 3) % 11) }];
    }),
  ).flat();
}

function metricSeries(metric: string, need: MetricNeed, window: Window, types: KnownTypes): SentSeries[] {
  const type = types.get(metric);
  // Datadog has percentiles of distributions only: a metric read by one is a distribution, unless listed as a count or a rate (the query is then the dashboard's slip)
  const distribution = type === 'distribution' || (need.percentile && type !== 'count' && type !== 'rate');
  const kind: SentSeries['kind'] = distribution ? 'distribution' : type === 'count' || (type === undefined && need.counted) ? 'count' : 'gauge';
  const keys = [...new Set([...need.values.keys(), ...need.groups])].filter((k) => k !== 'host');
  const base = 1 + (hash(metric) % 50);
  const count = Math.max(SERIES, ...[...need.values.values()].map((v) => v.length + 2));
  return Array.from({ length: count }, (_, i) => ({
    metric,
    kind,
    host: valueFor('host', need, i, count),
    tags: [...keys.map((k) => `${k}:${valueFor(k, need, i, count)}`), ...(i < count - 1 ? [...need.bare] : []), `gen_series:${i}`],
    points: pointsOf(kind, base, i, window),
  }));
}

const numeric = (text: string): string | number => (/^-?\d+(\.\d+)?$/.test(text) && text.length < 15 ? Number(text) : text);

function setField(log: DatadogLog, field: string, value: string | number | undefined): void {
  // an attribute the intake takes for the log's own field would change the log (its status, its host)
  if (RESERVED.test(field)) return;
  if (field.startsWith('@')) {
    if (value === undefined) delete log.attributes[field.slice(1)];
    else log.attributes[field.slice(1)] = value;
    return;
  }
  if (field === 'service' || field === 'source' || field === 'host' || field === 'message') {
    log[field] = value === undefined ? `no-${field}` : String(value);
    return;
  }
  if (field === 'status') {
    log.status = value === undefined ? 'info' : String(value).toLowerCase();
    return;
  }
  log.tags = log.tags.filter((t) => !t.startsWith(`${field}:`));
  if (value !== undefined) log.tags.push(`${field}:${value}`);
}

function valueMeeting(v: Value, want: boolean): string | number | undefined {
  if (v.kind === 'exists') return want ? 'present' : undefined;
  if (v.kind === 'range') {
    const inside = Number.isFinite(v.low) ? v.low + 1 : Number.isFinite(v.high) ? v.high - 1 : 1;
    const outside = Number.isFinite(v.low) ? v.low - 1 : v.high + 1;
    return want ? inside : outside;
  }
  return want ? numeric(concrete(v.text)) : `not-${concrete(v.text)}`;
}

/** Sets what makes `log` meet (or miss) `search`, taking the `choice`-th branch of each OR. */
function steer(search: Search, log: DatadogLog, want: boolean, choice: number): void {
  switch (search.kind) {
    case 'not':
      steer(search.of, log, !want, choice);
      break;
    case 'and':
      if (want) for (const s of search.of) steer(s, log, true, choice);
      else steer(search.of[0]!, log, false, choice);
      break;
    case 'or':
      if (want) steer(search.of[choice % search.of.length]!, log, true, choice);
      else for (const s of search.of) steer(s, log, false, choice);
      break;
    case 'field':
      setField(log, search.field, valueMeeting(search.value, want));
      break;
    case 'free':
      if (want && search.value.kind === 'text') log.message = `${log.message} ${concrete(search.value.text)}`;
      break;
    default:
      break;
  }
}

/**
 * A copy of `log` whose values of the fields a search names hold the named text with more around
 * it (`shop` → `shop-near`): Datadog's exact match misses it, a search matching text containing
 * the value would not.
 */
function nearMiss(log: DatadogLog, named: ReadonlyMap<string, Value[]>, ts: number): DatadogLog {
  const copy: DatadogLog = { ...log, ts, tags: [...log.tags], attributes: { ...log.attributes } };
  for (const field of named.keys()) {
    if (field === 'status') continue;
    const current = field.startsWith('@') ? copy.attributes[field.slice(1)] : field === 'service' || field === 'source' || field === 'host' ? copy[field] : copy.tags.find((t) => t.startsWith(`${field}:`))?.slice(field.length + 1);
    if (typeof current === 'string' && current !== 'present') setField(copy, field, `${current}-near`);
  }
  return copy;
}

const blankLog = (ts: number): DatadogLog => ({ ts, message: 'generated', status: 'info', service: 'gen-service', source: 'gen-source', host: 'gen-host', tags: [], attributes: {} });

/** Logs (or records searched as logs are: events, spans) that meet `need`'s search in two groups of each facet, and near misses. */
export function logsFor(need: LogNeed, index: number, window: Window): DatadogLog[] {
  let search: Search;
  try {
    search = readSearch(need.search);
  } catch {
    return [];
  }
  const named = fieldsOf(search);
  const out: DatadogLog[] = [];
  const at = (k: number): number => window.from + ((index * 7 + k * 13) % (window.buckets * 60)) * 1000 + 500;
  for (const choice of [0, 1]) {
    for (const group of ['a', 'b']) {
      for (const copy of [0, 1, 2]) {
        const log = blankLog(at(choice * 6 + (group === 'a' ? 0 : 3) + copy));
        steer(search, log, true, choice);
        for (const facet of need.groupBy) if (!named.has(facet)) setField(log, facet, `${facet.replace(/^@/, '')}-${group}`);
        // a measure's facet as written: `@attr` an attribute, a bare name a reserved field or a tag
        if (need.measure) setField(log, need.measure, 10 * (copy + 1) + (group === 'a' ? 1 : 2) + choice);
        out.push(log);
      }
    }
  }
  const miss = blankLog(at(40));
  steer(search, miss, false, 0);
  if (!matches(search, miss)) out.push(miss);
  out.push(nearMiss(out[0]!, named, at(41)));
  return out;
}

/** The alert types an event can have (what the bridge levels: docs/translation.md, Events). */
const ALERT_TYPES = new Set(['error', 'warning', 'info', 'success']);

/**
 * Events steered as logs are, kept to what an event holds: a known alert type (else info, as
 * Datadog takes an unknown one), a title (its message), tags; no attributes.
 */
function eventsFor(need: LogNeed, index: number, window: Window): DatadogLog[] {
  return logsFor({ ...need, search: eventSearchText(need.search), measure: undefined }, index, window).map((log) => {
    const status = log.status === 'ok' ? 'success' : log.status === 'warn' ? 'warning' : log.status;
    // an event's service is its service tag (the bridge files one without under its source type)
    const service = log.tags.find((t) => t.startsWith('service:'))?.slice('service:'.length) ?? '';
    return { ...log, status: ALERT_TYPES.has(status) ? status : 'info', service, attributes: {} };
  });
}

export function generate(needs: Needs, window: Window, types: KnownTypes): Dataset {
  const series = new Map([...needs.metrics].map(([metric, need]) => [metric, metricSeries(metric, need, window, types)]));
  const logs = needs.logs.flatMap((need, i) => logsFor(need, i, window));
  const events = needs.events.flatMap((need, i) => eventsFor(need, i, window));
  return { series, logs, events };
}

/** v2 MetricType COUNT and GAUGE (agent-payload.proto). */
const V2_TYPE = { count: 1, gauge: 3 } as const;
const FLUSH_INTERVAL = 15;

function v2Type(kind: SentSeries['kind']): number {
  if (kind === 'distribution') throw new Error('a distribution is sent as sketches (sendSketches)');
  return V2_TYPE[kind];
}
const SERIES_PER_PAYLOAD = 2_000;
const LOGS_PER_PAYLOAD = 1_000;

export async function sendSeries(intakeUrl: string, apiKey: string, all: readonly SentSeries[]): Promise<void> {
  for (let i = 0; i < all.length; i += SERIES_PER_PAYLOAD) {
    const payload = encodeMetricPayload({
      series: all.slice(i, i + SERIES_PER_PAYLOAD).map((s) => ({
        resources: [{ type: 'host', name: s.host }],
        metric: s.metric,
        tags: s.tags,
        points: s.points.map((p) => ({ value: p.value, timestamp: p.ts })),
        type: v2Type(s.kind),
        interval: s.kind === 'count' ? FLUSH_INTERVAL : 0,
      })),
    });
    const res = await fetch(`${intakeUrl}/api/v2/series`, { method: 'POST', body: await agentZstd(payload), headers: { 'DD-Api-Key': apiKey, ...AGENT_PROTOBUF_HEADERS } });
    if (res.status !== 202) throw new Error(`/api/v2/series: ${res.status} ${await res.text()}`);
  }
}

/** A log's attributes as its JSON message carries them (dotted paths stay flat keys: the bridge reads both alike). */
const messageOf = (log: DatadogLog): string => JSON.stringify({ message: log.message, ...log.attributes });

/** Events as the agent batches them on `/intake/`: grouped under their source type. */
export async function sendEvents(intakeUrl: string, apiKey: string, events: readonly DatadogLog[]): Promise<void> {
  const bySource: Record<string, unknown[]> = {};
  for (const e of events) {
    const batch = bySource[e.source] ?? [];
    batch.push({ msg_title: e.message, msg_text: '', timestamp: e.ts / 1000, alert_type: e.status, host: e.host, tags: e.tags });
    bySource[e.source] = batch;
  }
  const res = await fetch(`${intakeUrl}/intake/`, { method: 'POST', body: JSON.stringify({ apiKey: '', internalHostname: 'gen-host', events: bySource }), headers: { 'Content-Type': 'application/json', 'DD-Api-Key': apiKey } });
  if (res.status !== 202) throw new Error(`/intake/: ${res.status} ${await res.text()}`);
}

export async function sendLogs(intakeUrl: string, apiKey: string, logs: readonly DatadogLog[]): Promise<void> {
  for (let i = 0; i < logs.length; i += LOGS_PER_PAYLOAD) {
    const entries = logs.slice(i, i + LOGS_PER_PAYLOAD).map((l) => ({ message: messageOf(l), status: l.status, timestamp: l.ts, hostname: l.host, service: l.service, ddsource: l.source, ddtags: l.tags.join(',') }));
    const res = await shipEntriesAsAgent(intakeUrl, apiKey, entries);
    if (res.status !== 202 && res.status !== 200) throw new Error(`/api/v2/logs: ${res.status} ${await res.text()}`);
  }
}
