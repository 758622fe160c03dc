/**
 * `dd-otlp-bridge migrate dashboards|monitors …` as an operator runs it: the built CLI, the real
 * integrations-core exports of test/fixtures/migrate/, and the OpenAPI-checking stand-in of the
 * management API (test/helpers/openapi-server.ts), which refuses any request the published
 * HyperDX document does not allow. Create → re-run (updates, no duplicates, tile ids and alert
 * targets kept) → delete; `--dry-run` and `--out` send nothing; no credential is ever printed.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { startOpenApiServer, type OpenApiServer } from '../helpers/openapi-server';
import { assertCliBuilt, type Run, runTools } from '../helpers/stack-cli';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'migrate');
const SOURCES = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'stack-api', 'sources.json'), 'utf8')) as Record<string, unknown>[];
const API_KEY = 'personal-migrate-7c6b5a4f';
const WEBHOOK = '65f5e4a3b9e77c001a789012';
const FALLBACK_WEBHOOK = '65f5e4a3b9e77c001a789099';

const DASHBOARD_FILES = readdirSync(join(FIXTURES, 'dashboards')).filter((f) => f.endsWith('.json'));
const MONITOR_FILES = readdirSync(join(FIXTURES, 'monitors')).filter((f) => f.endsWith('.json'));
/** The anomaly monitors of the set; everything else becomes a tile or a search, and an alert. */
const SKIPPED_MONITORS = 2;

const runCli = (args: string[], env: Record<string, string>): Promise<Run> => runTools(['migrate', ...args], env);

type Json = Record<string, unknown>;

let server: OpenApiServer;
let env: Record<string, string>;

