/**
 * Issue 37, item 1: correctness of the migration checked by running it. The integrations-core
 * dashboards (test/fixtures/migrate/corpus/) are migrated; for the metrics, logs and APM spans
 * their migrated tiles read, agent-format points and logs and tracer-format spans are generated
 * (test/helpers/datadog-semantics/workload.ts, spans.ts) and sent through the bridge (the built
 * sidecar, run with --keep-internal-tags, and our collector) into ClickHouse;
 * each migrated tile is drawn by HyperDX's own code (./render-server.js: the API's tile
 * conversion, common-utils' chart conversions and query renderer) over the last hour; and what
 * it draws must equal what the Datadog widget means over the same points and logs, computed
 * independently (test/helpers/datadog-semantics/: its own reading of Datadog's query and search
 * languages). An approximated tile is compared against what its notes say it draws (`modesOf`):
 * a note the comparison cannot model leaves the tile out of the comparison, counted by reason (it is still drawn: HyperDX must run it).
 *
 * A render error or a mismatch fails the suite. By default a deterministic sample of the tiles
 * is drawn (every tile whose dashboard path and position hash into 1 of SAMPLE_EVERY);
 * `MIGRATE_RENDER_ALL=1` draws every tile (minutes, not for `npm test`). The counts are printed;
 * most tiles must be compared, over data (MIN_SHARE).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPROXIMATED, translateDashboard } from '../../tools/src/migrate/dashboards';
import { readDashboard, type TemplateVariable, type Widget } from '../../tools/src/migrate/datadog';
import { bundledMetricTypes } from '../../tools/src/migrate/metric-types';
import type { DashboardPlan, ItemReport, TileInput } from '../../tools/src/migrate/plan';
import { defaultSources, EXP_HISTOGRAM_TABLE } from '../../tools/src/hyperdx/serve';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { DATADOG, type Dataset, GROUP_SEP, type Grid, type Modes, NotModelled, STEP_MS, type Window } from '../helpers/datadog-semantics/evaluate';
import { type Expected, expectedOf } from '../helpers/datadog-semantics/widget';
import { applyNamedNote } from '../helpers/datadog-semantics/named-notes';
import { sendSketches } from '../helpers/datadog-semantics/distribution';
import { sendSpans, spansFor } from '../helpers/datadog-semantics/spans';
import { addEventStreamNeeds, addNeeds, emptyNeeds, generate, sendEvents, sendLogs, sendSeries } from '../helpers/datadog-semantics/workload';
import { type Rendered, type Renderer, startRenderer } from './renderer';

/** `MIGRATE_RENDER_REPO=integrations-extras`: the held-out set instead (a one-off check, not in `npm test`). */
const REPO = process.env.MIGRATE_RENDER_REPO ?? 'integrations-core';
const CORPUS = join(__dirname, '..', 'fixtures', 'migrate', 'corpus', REPO, 'dashboards');
const KEY = 'migrate-rendered-key';
const ALL = process.env.MIGRATE_RENDER_ALL === '1';
/** `MIGRATE_RENDER_FILES=<regex>`: only the dashboards whose path matches (to look into one). */
const ONLY = process.env.MIGRATE_RENDER_FILES ? new RegExp(process.env.MIGRATE_RENDER_FILES) : undefined;
const SAMPLE_EVERY = 12;
/** The share of the migrated tiles that must be compared, and of those that must draw data (the sample: 917 of 933, all with data). */
const MIN_SHARE = 0.9;
/** Minutes of generated data, ending at the last full minute. */
const DATA_MINUTES = 5;
/** The range every tile is drawn over: the last hour (HyperDX's default), so a value's intervals are minutes. */
const RANGE_MS = 3_600_000;

/** The sources the tiles read: the ones HyperDX's auto-detection makes of the collector's tables (as `stack hyperdx` serves them). */
const [LOGS, TRACES, METRICS] = defaultSources(EXP_HISTOGRAM_TABLE) as Record<string, unknown>[];
const SOURCES = { metric: METRICS!, log: LOGS!, trace: TRACES! } as const;

