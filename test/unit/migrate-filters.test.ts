/**
 * Datadog template variables → HyperDX dashboard filters (tools/src/migrate/filters.ts): over the
 * real integrations-core exports of test/fixtures/migrate/, and hand-made variables for the
 * cases those lack (several defaults, available values, a wildcard default). Each filter reads the
 * column resource promotion writes the tag to, and the `$var` terms leave the queries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tagColumn } from '../../tools/src/migrate/attributes';
import { translateDashboard } from '../../tools/src/migrate/dashboards';
import { readDashboard } from '../../tools/src/migrate/datadog';
import type { DashboardPlan } from '../../tools/src/migrate/plan';

const SOURCES = { metric: 'metrics-1', log: 'logs-1' };
const fixture = (file: string): DashboardPlan => translateDashboard(readDashboard(JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'migrate', 'dashboards', file), 'utf8'))), file, SOURCES);

const selectsOf = (plan: DashboardPlan): { where: string }[] => plan.body.tiles.flatMap((t) => (Array.isArray(t.config?.select) ? (t.config.select as { where: string }[]) : []));

describe('real dashboards', () => {
  it('lighttpd: $webserver (prefix host) filters the host column every metric tile reads, and leaves the queries', () => {
    const plan = fixture('lighttpd.json');
    expect(plan.body.filters).toEqual([{ type: 'QUERY_EXPRESSION', name: 'webserver', expression: "ResourceAttributes['host.name']", sourceId: 'metrics-1', sourceMetricType: 'gauge', appliesToSourceIds: ['metrics-1'] }]);
    expect(tagColumn('metrics', 'host')).toEqual({ map: 'ResourceAttributes', key: 'host.name' });
    expect(selectsOf(plan).some((s) => s.where.includes('$'))).toBe(false);
    // its default is `*`: nothing preselected
    expect(plan.body.savedFilterValues).toBeUndefined();
  });

  it('iis: !$exclude_site with default "total" is saved as an exclusion, and said to differ on selection', () => {
    const plan = fixture('iis.json');
    expect(plan.body.filters?.map((f) => [f.name, f.expression])).toEqual([['exclude_site', "Attributes['site']"]]);
    expect(plan.body.savedFilterValues).toEqual([{ type: 'sql', condition: "Attributes['site'] NOT IN ('total')" }]);
    expect(plan.notes).toContain('template variable $exclude_site is used as !$exclude_site: its default is saved as an exclusion; a value picked in the HyperDX drop-down is included instead');
    // $scope has no tag key: no filter, and the item says so
    expect(plan.notes.some((n) => n.startsWith('template variable $scope has no tag key'))).toBe(true);
  });

  it('kafka: a variable no migrated query uses gets no filter; tiles that did not use a filter are named', () => {
    const plan = fixture('kafka-kraft-excerpt.json');
    expect(plan.body.filters?.map((f) => f.name)).toEqual(['env', 'topic']);
    expect(plan.notes).toContain('template variable $consumer_group is used by no migrated query: no HyperDX filter');
    expect(plan.notes).toContain('filter "env" also applies to tiles whose Datadog query did not use $env: Offline Partitions');
  });

  it('postgres DBM: both variables become filters; what is said is only the guessed type of its internal metrics', () => {
    const plan = fixture('postgres-dbm-query-metrics.json');
    expect(plan.body.filters?.map((f) => f.expression)).toEqual(["Attributes['database_instance']", "Attributes['cluster_name']"]);
    expect(plan.notes.filter((n) => !n.includes('its type is not known'))).toEqual([]);
  });
});

describe('variables the fixtures lack', () => {
  const dashboard = (variable: Record<string, unknown>): DashboardPlan =>
    translateDashboard(
      readDashboard({
        title: 'd',
        layout_type: 'ordered',
        template_variables: [variable],
        widgets: [{ definition: { type: 'timeseries', title: 'Requests', requests: [{ q: 'sum:nginx.requests{$env} by {host}' }] } }],
      }),
      'd.json',
      SOURCES,
    );

  it('several defaults are all preselected, available values scope the drop-down', () => {
    const plan = dashboard({ name: 'env', prefix: 'env', defaults: ['prod', "o'hare"], available_values: ['prod', 'staging', "o'hare"] });
    const expression = "ResourceAttributes['deployment.environment.name']";
    expect(plan.body.filters).toEqual([expect.objectContaining({ expression, where: `${expression} IN ('prod', 'staging', 'o\\'hare')`, whereLanguage: 'sql' })]);
    expect(plan.body.savedFilterValues).toEqual([{ type: 'sql', condition: `${expression} IN ('prod', 'o\\'hare')` }]);
    expect(plan.notes.filter((n) => !n.includes('its type is not known'))).toEqual([]);
  });

  it('a wildcard default is not preselected, and the item says why', () => {
    const plan = dashboard({ name: 'env', prefix: 'env', default: 'prod-*' });
    expect(plan.body.savedFilterValues).toBeUndefined();
    expect(plan.notes).toEqual([expect.stringContaining('nginx.requests: its type is not known'), 'template variable $env: default prod-* not preselected (a HyperDX filter selects exact values)']);
  });

  it('an undefined variable in a query is reported, not guessed', () => {
    const plan = translateDashboard(readDashboard({ title: 'd', layout_type: 'ordered', widgets: [{ definition: { type: 'timeseries', title: 'T', requests: [{ q: 'sum:x{$nope}' }] } }] }), 'd.json', SOURCES);
    expect(plan.notes).toEqual(['T: template variable $nope is not defined by the dashboard']);
  });
});
