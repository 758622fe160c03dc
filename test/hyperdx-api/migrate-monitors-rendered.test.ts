/**
 * Issue 37, item 1, for monitors: correctness of the migrated alerts checked by running them. The
 * integrations-core monitors (test/fixtures/migrate/corpus/) are migrated; for the metrics, logs
 * and service checks they read, agent-format points, logs and check runs are generated
 * (test/helpers/datadog-semantics/monitor-workload.ts) and sent through the bridge (the built
 * sidecar and our collector) into ClickHouse; each migrated alert is evaluated by HyperDX's own
 * alert checker (./alert-server.js: `processAlert`, which builds the query of the alert's tile or
 * saved search for its interval, runs it, and compares each group's value with the threshold;
 * a multi-window alert once per window it counts) over the window that ends at the end of the
 * data, then over one after it that holds no data; and per group, the value and whether it
 * alerts must equal what the Datadog monitor means over the same data, computed independently
 * (test/helpers/datadog-semantics/monitor.ts: metric, log, event, log formula and service check
 * monitors). An approximated alert is compared against what its notes say it computes
 * (`modesOf`); a note the comparison cannot model leaves the monitor out, counted by reason.
 *
 * A checker error or a mismatch fails the suite. By default a deterministic sample of the
 * monitors is evaluated (those whose path hashes into 1 of SAMPLE_EVERY);
 * `MIGRATE_MONITORS_ALL=1` evaluates every one, `MIGRATE_MONITORS_REPO=integrations-extras` the
 * held-out set. The counts are printed; most translated monitors must be compared, over groups
 * that both alert and do not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DatadogMonitor, readMonitor } from '../../tools/src/migrate/datadog';
import { bundledMetricTypes } from '../../tools/src/migrate/metric-types';
import { translateMonitor } from '../../tools/src/migrate/monitors';
import type { MonitorPlan } from '../../tools/src/migrate/plan';
import { defaultSources, EXP_HISTOGRAM_TABLE } from '../../tools/src/hyperdx/serve';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { GROUP_SEP, NotModelled } from '../helpers/datadog-semantics/evaluate';
import { DATADOG_MONITOR, type MonitorData, type MonitorModes, type MonitorQuery, monitorOutcome, readMonitorQuery } from '../helpers/datadog-semantics/monitor';
import { applyNamedNote } from '../helpers/datadog-semantics/named-notes';
import { type MonitorRead, monitorDataset, sendDataset } from '../helpers/datadog-semantics/monitor-workload';
import { hash } from '../helpers/datadog-semantics/workload';
import { type Renderer, startRenderer } from './renderer';

const { MIGRATE_MONITORS_REPO, MIGRATE_MONITORS_ALL, MIGRATE_MONITORS_FILES } = process.env;
const REPO = MIGRATE_MONITORS_REPO ?? 'integrations-core';
const ALL = MIGRATE_MONITORS_ALL === '1';
/** `MIGRATE_MONITORS_FILES=<regex>`: only the monitors whose path matches (to look into one). */
const ONLY = MIGRATE_MONITORS_FILES ? new RegExp(MIGRATE_MONITORS_FILES) : undefined;
const SAMPLE_EVERY = 2;
/** The share of the translated monitors that must be compared. */
const MIN_SHARE = 0.8;
const DAY_MS = 86_400_000;

const [LOGS, TRACES, METRICS] = defaultSources(EXP_HISTOGRAM_TABLE) as Record<string, unknown>[];
const SOURCES = { metric: METRICS!, log: LOGS!, trace: TRACES! } as const;
const SOURCE_IDS = { metric: String(METRICS!.id), log: String(LOGS!.id), trace: String(TRACES!.id) };
/** Every monitor gets its alert: a notification handle none maps falls back to one webhook. */
const WEBHOOKS = { byHandle: new Map<string, string>(), fallback: 'webhook-under-test' };

const INTERVAL_MINUTES: Record<string, number> = { '1m': 1, '5m': 5, '15m': 15, '30m': 30, '1h': 60, '6h': 360, '12h': 720, '1d': 1440 };

interface Case {
  file: string;
  monitor: DatadogMonitor;
  plan: MonitorPlan;
  query: MonitorQuery;
  modes: MonitorModes;
}

const WINDOW_BECAME = /^evaluation window \S+ became the (\w+) interval/;

