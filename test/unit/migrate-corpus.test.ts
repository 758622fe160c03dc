/**
 * Every dashboard and monitor of DataDog/integrations-core and, held out, of
 * DataDog/integrations-extras (test/fixtures/migrate/corpus/): each translates without an error,
 * each body is valid for the HyperDX OpenAPI document, nothing is approximated without saying how
 * (on the tile's title and in the report) or dropped without saying why, and the report's counts
 * are pinned, so a change that moves a widget between exact, approximated and dropped shows here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPROXIMATED, translateDashboard } from '../../tools/src/migrate/dashboards';
import { readDashboard, readMonitor } from '../../tools/src/migrate/datadog';
import { translateMonitor } from '../../tools/src/migrate/monitors';
import type { DashboardPlan, MonitorPlan } from '../../tools/src/migrate/plan';
import { type ReportTotals, totalsOf } from '../../tools/src/migrate/report';
import { loadDocument, SchemaValidator } from '../../tools/src/stack-api/openapi';

const CORPUS = join(__dirname, '..', 'fixtures', 'migrate', 'corpus');
const SOURCES = { metric: '65f5e4a3b9e77c001a333333', log: '65f5e4a3b9e77c001a111111', trace: '65f5e4a3b9e77c001a222222' };
const WEBHOOKS = { byHandle: new Map<string, string>(), fallback: '65f5e4a3b9e77c001a789099' };

const doc = loadDocument();
const validator = new SchemaValidator(doc);

function exportsOf(repo: string, kind: 'dashboards' | 'monitors'): { file: string; raw: unknown }[] {
  const dir = join(CORPUS, repo, kind);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ file: `${repo}/${kind}/${f}`, raw: JSON.parse(readFileSync(join(dir, f), 'utf8')) }));
}

interface Corpus {
  dashboards: DashboardPlan[];
  monitors: MonitorPlan[];
}

const translate = (repo: string): Corpus => ({
  dashboards: exportsOf(repo, 'dashboards').map(({ file, raw }) => translateDashboard(readDashboard(raw), file, SOURCES, undefined, file)),
  monitors: exportsOf(repo, 'monitors').map(({ file, raw }, i) => translateMonitor(readMonitor(raw), file, SOURCES, WEBHOOKS, i, undefined, file)),
});

type Select = { aggFn: string; metricType?: string; where?: string; valueExpression?: string };
const selectsOf = (config: Record<string, unknown> | undefined): Select[] => (Array.isArray(config?.select) ? (config.select as Select[]) : []);

/** What must hold of every translated dashboard, whatever its counts. */
function checkDashboard(plan: DashboardPlan): string[] {
  const problems: string[] = [];
  const check = validator.validate(doc.components.schemas.CreateDashboardRequest!, plan.body, 'body');
  if (!check.ok) problems.push(`invalid body: ${check.errors}`);
  const tiles = plan.body.tiles.filter((t) => t.name !== 'Migrated from Datadog');
  if (tiles.length !== plan.widgets.length) problems.push(`${tiles.length} tiles for ${plan.widgets.length} widgets`);
  plan.widgets.forEach((w, i) => {
    const tile = tiles[i];
    if ((w.status === 'approximated') !== (tile?.name.endsWith(APPROXIMATED) ?? false)) problems.push(`${w.name}: ${w.status} but titled "${tile?.name}"`);
    if ((w.status === 'approximated' || w.status === 'dropped') && w.notes.length === 0) problems.push(`${w.name}: ${w.status} without saying how or why`);
    if (w.status === 'exact' && w.notes.length > 0) problems.push(`${w.name}: exact with notes`);
  });
  for (const s of tiles.flatMap((t) => selectsOf(t.config as Record<string, unknown>))) {
    // a template variable left in a search would match its own text
    if (/(^|[\s:("])\$[A-Za-z_]/.test(s.where ?? '')) problems.push(`a variable left in "${s.where}"`);
    // HyperDX computes quantiles and counts of histograms, nothing else
    if ((s.metricType === 'histogram' || s.metricType === 'exponential histogram') && !['quantile', 'count'].includes(s.aggFn)) problems.push(`${s.aggFn} of a ${s.metricType}`);
  }
  return problems;
}

function checkMonitor(plan: MonitorPlan): string[] {
  if (plan.target === undefined) return plan.notes.length > 0 ? [] : ['dropped without a reason'];
  const problems: string[] = [];
  const body = plan.target.kind === 'tile' ? { name: 'monitors', tiles: [plan.target.tile] } : plan.target.search;
  const check = validator.validate(doc.components.schemas[plan.target.kind === 'tile' ? 'CreateDashboardRequest' : 'SavedSearchInput']!, body, 'body');
  if (!check.ok) problems.push(`invalid target: ${check.errors}`);
  const ids = plan.target.kind === 'tile' ? { dashboardId: '65f5e4a3b9e77c001a567890', tileId: '65f5e4a3b9e77c001a901234' } : { savedSearchId: '65f5e4a3b9e77c001a345678' };
  const alert = validator.validate(doc.components.schemas.CreateAlertRequest!, { ...plan.alert, ...ids }, 'body');
  if (!alert.ok) problems.push(`invalid alert: ${alert.errors}`);
  // HyperDX reads any @word left in a message as a channel mention
  if (/(^|\s)@[\w.-]/.test(plan.alert?.message ?? '')) problems.push(`a handle left in "${plan.alert?.message}"`);
  if (/\{\{\s*[#^/]?\s*is_(alert|warning|recovery|no_data)/.test(plan.alert?.message ?? '')) problems.push('a Datadog state block left in the message');
  return problems;
}

const percent = (t: ReportTotals['translated']): number => Math.round((1000 * (t.exact + t.approximated)) / (t.exact + t.approximated + t.dropped)) / 10;

describe.each([
  // repository, dashboards, monitors, then the report's totals: data widgets, text widgets, monitors
  ['integrations-core', 576, 379, { exact: 1065, approximated: 10345, dropped: 1657 }, 2163, { exact: 0, approximated: 305, dropped: 74 }],
  ['integrations-extras', 213, 46, { exact: 460, approximated: 2245, dropped: 395 }, 801, { exact: 0, approximated: 32, dropped: 14 }],
] as const)('%s', (repo, dashboards, monitors, widgetTotals, textWidgets, monitorTotals) => {
  const corpus = translate(repo);

  it('every export translates', () => {
    expect([corpus.dashboards.length, corpus.monitors.length]).toEqual([dashboards, monitors]);
  });

  it('every dashboard is valid, and each approximation or drop is said', () => {
    const problems = corpus.dashboards.flatMap((p) => checkDashboard(p).map((m) => `${p.file}: ${m}`));
    expect(problems).toEqual([]);
  });

  it('every monitor is valid or dropped with its reason; no handle or state block left in a message', () => {
    const problems = corpus.monitors.flatMap((p) => checkMonitor(p).map((m) => `${p.file}: ${m}`));
    expect(problems).toEqual([]);
  });

  it("the report's counts", () => {
    const widgets = totalsOf(corpus.dashboards);
    const monitorCounts = totalsOf(corpus.monitors);
    expect({ widgets: widgets.translated, text: widgets.text, monitors: monitorCounts.translated }).toEqual({ widgets: widgetTotals, text: textWidgets, monitors: monitorTotals });
    process.stdout.write(`${repo}: data widgets exact or approximated-and-stated ${percent(widgets.translated)} %, monitors ${percent(monitorCounts.translated)} %\n`);
  });
});
