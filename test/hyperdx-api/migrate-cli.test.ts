/**
 * `dd-otlp-bridge migrate dashboards|monitors …` against the real HyperDX API server (./server.ts:
 * the shared HyperDX snapshot on FerretDB), with the real integrations-core exports of
 * test/fixtures/migrate/: migrate, read back what the server stored, re-run (updates, nothing
 * duplicated, the server's tile ids kept and the alerts still on them), delete. The sources are
 * found by the CLI itself (one Metrics, one Logs source on the instance); the rate limit (100
 * requests a minute per key) is the client's to wait out.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { assertCliBuilt, type Run, runTools } from '../helpers/stack-cli';
import { type Created, seededApiForSuite } from './server';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'migrate');
const DASHBOARDS = readdirSync(join(FIXTURES, 'dashboards')).filter((f) => f.endsWith('.json')).length;
const MONITORS = readdirSync(join(FIXTURES, 'monitors')).filter((f) => f.endsWith('.json')).length;
/** The two anomaly monitors; the rest become a tile (or saved search) and an alert. */
const ALERTS = MONITORS - 2;

const server = seededApiForSuite();

// every dashboard is checked (dashboards/validate) before it is saved: a run may wait out the rate limit, a minute at most
jest.setTimeout(150_000);

const migrate = (args: string[]): Promise<Run> => runTools(['migrate', ...args], { HYPERDX_API_URL: server.api.baseUrl, HYPERDX_PERSONAL_API_KEY: server.api.apiKey });
const monitorArgs = (): string[] => ['monitors', join(FIXTURES, 'monitors'), '--webhook', `slack-yourteam-alerts=${server.webhookId}`, '--default-webhook', server.webhookId];

async function list(resource: 'dashboards' | 'alerts' | 'saved-searches'): Promise<Created[]> {
  const res = await fetch(`${server.api.baseUrl}/api/v2/${resource}`, { headers: { authorization: `Bearer ${server.api.apiKey}` } });
  if (res.status !== 200) throw new Error(`GET ${resource}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: Created[] }).data;
}

const expectDone = (run: Run): void => {
  expect({ status: run.status, err: run.err }).toEqual({ status: 0, err: expect.not.stringContaining('failed (') });
  expect(run.err + run.out).not.toContain(server.api.apiKey);
};

beforeAll(assertCliBuilt);

describe('dashboards', () => {
  let tileIds: Map<string, unknown[]>;

  it('are created on the server, tiles over its Metrics and Logs sources', async () => {
    const run = await migrate(['dashboards', join(FIXTURES, 'dashboards')]);
    expectDone(run);
    expect(run.err).toContain(`${DASHBOARDS} items: ${DASHBOARDS} created, 0 updated, 0 unchanged`);
    const stored = await list('dashboards');
    expect(stored).toHaveLength(DASHBOARDS);
    const used = new Set(stored.flatMap((d) => (d.tiles as Created[]).map((t) => (t.config as { sourceId?: string }).sourceId).filter(Boolean)));
    expect([...used].sort()).toEqual([server.sourceIds.get('65f5e4a3b9e77c001a111111'), server.sourceIds.get('65f5e4a3b9e77c001a333333')].sort());
    tileIds = new Map(stored.map((d) => [d.name as string, (d.tiles as Created[]).map((t) => t.id)]));
  });

  it('a re-run finds them unchanged', async () => {
    const run = await migrate(['dashboards', join(FIXTURES, 'dashboards')]);
    expectDone(run);
    expect(run.err).toContain(`0 created, 0 updated, ${DASHBOARDS} unchanged`);
    const stored = await list('dashboards');
    expect(new Map(stored.map((d) => [d.name as string, (d.tiles as Created[]).map((t) => t.id)]))).toEqual(tileIds);
  });

  it('--delete removes them', async () => {
    expectDone(await migrate(['dashboards', join(FIXTURES, 'dashboards'), '--delete']));
    expect(await list('dashboards')).toEqual([]);
  });
});

describe('monitors', () => {
  const targetsExist = async (): Promise<void> => {
    const tiles = new Set((await list('dashboards')).flatMap((d) => (d.tiles as Created[]).map((t) => `${d.id}/${t.id}`)));
    const searches = new Set((await list('saved-searches')).map((s) => s.id));
    for (const a of await list('alerts')) expect(a.source === 'tile' ? tiles.has(`${a.dashboardId}/${a.tileId}`) : searches.has(a.savedSearchId as string)).toBe(true);
  };

  it('become tiles, a saved search and alerts on the server', async () => {
    const run = await migrate(monitorArgs());
    expectDone(run);
    expect(run.err).toContain(`${MONITORS} items: ${ALERTS} created, 0 updated, 0 unchanged, 2 skipped`);
    expect(await list('alerts')).toHaveLength(ALERTS);
    expect(await list('saved-searches')).toHaveLength(1);
    await targetsExist();
  });

  it('a re-run duplicates nothing', async () => {
    const before = (await list('alerts')).map((a) => a.id).sort();
    const run = await migrate(monitorArgs());
    expectDone(run);
    expect(run.err).toContain(`0 created, 0 updated, ${ALERTS} unchanged`);
    expect((await list('alerts')).map((a) => a.id).sort()).toEqual(before);
    expect(await list('dashboards')).toHaveLength(1);
    await targetsExist();
  });

  it('--delete removes alerts, saved search and the generated dashboard', async () => {
    expectDone(await migrate([...monitorArgs(), '--delete']));
    expect([...(await list('alerts')), ...(await list('saved-searches')), ...(await list('dashboards'))]).toEqual([]);
  });
});

describe('dashboards/validate and filters on the real server (issue 27)', () => {
  const iis = join(FIXTURES, 'dashboards', 'iis.json');

  it('a dashboard with template variables passes the server check and stores its filters', async () => {
    const run = await migrate(['dashboards', iis]);
    expectDone(run);
    const [stored] = await list('dashboards');
    expect(stored!.filters).toEqual([expect.objectContaining({ type: 'QUERY_EXPRESSION', name: 'exclude_site', expression: "Attributes['site']", sourceId: server.sourceIds.get('65f5e4a3b9e77c001a333333'), id: expect.any(String) })]);
    expect(stored!.savedFilterValues).toEqual([{ type: 'sql', condition: "Attributes['site'] NOT IN ('total')" }]);
    // an update sends the filters with ids, as UpdateDashboardRequest asks: the server keeps them
    expectDone(await migrate(['dashboards', iis]));
    expect((await list('dashboards'))[0]!.filters).toEqual(stored!.filters);
    expectDone(await migrate(['dashboards', iis, '--delete']));
  });

  it("a dashboard the server refuses is reported with the server's reason and not created", async () => {
    const missing = '65f5e4a3b9e77c001a000bad';
    const run = await migrate(['dashboards', iis, '--metric-source', missing]);
    expect(run.status).toBe(1);
    expect(run.err).toContain(`failed (refused by dashboards/validate: Could not find the following source IDs: ${missing})`);
    expect(await list('dashboards')).toEqual([]);
  });

  it('--dry-run with credentials: every fixture dashboard passes the server check, nothing is saved', async () => {
    const run = await migrate(['dashboards', join(FIXTURES, 'dashboards'), '--dry-run']);
    expect({ status: run.status, err: run.err }).toEqual({ status: 0, err: expect.stringContaining(`${DASHBOARDS} items: ${DASHBOARDS} would apply, 0 skipped, 0 failed`) });
    expect(await list('dashboards')).toEqual([]);
  });
});