/** Each documented approximation and the side of it the alert is compared on; `{}`: it changes no value (messages, channels, options). */
const NOTE_MODES: [RegExp, Partial<MonitorModes>][] = [
  [/^time aggregation \w+\(\w+\): HyperDX reads each gauge series' last point in the interval/, { oneInterval: true }],
  [/^time aggregation \w+\(\w+\) became one [\w/]+ per interval/, { oneInterval: true }],
  [/^in a formula, a query with no value in an interval counts as 0/, { formulaZero: true }],
  [/^HyperDX counts an interval without data as 0/, { noDataIsZero: true }],
  [/\.as_rate\(\) drawn as counts per interval|drawn as counts per HyperDX interval/, { ratesAsCounts: true }],
  [/^the wildcard value .* matches any value containing/, { wildcardContains: true }],
  [/^an empty value \(""\) also matches logs without the attribute|: \(the empty value\) also matches points without the tag/, { missingIsEmpty: true }],
  [/^the hostname tag is read as the host/, { hostnameIsHost: true }],
  [/^a record whose measure is not a number is read as 0/, { notANumberIsZero: true }],
  [/^the empty term .* dropped/, { dropEmptyTerms: true }],
  [/\.rollup\(.*\) dropped/, { ignoreRollup: true, gaugeInterval: 'last' }],
  [/^the range .* is matched as the integers|in a search: its default .* applied|^index\(.*\) dropped/, {}],
  // the workload makes two groups of a facet, fewer than any limit
  [/^the group limit of \d+ of .* dropped/, {}],
  [/^(warning|critical recovery|warning recovery) threshold .* not migrated|^warning after .* checks not migrated/, {}],
  // the workload runs each service check once a minute: consecutive runs are consecutive 1m windows
  [/^\d+ consecutive CRITICAL checks became \d+ consecutive 1m windows/, {}],
  // the suite compares one window, which ends where HyperDX's aligned windows and Datadog's last X agree
  [/^checked once every \w+ over windows aligned to the clock/, {}],
  [/UNKNOWN.* also meets/, { unknownAlerts: true }],
  [/^\{\{|^notification .* not mapped|^tags .* kept in the alert's note|^renotify every|^escalation message dropped|^no-data alert|^evaluation delay|^new (host|group) delay/, {}],
];

/** What a monitor's notes say its alert computes instead of the Datadog monitor; a note without a switch throws NotModelled. */
function modesOf(notes: readonly string[]): MonitorModes {
  const modes: MonitorModes = { ...DATADOG_MONITOR };
  for (const note of notes) {
    const window = WINDOW_BECAME.exec(note);
    if (applyNamedNote(note, modes)) continue;
    if (window) modes.minutes = INTERVAL_MINUTES[window[1]!];
    else {
      const switched = NOTE_MODES.find(([re]) => re.test(note));
      if (!switched) throw new NotModelled(`note: ${note.replace(/"[^"]*"|\$[\w-]+|\d+/g, '…').slice(0, 100)}`);
      Object.assign(modes, switched[1]);
    }
  }
  return modes;
}

/** Monitors compared and, per group, agreements on whether it alerts. */
interface Tally {
  compared: number;
  bothAlert: number;
  neitherAlerts: number;
  /** no data on either side (a filter that kept nothing; a window without data) */
  noData: number;
  /** monitors with groups on both sides of their threshold */
  split: number;
  /** monitors compared on Datadog's own meaning (no note changes their value) */
  exact: number;
}

interface Outcome {
  monitors: number;
  translated: number;
  /** over the generated data */
  data: Tally;
  /** over a window without data */
  empty: Tally;
  skipped: Map<string, number>;
  failures: string[];
}

const tally = (): Tally => ({ compared: 0, bothAlert: 0, neitherAlerts: 0, noData: 0, split: 0, exact: 0 });
const shownTally = (t: Tally): string =>
  `${t.compared} monitors (${t.exact} on Datadog's own meaning, the rest on the approximation their report states; ${t.split} with groups on both sides of the threshold); groups agreeing: both alert ${t.bothAlert}, neither ${t.neitherAlerts}, no data on either side ${t.noData}`;

const count = (m: Map<string, number>, reason: string): void => {
  m.set(reason, (m.get(reason) ?? 0) + 1);
};

function corpusCases(outcome: Outcome): Case[] {
  const corpus = join(__dirname, '..', 'fixtures', 'migrate', 'corpus', REPO, 'monitors');
  const files = readdirSync(corpus, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json') && (ONLY === undefined || ONLY.test(f)))
    .filter((f) => ALL || ONLY !== undefined || hash(f) % SAMPLE_EVERY === 0)
    .sort();
  const cases: Case[] = [];
  files.forEach((file, index) => {
    outcome.monitors++;
    const monitor = readMonitor(JSON.parse(readFileSync(join(corpus, file), 'utf8')));
    const plan = translateMonitor(monitor, file, SOURCE_IDS, WEBHOOKS, index);
    if (plan.outcome === 'skipped' || !plan.alert || !plan.target) return;
    outcome.translated++;
    try {
      cases.push({ file, monitor, plan, query: readMonitorQuery(monitor.type, monitor.query, monitor.options.thresholds?.critical, monitor.options.on_missing_data as string | undefined, monitor.options.variables), modes: modesOf(plan.notes) });
    } catch (err) {
      if (!(err instanceof NotModelled)) throw err;
      count(outcome.skipped, err.message);
    }
  });
  return cases;
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

type Expected = ReturnType<typeof monitorOutcome> extends Map<string, infer E> ? E : never;

interface Checked {
  group: string;
  values: string[];
  /** false: the checker found no row for the window and recorded 0 */
  fromData: boolean;
  value: number | null;
  state: string;
}

const running = useClickHouseStack();
let checker: Renderer<Record<string, unknown>>;
const outcome: Outcome = { monitors: 0, translated: 0, data: tally(), empty: tally(), skipped: new Map(), failures: [] };
let cases: Case[];
let dataset: MonitorData;
/** The end of every window compared: a UTC midnight, which every HyperDX interval divides. */
let end: number;

beforeAll(async () => {
  cases = corpusCases(outcome);
  end = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const reads: MonitorRead[] = cases.map((c) => ({ key: c.file, query: c.query, variables: c.monitor.variables, intervalMinutes: INTERVAL_MINUTES[c.plan.alert!.interval]!, modes: c.modes }));
  dataset = monitorDataset(reads, end, bundledMetricTypes());
  for (const [table, rows] of await sendDataset(running.stack.intakeUrl, 'migrate-monitors-key', dataset)) await running.ch.waitForRows(`SELECT 1 FROM ${table}`, rows, 180_000);
  checker = await startRenderer<Record<string, unknown>>(running.ch.httpUrl, running.ch.credentials.reader, 'alert-server.js', { HYPERDX_LOG_LEVEL: 'silent' });
}, 600_000);

afterAll(async () => {
  await checker?.stop();
});

/** The alert request for the checker: the alert, its tile or saved search, their source; checked at `at` (ms). */
function checkRequest(c: Case, at: number): Record<string, unknown> {
  const { alert, target } = c.plan;
  const rule = { interval: alert!.interval, threshold: alert!.threshold, thresholdType: alert!.thresholdType, groupBy: alert!.groupBy, numConsecutiveWindows: alert!.numConsecutiveWindows };
  const sourceOf = (id: unknown): Record<string, unknown> => (id === SOURCE_IDS.log ? SOURCES.log : id === SOURCE_IDS.trace ? SOURCES.trace : SOURCES.metric);
  // a multi-window alert is checked once a window over the windows it counts, each check reading the histories of those before
  const windows = alert!.numConsecutiveWindows ?? 1;
  const nows = Array.from({ length: windows }, (_, i) => at + 1000 - (windows - 1 - i) * INTERVAL_MINUTES[alert!.interval]! * 60_000);
  if (target!.kind === 'tile') return { alert: rule, tile: target!.tile, source: sourceOf(target!.tile.config?.sourceId), nows };
  const search = target!.search;
  return { alert: rule, savedSearch: { where: search.where, whereLanguage: search.whereLanguage }, source: sourceOf(search.sourceId), nows };
}

const label = (c: Case): string => `${c.file} "${c.monitor.name}" (${c.plan.outcome}; ${c.monitor.query.slice(0, 160)})`;

/** Per group, what differs between the Datadog monitor's values and the checker's; agreements counted in `tally`. */
function differences(expected: ReadonlyMap<string, Expected>, checked: readonly Checked[], tally: Tally): string[] {
  const actual = new Map(checked.map((g) => [g.values.join(GROUP_SEP), g]));
  const diffs: string[] = [];
  for (const group of new Set([...expected.keys(), ...actual.keys()])) {
    const [want, got] = [expected.get(group)?.value, actual.get(group)];
    const wantAlert = expected.get(group)?.alerts === true;
    const gotAlert = got?.state === 'ALERT';
    if (want === undefined && got !== undefined && !got.fromData && !gotAlert) {
      // no data on either side, and neither alerts
      tally.noData++;
      continue;
    }
    if (want === undefined || got === undefined || got.value === null || !close(want, got.value) || wantAlert !== gotAlert) {
      const shown = group === '' ? '(all)' : group.replaceAll(GROUP_SEP, ' | ');
      diffs.push(`group ${shown}: Datadog ${want ?? 'no value'}${want !== undefined ? (wantAlert ? ' (alerts)' : ' (ok)') : ''}, HyperDX ${got?.value ?? 'no value'} (${got?.state ?? 'no group'}${got?.fromData === false ? ', no data' : ''})`);
      continue;
    }
    if (wantAlert) tally.bothAlert++;
    else tally.neitherAlerts++;
  }
  return diffs;
}

/** One monitor checked at `at`: the window that ends there; false when the comparison cannot model it (counted). */
async function compareAt(c: Case, at: number, tally: Tally, what: string): Promise<boolean> {
  let expected: Map<string, Expected>;
  try {
    expected = monitorOutcome(c.query, dataset, at, c.monitor.variables, c.modes);
  } catch (err) {
    if (!(err instanceof NotModelled)) throw err;
    count(outcome.skipped, err.message);
    return false;
  }
  let checked: Checked[];
  try {
    checked = (await checker.render(checkRequest(c, at))).rows as unknown as Checked[];
  } catch (err) {
    outcome.failures.push(`${label(c)} (${what}): HyperDX's checker failed: ${(err as Error).message.slice(0, 400)}`);
    return true;
  }
  tally.compared++;
  if (JSON.stringify(c.modes) === JSON.stringify(DATADOG_MONITOR)) tally.exact++;
  const sides = new Set([...expected.values()].map((v) => v.alerts));
  if (sides.size === 2) tally.split++;
  if (process.env.MIGRATE_MONITORS_DEBUG) process.stdout.write(`${label(c)} (${what})\n${JSON.stringify(c.plan.target)}\n${JSON.stringify(c.plan.alert)}\nexpected ${JSON.stringify([...expected])}\nchecked ${JSON.stringify(checked)}\n`);
  const diffs = differences(expected, checked, tally);
  if (diffs.length > 0) outcome.failures.push(`${label(c)} (${what}):\n    ${diffs.slice(0, 6).join('\n    ')}`);
  return true;
}

/** Each monitor over the data, then over a window without any (after it): no-data behaviour, as the report states it. */
async function compareCase(c: Case): Promise<void> {
  if (await compareAt(c, end, outcome.data, 'over the data')) await compareAt(c, end + 2 * DAY_MS, outcome.empty, 'over no data');
}

it('every sampled migrated alert evaluates, group by group, what its Datadog monitor means over the same data', async () => {
  const inFlight = 4;
  for (let i = 0; i < cases.length; i += inFlight) await Promise.all(cases.slice(i, i + inFlight).map(compareCase));
  const skipped = [...outcome.skipped].sort((a, b) => b[1] - a[1]);
  const notCompared = skipped.reduce((n, [, k]) => n + k, 0);
  process.stdout.write(
    `${REPO}: monitors ${outcome.monitors} ${ALL ? '(all)' : `(sample: 1 in ${SAMPLE_EVERY})`}, translated ${outcome.translated}; evaluated by HyperDX's alert checker, ${outcome.failures.length} differ or fail;\n` +
      `  over the data: ${shownTally(outcome.data)}\n  over a window without data: ${shownTally(outcome.empty)}\nnot compared ${notCompared}:\n` +
      `${skipped.map(([r, n]) => `  ${n}\t${r}`).join('\n')}\n`,
  );
  expect(outcome.failures).toEqual([]);
  // a run that compared little, or only one side of the thresholds, proves little
  expect(outcome.data.compared).toBeGreaterThanOrEqual(MIN_SHARE * outcome.translated);
  expect(outcome.data.bothAlert).toBeGreaterThan(0);
  expect(outcome.data.neitherAlerts).toBeGreaterThan(0);
  expect(outcome.empty.compared).toBe(outcome.data.compared);
}, 1_800_000);