interface Case {
  file: string;
  index: number;
  widget: Widget['definition'];
  report: ItemReport;
  tile: TileInput;
  variables: TemplateVariable[];
  filters: { type: 'sql'; condition: string }[];
}

function hash(text: string): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

/** The widgets in the order the migration makes tiles of them: a group's widgets in its place. */
const flatWidgets = (widgets: readonly Widget[]): Widget['definition'][] => widgets.flatMap((w) => (w.definition.type === 'group' ? flatWidgets(w.definition.widgets ?? []) : [w.definition]));

function corpusCases(): Case[] {
  const cases: Case[] = [];
  const files = readdirSync(CORPUS, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json') && (ONLY === undefined || ONLY.test(f)))
    .sort();
  for (const file of files) {
    const dashboard = readDashboard(JSON.parse(readFileSync(join(CORPUS, file), 'utf8')));
    const plan: DashboardPlan = translateDashboard(dashboard, file, { metric: String(SOURCES.metric.id), log: String(SOURCES.log.id), trace: String(SOURCES.trace.id) }, undefined, file);
    const widgets = flatWidgets(dashboard.widgets);
    const filters = (plan.body.savedFilterValues ?? []).map((f) => ({ type: 'sql' as const, condition: (f as { condition: string }).condition }));
    plan.widgets.forEach((report, index) => {
      if (report.status !== 'exact' && report.status !== 'approximated') return;
      cases.push({ file, index, widget: widgets[index]!, report, tile: plan.body.tiles[index]!, variables: dashboard.template_variables, filters });
    });
  }
  return cases;
}

/**
 * What a tile's notes say it draws instead of the Datadog widget, as switches of the comparison;
 * a note the comparison has no switch for throws NotModelled (the tile is left out, counted).
 */
function modesOf(notes: readonly string[]): Modes {
  const modes: Modes = { ...DATADOG };
  for (const note of notes) {
    if (applyNamedNote(note, modes)) continue;
    const switched = NOTE_MODES.find(([re]) => re.test(note));
    if (!switched) throw new NotModelled(`note: ${note.replace(/"[^"]*"|\$[\w-]+|\d+/g, '…').slice(0, 100)}`);
    Object.assign(modes, switched[1]);
  }
  return modes;
}

/** Each documented approximation and the side of it the tile is compared on; `{}`: it changes nothing over generated data. */
const NOTE_MODES: [RegExp, Partial<Modes>][] = [
  [/^a gauge's value in each interval is its last point there/, { gaugeInterval: 'last' }],
  [/^value over the window( of arithmetic)?: /, { reduce: 'flat' }],
  [/^top \d+: HyperDX keeps the \d+ series with the highest peak/, { top: 'peak' }],
  [/^top \d+: HyperDX keeps the \d+ largest bars/, { top: 'value' }],
  [/^top \d+ in \w+ order: HyperDX keeps the largest (series|bars) only/, { top: 'all' }],
  [/in a search: its default .* applied/, {}],
  [/\.as_rate\(\) drawn as counts per interval|drawn as counts per HyperDX interval/, { ratesAsCounts: true }],
  [/\.rollup\(.*\) dropped/, { ignoreRollup: true, gaugeInterval: 'last' }],
  [/^in a formula, a query with no value in an interval counts as 0/, { formulaZero: true }],
  [/^the wildcard value .* matches any value containing/, { wildcardContains: true }],
  [/^an empty value \(""\) also matches logs without the attribute|: \(the empty value\) also matches points without the tag/, { missingIsEmpty: true }],
  [/^split by .*: a series with several .* values is drawn in the group of its first/, {}],
  [/^the hostname tag is read as the host/, { hostnameIsHost: true }],
  // the generated attributes are integers, which the integers of the range match as Datadog's range does
  [/^the range .* is matched as the integers/, {}],
  [/^an event's success and info are one level in the bridge/, { eventStatusFold: true }],
  [/^an event without a service tag is filed under its source type/, { eventServiceIsSource: true }],
  [/^a record whose measure is not a number is read as 0/, { notANumberIsZero: true }],
  [/^the empty term .* dropped/, { dropEmptyTerms: true }],
  [/rollup of .* dropped: HyperDX picks the interval/, {}],
  [/\.weighted\(\) dropped/, {}],
  [/\.fill\(.*\) drawn with empty intervals as 0/, {}],
  [/group-by dropped: a HyperDX number tile shows one value/, { dropGroups: true }],
  // what it is compared on is its own (widget.ts, distributionQuantiles)
  [/^distribution drawn as a table of its p50, p90, p95 and p99/, {}],
  [/^retained_by:\S+ dropped: Datadog's backend marks the spans its retention filters index/, { dropRetainedBy: true }],
  // the bridge runs here with --keep-internal-tags (SIDECAR_ENV): the search is compared on Datadog's side
  [/^@_top_level reads the tracers' _dd.top_level, which the bridge writes only when run with --keep-internal-tags/, {}],
  [/toplist of several queries drawn as a table|geomap drawn as a table|drawn as lines: HyperDX heatmaps|drawn as a pie, one slice per combination/, {}],
];

const isNumericType = (type: string): boolean => /Int|Float|Decimal/.test(type);
const BUCKET = '__hdx_time_bucket';
/** ClickHouse's DateTime as the client returns it (`2026-01-02 03:04:00`, UTC), or ISO. */
const bucketMs = (v: unknown): number => {
  const text = String(v);
  return Date.parse(/Z$|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
};

/** A group column's value: a histogram query's group-by is one array column of the group-by's values (common-utils' histogram.ts). */
const groupValue = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(GROUP_SEP) : String(v ?? ''));

/** What HyperDX drew, as grids: one per value column (formula or select), by group and interval. */
function drawnGrids(r: Rendered, perInterval: boolean): Grid[] {
  const values = r.meta.filter((m) => m.name !== BUCKET && isNumericType(m.type));
  const groups = r.meta.filter((m) => m.name !== BUCKET && !isNumericType(m.type));
  return values.map((col) => {
    const grid: Grid = new Map();
    for (const row of r.rows) {
      const v = row[col.name];
      if (v === null || v === undefined) continue;
      const group = groups.map((g) => groupValue(row[g.name])).join(GROUP_SEP);
      const at = perInterval ? bucketMs(row[BUCKET]) : 0;
      const cells = grid.get(group) ?? new Map<number, number>();
      grid.set(group, cells);
      cells.set(at, Number(v));
    }
    return grid;
  });
}

/** Equal up to float noise, or up to `tolerance` (relative) where the widget's meaning is approximate itself (a percentile of a sketch). */
const close = (a: number, b: number, tolerance = 1e-6): boolean => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * The first few cells that differ, for the failure message; [] when the grids agree. 0 and no value
 * are one on this scale: a line chart draws an empty interval as 0, and a value tile a count or
 * sum over no rows (or a query a group lacks, beside another) as 0.
 */
function differences(expected: Grid[], actual: Grid[], tolerance?: number): string[] {
  if (expected.length !== actual.length) return [`${expected.length} series expected, ${actual.length} drawn`];
  const out: string[] = [];
  expected.forEach((exp, i) => {
    const act = actual[i]!;
    for (const group of new Set([...exp.keys(), ...act.keys()])) {
      const [e, a] = [exp.get(group) ?? new Map<number, number>(), act.get(group) ?? new Map<number, number>()];
      for (const at of new Set([...e.keys(), ...a.keys()])) {
        const [x, y] = [e.get(at), a.get(at)];
        const same = x !== undefined && y !== undefined ? close(x, y, tolerance) : (x ?? y) === 0;
        if (!same) out.push(`series ${i} group "${group.replaceAll(GROUP_SEP, ' | ')}" at ${at === 0 ? 'window' : new Date(at).toISOString().slice(11, 16)}: expected ${x ?? 'nothing'}, drawn ${y ?? 'nothing'}`);
      }
    }
  });
  return out.slice(0, 6);
}

const nonEmpty = (grids: readonly Grid[]): boolean => grids.some((g) => [...g.values()].some((row) => row.size > 0));

interface Outcome {
  compared: number;
  withData: number;
  /** of those, the tiles over the trace source (APM span queries) */
  spans: { compared: number; withData: number; differ: number };
  skipped: Map<string, number>;
  failures: string[];
}

/** Spans' `_dd.top_level` written, which migrated span searches on `@_top_level` read (their note says so). */
const SIDECAR_ENV = { DD_BRIDGE_KEEP_INTERNAL_TAGS: 'true' };
const running = useClickHouseStack({ sidecarEnv: SIDECAR_ENV });
let renderer: Renderer;
let cases: Case[];
let dataset: Dataset;
let window: Window;

beforeAll(async () => {
  const all = corpusCases();
  cases = ALL ? all : all.filter((c) => hash(`${c.file}#${c.index}`) % SAMPLE_EVERY === 0);
  const lastMinute = Math.floor(Date.now() / STEP_MS) * STEP_MS - STEP_MS;
  window = { from: lastMinute - (DATA_MINUTES - 1) * STEP_MS, buckets: DATA_MINUTES };
  const needs = emptyNeeds();
  for (const c of cases) {
    addNeeds(needs, c.widget.requests, c.variables);
    if (c.widget.type === 'event_stream') addEventStreamNeeds(needs, String(c.widget.query ?? ''), c.variables);
  }
  dataset = { ...generate(needs, window, bundledMetricTypes()), spans: spansFor(needs.spans, window, needs.logs.length) };
  const sent = [...dataset.series.values()].flat();
  const series = sent.filter((s) => s.kind !== 'distribution');
  await sendSeries(running.stack.intakeUrl, KEY, series);
  const sketchPoints = await sendSketches(
    running.stack.intakeUrl,
    KEY,
    sent.filter((s) => s.kind === 'distribution'),
  );
  await sendLogs(running.stack.intakeUrl, KEY, dataset.logs);
  if (dataset.events.length > 0) await sendEvents(running.stack.intakeUrl, KEY, dataset.events);
  await sendSpans(running.stack.intakeUrl, KEY, dataset.spans ?? []);
  const points = (kind: string): number => series.filter((s) => s.kind === kind).reduce((n, s) => n + s.points.length, 0);
  await running.ch.waitForRows('SELECT 1 FROM otel_metrics_gauge', points('gauge'), 180_000);
  await running.ch.waitForRows('SELECT 1 FROM otel_metrics_sum', points('count'), 180_000);
  await running.ch.waitForRows(`SELECT 1 FROM ${EXP_HISTOGRAM_TABLE}`, sketchPoints, 180_000);
  await running.ch.waitForRows('SELECT 1 FROM otel_logs', dataset.logs.length + dataset.events.length, 180_000);
  await running.ch.waitForRows('SELECT 1 FROM otel_traces', dataset.spans?.length ?? 0, 180_000);
  renderer = await startRenderer(running.ch.httpUrl, running.ch.credentials.reader);
}, 600_000);

afterAll(async () => {
  await renderer?.stop();
});

const VALUE_DISPLAYS = new Set(['number', 'table', 'bar', 'pie', 'search']);

async function compareCase(c: Case, outcome: Outcome): Promise<void> {
  const display = String(c.tile.config?.displayType);
  let expected: Expected | undefined;
  try {
    expected = expectedOf(c.widget, c.variables, dataset, window, modesOf(c.report.notes), display);
  } catch (err) {
    const reason = err instanceof NotModelled ? err.message : `the comparison cannot read the widget: ${(err as Error).message.slice(0, 60)}`;
    outcome.skipped.set(reason, (outcome.skipped.get(reason) ?? 0) + 1);
  }
  const source = c.tile.config?.sourceId === SOURCES.log.id ? SOURCES.log : c.tile.config?.sourceId === SOURCES.trace.id ? SOURCES.trace : SOURCES.metric;
  const end = window.from + window.buckets * STEP_MS;
  const label = `${c.file} #${c.index} "${c.report.name}" (${display}${c.report.status === 'approximated' ? ` ${APPROXIMATED}` : ''})`;
  let drawn: Grid[];
  try {
    // a tile left out of the comparison is drawn too: HyperDX must still run it
    const rendered = await renderer.render({ tile: c.tile as unknown as Record<string, unknown>, source, dateRange: [end - RANGE_MS, end], granularity: '1 minute', filters: source === SOURCES.metric ? c.filters : [] });
    if (expected === undefined) return;
    drawn = drawnGrids(rendered, !VALUE_DISPLAYS.has(display));
    if (process.env.MIGRATE_RENDER_DEBUG) process.stdout.write(`${label}\n${JSON.stringify(c.tile.config)}\n${JSON.stringify(rendered).slice(0, 1500)}\n`);
  } catch (err) {
    outcome.failures.push(`${label}: HyperDX failed: ${(err as Error).message.slice(0, process.env.MIGRATE_RENDER_DEBUG ? 5000 : 300)}${process.env.MIGRATE_RENDER_DEBUG ? `\n${JSON.stringify(c.tile.config)}` : ''}`);
    return;
  }
  outcome.compared++;
  if (nonEmpty(expected.series)) outcome.withData++;
  const diff = differences(expected.series, drawn, expected.tolerance);
  if (source === SOURCES.trace) countSpanTile(outcome, nonEmpty(expected.series), diff.length > 0);
  if (diff.length > 0) outcome.failures.push(`${label}:\n    ${diff.join('\n    ')}`);
}

function countSpanTile(outcome: Outcome, withData: boolean, differs: boolean): void {
  outcome.spans.compared++;
  if (withData) outcome.spans.withData++;
  if (differs) outcome.spans.differ++;
}

it('every sampled migrated tile draws what its Datadog widget means over the same data', async () => {
  const outcome: Outcome = { compared: 0, withData: 0, spans: { compared: 0, withData: 0, differ: 0 }, skipped: new Map(), failures: [] };
  const inFlight = 4;
  for (let i = 0; i < cases.length; i += inFlight) await Promise.all(cases.slice(i, i + inFlight).map((c) => compareCase(c, outcome)));
  const skipped = [...outcome.skipped].sort((a, b) => b[1] - a[1]);
  const notCompared = skipped.reduce((n, [, k]) => n + k, 0);
  process.stdout.write(
    `${REPO}: migrated tiles: ${cases.length} ${ALL ? '(all)' : `(sample: 1 in ${SAMPLE_EVERY})`}; every one drawn by HyperDX, compared ${outcome.compared} (${outcome.withData} with data), ${outcome.failures.length} differ or fail (span tiles: ${outcome.spans.compared} compared, ${outcome.spans.withData} with data, ${outcome.spans.differ} differ); not compared (drawn only) ${notCompared}:\n` +
      `${skipped.map(([r, n]) => `  ${n}\t${r}`).join('\n')}\n`,
  );
  expect(outcome.failures).toEqual([]);
  // a run that compared little proves little: most tiles are compared, and over data
  expect(outcome.compared).toBeGreaterThanOrEqual(MIN_SHARE * cases.length);
  expect(outcome.withData).toBeGreaterThanOrEqual(MIN_SHARE * outcome.compared);
}, 1_800_000);
