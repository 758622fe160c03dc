/**
 * Goldens over real Datadog exports (test/fixtures/migrate/, from DataDog/integrations-core): each
 * input beside its expected translation under test/fixtures/migrate/expected/. UPDATE_GOLDEN=1
 * rewrites the expected files; review the diff before committing it. Every body is also checked
 * against the published HyperDX OpenAPI document the stack-api client loads, and the translations
 * are checked for what must hold whatever the golden says: Datadog's metric names kept, every
 * original query kept in the dashboard, nothing dropped without a note.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { translateDashboard } from '../../tools/src/migrate/dashboards';
import { readDashboard, readMonitor } from '../../tools/src/migrate/datadog';
import { metricQueriesOf, parseMetricQueries } from '../../tools/src/migrate/metric-query';
import { translateMonitor } from '../../tools/src/migrate/monitors';
import type { DashboardPlan, MonitorPlan } from '../../tools/src/migrate/plan';
import { loadDocument, SchemaValidator } from '../../tools/src/stack-api/openapi';

const DIR = join(__dirname, '..', 'fixtures', 'migrate');
const SOURCES = { metric: '65f5e4a3b9e77c001a333333', log: '65f5e4a3b9e77c001a111111' };
const WEBHOOKS = { byHandle: new Map([['slack-yourteam-alerts', '65f5e4a3b9e77c001a789012']]), fallback: '65f5e4a3b9e77c001a789099' };

const doc = loadDocument();
const validator = new SchemaValidator(doc);
const schemaErrors = (name: string, value: unknown): string | undefined => {
  const check = validator.validate(doc.components.schemas[name]!, value, 'body');
  return check.ok ? undefined : check.errors;
};

const files = (kind: string): string[] =>
  readdirSync(join(DIR, kind))
    .filter((f) => f.endsWith('.json'))
    .sort();
const read = (kind: string, file: string): unknown => JSON.parse(readFileSync(join(DIR, kind, file), 'utf8'));

function golden(kind: string, file: string, actual: unknown): unknown {
  const path = join(DIR, 'expected', kind, file);
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN) {
    mkdirSync(join(DIR, 'expected', kind), { recursive: true });
    writeFileSync(path, text);
  }
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

const DASHBOARDS = files('dashboards');
const MONITORS = files('monitors');

it('has a dozen real dashboards and a dozen real monitors', () => {
  expect(DASHBOARDS.length).toBeGreaterThanOrEqual(12);
  expect(MONITORS.length).toBeGreaterThanOrEqual(12);
});

describe.each(DASHBOARDS)('dashboard %s', (file) => {
  const raw = read('dashboards', file) as { widgets: unknown[] };
  const plan: DashboardPlan = translateDashboard(readDashboard(raw), `dashboards/${file}`, SOURCES);

  it('translates to the golden plan', () => {
    expect(plan).toEqual(golden('dashboards', file, plan));
  });

  it('is a valid CreateDashboardRequest', () => {
    expect(schemaErrors('CreateDashboardRequest', plan.body)).toBeUndefined();
  });

  it("keeps Datadog's metric names", () => {
    const text = JSON.stringify(raw);
    const selects = plan.body.tiles.flatMap((t) => (Array.isArray(t.config?.select) ? (t.config.select as { metricName?: string }[]) : []));
    const drawn = selects.map((s) => s.metricName).filter((n) => n !== undefined);
    expect(drawn.length).toBeGreaterThan(0);
    for (const name of drawn) expect(text).toContain(name);
  });

  it('keeps every original query in the "Migrated from Datadog" tile', () => {
    const notes = plan.body.tiles.find((t) => t.name === 'Migrated from Datadog')?.config?.markdown as string;
    const queries = [...JSON.stringify(raw).matchAll(/"(?:q|query)":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
    for (const q of queries) expect(notes).toContain(q.replace(/`/g, "'"));
  });

  it('reports every widget it could not draw', () => {
    const placeholders = plan.body.tiles.filter((t) => String(t.config?.markdown ?? '').startsWith('**Not migrated**'));
    for (const tile of placeholders) expect(plan.notes.some((n) => n.startsWith(`${tile.name}:`))).toBe(true);
    expect(plan.outcome).toBe(plan.notes.length > 0 ? 'partial' : 'full');
  });
});

describe.each(MONITORS)('monitor %s', (file) => {
  const plan: MonitorPlan = translateMonitor(readMonitor(read('monitors', file)), `monitors/${file}`, SOURCES, WEBHOOKS, MONITORS.indexOf(file));

  it('translates to the golden plan', () => {
    expect(plan).toEqual(golden('monitors', file, plan));
  });

  it('is valid for the OpenAPI document, or skipped with a reason', () => {
    if (plan.target === undefined) {
      expect(plan.outcome).toBe('skipped');
      expect(plan.notes.length).toBeGreaterThan(0);
      return;
    }
    if (plan.target.kind === 'tile') expect(schemaErrors('CreateDashboardRequest', { name: 'monitors', tiles: [plan.target.tile] })).toBeUndefined();
    else expect(schemaErrors('SavedSearchInput', plan.target.search)).toBeUndefined();
    const ids = plan.target.kind === 'tile' ? { dashboardId: '65f5e4a3b9e77c001a567890', tileId: '65f5e4a3b9e77c001a901234' } : { savedSearchId: '65f5e4a3b9e77c001a345678' };
    expect(schemaErrors('CreateAlertRequest', { ...plan.alert, ...ids })).toBeUndefined();
  });
});

it('the metric monitors keep their metric names too', () => {
  let checked = 0;
  for (const file of MONITORS) {
    const monitor = readMonitor(read('monitors', file));
    const plan = translateMonitor(monitor, file, SOURCES, WEBHOOKS, 0);
    if (plan.target?.kind !== 'tile' || monitor.type !== 'query alert') continue;
    const expr = monitor.query.replace(/^\w+\(\w+\):/, '').replace(/\s*(>=|<=|>|<|==|!=)\s*[-\d.]+\s*(by\s*\{[^}]*\})?\s*$/, '');
    const names = parseMetricQueries(expr)
      .flatMap(metricQueriesOf)
      .map((q) => q.metric);
    const selects = (plan.target.tile.config?.select ?? []) as { metricName: string }[];
    expect(selects.map((s) => s.metricName)).toEqual(names);
    checked++;
  }
  expect(checked).toBeGreaterThanOrEqual(8);
});