/** The server's current objects, read through the API like any client. */
async function list(resource: 'dashboards' | 'alerts' | 'saved-searches'): Promise<Json[]> {
  const res = await fetch(`${server.baseUrl}/api/v2/${resource}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  return ((await res.json()) as { data: Json[] }).data;
}

const MONITOR_ARGS = [join(FIXTURES, 'monitors'), '--webhook', `slack-yourteam-alerts=${WEBHOOK}`, '--default-webhook', FALLBACK_WEBHOOK];

beforeAll(async () => {
  assertCliBuilt();
  server = await startOpenApiServer({ auth: { kind: 'oss', apiKey: API_KEY }, sources: SOURCES });
  env = { HYPERDX_API_URL: server.baseUrl, HYPERDX_PERSONAL_API_KEY: API_KEY };
});

afterAll(async () => {
  await server?.close();
});

afterEach(() => {
  expect(server.problems).toEqual([]);
});

const noSecret = (run: Run): void => {
  expect(run.out).not.toContain(API_KEY);
  expect(run.err).not.toContain(API_KEY);
};

describe('migrate dashboards', () => {
  let firstTiles: Map<string, string[]>;

  it('creates one dashboard per export, every request valid for the document', async () => {
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards')], env);
    noSecret(run);
    expect(run.status).toBe(0);
    expect(run.err).toContain(`migrate dashboards: ${DASHBOARD_FILES.length} items: ${DASHBOARD_FILES.length} created, 0 updated, 0 unchanged, 0 skipped, 0 failed`);
    const dashboards = await list('dashboards');
    expect(dashboards).toHaveLength(DASHBOARD_FILES.length);
    expect(server.requests.filter((r) => r.status >= 400)).toEqual([]);
    firstTiles = new Map(dashboards.map((d) => [d.name as string, (d.tiles as Json[]).map((t) => t.id as string)]));
  });

  it('a re-run finds the same dashboards unchanged and sends nothing; their tile ids stay', async () => {
    const writes = server.requests.filter((r) => r.method !== 'GET').length;
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards')], env);
    expect(run.status).toBe(0);
    expect(run.err).toContain(`${DASHBOARD_FILES.length} items: 0 created, 0 updated, ${DASHBOARD_FILES.length} unchanged`);
    expect(server.requests.filter((r) => r.method !== 'GET').length).toBe(writes);
    const dashboards = await list('dashboards');
    expect(dashboards).toHaveLength(DASHBOARD_FILES.length);
    for (const d of dashboards) expect((d.tiles as Json[]).map((t) => t.id)).toEqual(firstTiles.get(d.name as string));
  });

  it('--delete removes what the runs created', async () => {
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards'), '--delete'], env);
    expect(run.status).toBe(0);
    expect(run.err).toContain(`${DASHBOARD_FILES.length} deleted`);
    expect(await list('dashboards')).toEqual([]);
  });
});

describe('migrate monitors', () => {
  const alertTargetsExist = async (): Promise<void> => {
    const dashboards = await list('dashboards');
    const searches = await list('saved-searches');
    const tiles = new Set(dashboards.flatMap((d) => (d.tiles as Json[]).map((t) => `${d.id as string}/${t.id as string}`)));
    for (const a of await list('alerts')) {
      if (a.source === 'tile') expect(tiles.has(`${a.dashboardId as string}/${a.tileId as string}`)).toBe(true);
      else expect(searches.map((s) => s.id)).toContain(a.savedSearchId);
    }
  };

  it('creates the monitors dashboard, a saved search for the log monitor and the alerts', async () => {
    const run = await runCli(['monitors', ...MONITOR_ARGS], env);
    noSecret(run);
    expect(run.status).toBe(0);
    const used = MONITOR_FILES.length - SKIPPED_MONITORS;
    expect(run.err).toContain(`migrate monitors: ${MONITOR_FILES.length} items: ${used} created, 0 updated, 0 unchanged, ${SKIPPED_MONITORS} skipped, 0 failed`);
    const dashboards = await list('dashboards');
    expect(dashboards.map((d) => d.name)).toEqual(['Datadog monitors (migrated)']);
    expect((dashboards[0]!.tiles as Json[]).length).toBe(used - 1);
    expect(await list('saved-searches')).toHaveLength(1);
    const alerts = await list('alerts');
    expect(alerts).toHaveLength(used);
    expect(alerts.filter((a) => (a.channel as Json).webhookId === WEBHOOK)).toHaveLength(2);
    await alertTargetsExist();
  });

  it('a re-run finds them unchanged and duplicates nothing', async () => {
    const before = await list('alerts');
    const run = await runCli(['monitors', ...MONITOR_ARGS], env);
    expect(run.status).toBe(0);
    expect(run.err).toContain(`0 created, 0 updated, ${MONITOR_FILES.length - SKIPPED_MONITORS} unchanged`);
    expect(await list('dashboards')).toHaveLength(1);
    expect(await list('saved-searches')).toHaveLength(1);
    const after = await list('alerts');
    expect(after.map((a) => a.id).sort()).toEqual(before.map((a) => a.id).sort());
    await alertTargetsExist();
  });

  it('--delete removes alerts, the saved search and the generated dashboard', async () => {
    const run = await runCli(['monitors', ...MONITOR_ARGS, '--delete'], env);
    expect(run.status).toBe(0);
    expect(await list('alerts')).toEqual([]);
    expect(await list('saved-searches')).toEqual([]);
    expect(await list('dashboards')).toEqual([]);
  });
});

describe('offline modes', () => {
  it('--dry-run prints the plan and bodies and sends nothing', async () => {
    const sent = server.requests.length;
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards', 'zookeeper.json'), '--dry-run'], {});
    expect(run.status).toBe(0);
    expect(run.out).toContain('# create or update dashboard "ZooKeeper - Overview"');
    expect(run.out).toContain('"metricName": "zookeeper.avg_latency"');
    expect(run.err).toContain('migrate dashboards: 1 items: 1 would apply, 0 skipped, 0 failed, 1 partial');
    expect(server.requests.length).toBe(sent);
  });

  it('--out writes one file per object and the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-out-'));
    const run = await runCli(['monitors', join(FIXTURES, 'monitors'), '--out', dir], {});
    expect(run.status).toBe(0);
    expect(readdirSync(join(dir, 'monitors'))).toHaveLength(MONITOR_FILES.length);
    expect(readFileSync(join(dir, 'monitors-report.txt'), 'utf8')).toContain('anomalies() monitors have no HyperDX equivalent');
  });

  it('a file of the wrong kind is refused by name (exit 2), the others still translated', async () => {
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards', 'fluentd.json'), join(FIXTURES, 'monitors', 'redisdb-error.json'), '--dry-run'], {});
    expect(run.status).toBe(2);
    expect(run.err).toContain('redisdb-error.json: this is a Datadog monitor: use migrate monitors');
    expect(run.out).toContain('"Fluentd - Metrics"');
  });

  it('without credentials a real run says what is missing (exit 2)', async () => {
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards')], {});
    expect(run.status).toBe(2);
    expect(run.err).toContain('no credentials');
  });
});

describe('dashboards/validate (issue 27)', () => {
  const ops = (from: number): (string | undefined)[] => server.requests.slice(from).map((r) => r.operationId);

  it('every dashboard is checked by the server before it is saved, with the very body saved', async () => {
    const from = server.requests.length;
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards', 'lighttpd.json'), join(FIXTURES, 'dashboards', 'iis.json')], env);
    expect(run.status).toBe(0);
    const sent = server.requests.slice(from);
    const creates = sent.flatMap((r, i) => (r.operationId === 'createDashboard' ? [i] : []));
    expect(creates).toHaveLength(2);
    for (const i of creates) {
      expect(sent[i - 1]).toMatchObject({ operationId: 'validateDashboard', status: 200 });
      expect(sent[i - 1]!.body).toEqual(sent[i]!.body);
    }
    // the filters made from template variables were accepted and stored
    const stored = (await list('dashboards')).find((d) => d.name === 'IIS - Metrics')!;
    expect(stored.filters).toEqual([expect.objectContaining({ name: 'exclude_site', expression: "Attributes['site']", id: expect.any(String) })]);
    expect(stored.savedFilterValues).toEqual([{ type: 'sql', condition: "Attributes['site'] NOT IN ('total')" }]);
    // a re-run of the same export sends nothing; a changed export (same file name, so the same
    // identity) is checked again, then updated (filters keep their ids)
    const same = server.requests.length;
    expect((await runCli(['dashboards', join(FIXTURES, 'dashboards', 'iis.json')], env)).status).toBe(0);
    expect(ops(same).filter((o) => o !== 'listSources' && o !== 'listDashboards')).toEqual([]);
    const changed = join(mkdtempSync(join(tmpdir(), 'migrate-iis-')), 'iis.json');
    writeFileSync(changed, readFileSync(join(FIXTURES, 'dashboards', 'iis.json'), 'utf8').replace('"layout_type"', '"description":"changed","layout_type"'));
    const again = server.requests.length;
    expect((await runCli(['dashboards', changed], env)).status).toBe(0);
    expect(ops(again).filter((o) => o !== 'listSources' && o !== 'listDashboards')).toEqual(['validateDashboard', 'updateDashboard']);
    expect((await list('dashboards')).find((d) => d.name === 'IIS - Metrics')!.filters).toEqual(stored.filters);
    expect((await runCli(['dashboards', join(FIXTURES, 'dashboards'), '--delete'], env)).status).toBe(0);
  });

  it('a dashboard the server refuses is reported with its reason, and nothing is saved (exit 1)', async () => {
    const from = server.requests.length;
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards', 'zookeeper.json'), '--metric-source', '65f5e4a3b9e77c001a000bad'], env);
    expect(run.status).toBe(1);
    expect(run.err).toContain('failed (refused by dashboards/validate: Could not find the following source IDs: 65f5e4a3b9e77c001a000bad)');
    expect(run.err).toContain('1 items: 0 created, 0 updated, 0 unchanged, 0 skipped, 1 failed');
    expect(ops(from)).not.toContain('createDashboard');
    expect(await list('dashboards')).toEqual([]);
  });

  it('--dry-run with credentials has the server check each dashboard and saves nothing', async () => {
    const from = server.requests.length;
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards', 'zookeeper.json'), join(FIXTURES, 'dashboards', 'fluentd.json'), '--dry-run'], env);
    noSecret(run);
    expect(run.status).toBe(0);
    expect(run.err).toContain('2 items: 2 would apply, 0 skipped, 0 failed');
    expect(ops(from)).toEqual(['listSources', 'validateDashboard', 'validateDashboard']);
    // the real sources, not placeholders: the server could check them
    expect(run.out).toContain('"sourceId": "65f5e4a3b9e77c001a333333"');
  });

  it('--dry-run reports a refusal per item, the others still checked', async () => {
    const run = await runCli(['dashboards', join(FIXTURES, 'dashboards', 'zookeeper.json'), join(FIXTURES, 'dashboards', 'fluentd.json'), '--dry-run', '--metric-source', '65f5e4a3b9e77c001a000bad'], env);
    expect(run.status).toBe(1);
    expect(run.err.match(/failed \(refused by dashboards\/validate: Could not find the following source IDs: 65f5e4a3b9e77c001a000bad\)/g)).toHaveLength(2);
  });
});

describe('--semconv-stability-opt-in', () => {
  it('APM monitor queries name HTTP attributes as a bridge with that opt-in writes them (flag or environment)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-semconv-'));
    // hand-made: none of the integrations-core monitors of the set filters trace.* metrics on HTTP tags
    const file = join(dir, 'apm.json');
    writeFileSync(file, JSON.stringify({ name: 'Checkout 5xx', type: 'query alert', query: 'sum(last_5m):sum:trace.express.request.errors{http.status_code:500}.as_count() > 10', message: '', options: {} }));
    const byFlag = await runCli(['monitors', file, '--dry-run', '--semconv-stability-opt-in', 'http'], {});
    expect(byFlag.out).toContain('Attributes.http.response.status_code:\\"500\\"');
    const byEnv = await runCli(['monitors', file, '--dry-run'], { OTEL_SEMCONV_STABILITY_OPT_IN: 'http' });
    expect(byEnv.out).toBe(byFlag.out);
    const none = await runCli(['monitors', file, '--dry-run'], {});
    expect(none.out).toContain('Attributes.http.status_code:\\"500\\"');
  });
});

describe('--metric-types', () => {
  it("a count metric's tile reads the sum table once integrations-core's metadata.csv says it is a count", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-types-'));
    // hand-made: none of the integrations-core monitors of the set queries a count metric without .as_count()
    const file = join(dir, 'checkpoints.json');
    writeFileSync(file, JSON.stringify({ name: 'Checkpoints', type: 'query alert', query: 'sum(last_5m):sum:postgresql.bgwriter.checkpoints_timed{*} > 10', message: '', options: {} }));
    const metadata = join(FIXTURES, 'metadata', 'postgres-metadata.csv');
    const typed = await runCli(['monitors', file, '--dry-run', '--metric-types', metadata], {});
    expect(typed.status).toBe(0);
    expect(typed.out).toContain('"metricType": "sum"');
    // without the flag, the integrations-core types bundled with the tool say the same
    const untyped = await runCli(['monitors', file, '--dry-run'], {});
    expect(untyped.out).toContain('"metricType": "sum"');
  });

  it('a file that is not a metadata.csv is a usage error naming it (exit 2)', async () => {
    const run = await runCli(['monitors', join(FIXTURES, 'monitors'), '--dry-run', '--metric-types', join(FIXTURES, 'README.md')], {});
    expect(run.status).toBe(2);
    expect(run.err).toContain('README.md: not an integrations-core metadata.csv');
  });
});
