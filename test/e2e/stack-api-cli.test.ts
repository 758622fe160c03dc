/**
 * `dd-otlp-bridge stack dashboards|alerts|sources …` for Managed ClickStack, as an operator runs
 * it: the built CLI against the OpenAPI-checking stand-in (test/helpers/openapi-server.ts). The
 * stand-in is kept for this deployment only, because its paths (`/v1/organizations/<org>/services/
 * <service>/clickstack/…`) and HTTP Basic auth with a Cloud API key exist only in the managed
 * offering; the open-source deployment (`/api/v2`, Bearer key) runs against the real HyperDX API
 * server in test/hyperdx-api/stack-api-cli.test.ts. Every operation round-trips; the stand-in saw
 * the document's paths, credentials and bodies; the CLI's output is checked against the document's
 * schemas too; pages are followed; the service's own error words reach the operator; a 429 is
 * waited out; a body the document refuses is never sent; a reply that breaks the document is
 * refused (which the real server cannot be made to send); and no credential appears in any output.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDocument, SchemaValidator } from '../../tools/src/stack-api/openapi';
import { startOpenApiServer, type OpenApiServer } from '../helpers/openapi-server';
import { assertCliBuilt, runCli, seedAlertArgs, seedAlertBody, STACK_API_FIXTURES as FIXTURES, tableNames, type Run } from '../helpers/stack-cli';

const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
const SOURCES = JSON.parse(readFileSync(join(FIXTURES, 'sources.json'), 'utf8')) as Record<string, unknown>[];

const doc = loadDocument();
const validator = new SchemaValidator(doc);
/** The CLI prints the `data` of each reply: it must still be what the document describes. */
const expectSchema = (name: string, value: unknown): void => expect(validator.validate(doc.components.schemas[name]!, value, 'output')).toEqual({ ok: true });

const CLOUD_AUTH = { kind: 'cloud', org: 'b7e2c0de-org', service: '4f1d9a77-svc', keyId: 'kid-6YqXr2', keySecret: 'cloudsecret-9f8e7d6c5b' } as const;
const BASIC = Buffer.from(`${CLOUD_AUTH.keyId}:${CLOUD_AUTH.keySecret}`).toString('base64');
const SECRETS = [CLOUD_AUTH.keySecret, BASIC];
const PREFIX = `/v1/organizations/${CLOUD_AUTH.org}/services/${CLOUD_AUTH.service}/clickstack`;
const cloudEnv = (server: OpenApiServer): Record<string, string> => ({
  CLICKSTACK_API_URL: server.baseUrl,
  CLICKSTACK_ORG_ID: CLOUD_AUTH.org,
  CLICKSTACK_SERVICE_ID: CLOUD_AUTH.service,
  CLICKSTACK_KEY_ID: CLOUD_AUTH.keyId,
  CLICKSTACK_KEY_SECRET: CLOUD_AUTH.keySecret,
});

beforeAll(assertCliBuilt);

describe('stack management CLI, Managed ClickStack (OpenAPI stand-in)', () => {
  let server: OpenApiServer;
  const outputs: string[] = [];
  const stack = async (args: string[], extraEnv: Record<string, string> = {}, stdin?: string): Promise<Run> => {
    const r = await runCli(args, { ...cloudEnv(server), ...extraEnv }, stdin);
    outputs.push(r.out + r.err);
    return r;
  };
  const json = (r: Run): unknown => {
    expect({ status: r.status, err: r.err }).toEqual({ status: 0, err: expect.any(String) });
    return JSON.parse(r.out);
  };
  const lastRequest = () => server.requests[server.requests.length - 1]!;
  const expectedAuthorization = `Basic ${BASIC}`;

  beforeAll(async () => {
    server = await startOpenApiServer({ auth: CLOUD_AUTH, sources: SOURCES, pageCap: 2 });
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    expect(server.problems).toEqual([]);
  });

  it('sources list: JSON by default, a table with --table', async () => {
    const items = json(await stack(['sources', 'list'])) as unknown[];
    expect(items).toEqual(SOURCES);
    for (const s of items) expectSchema('Source', s);
    expect(lastRequest()).toMatchObject({ method: 'GET', url: `${PREFIX}/sources`, operationId: 'listSources', authorization: expectedAuthorization, status: 200 });

    const table = await stack(['sources', 'list', '--table']);
    expect(table.status).toBe(0);
    expect(table.out.split('\n')).toEqual([
      'ID                        NAME     KIND    TABLE',
      '65f5e4a3b9e77c001a111111  Logs     log     default.otel_logs',
      '65f5e4a3b9e77c001a222222  Traces   trace   default.otel_traces',
      '65f5e4a3b9e77c001a333333  Metrics  metric  default',
      '',
    ]);
  });

  it('dashboards: create, list, get, update, delete', async () => {
    const body = fixture('dashboard.json');
    const created = json(await stack(['dashboards', 'create', '--file', join(FIXTURES, 'dashboard.json')])) as { id: string; tiles: { id: string }[] };
    expectSchema('DashboardResponse', created);
    expect(created).toMatchObject({ name: body.name, tags: body.tags });
    expect(lastRequest()).toMatchObject({ method: 'POST', url: `${PREFIX}/dashboards`, contentType: 'application/json', body, status: 200 });
    const id = created.id;

    const listed = json(await stack(['dashboards', 'list'])) as unknown[];
    expect(listed).toEqual([created]);
    for (const d of listed) expectSchema('DashboardResponse', d);
    expect((await stack(['dashboards', 'list', '--table'])).out).toBe(`ID                        NAME                             TILES  TAGS\n${id}  Checkout service (from Datadog)  2      checkout,migrated\n`);

    const got = json(await stack(['dashboards', 'get', id]));
    expect(got).toEqual(created);
    expect(lastRequest()).toMatchObject({ method: 'GET', url: `${PREFIX}/dashboards/${id}`, operationId: 'getDashboard' });

    // what `get` prints is a valid update body: edit it and send it back (stdin)
    const edited = { ...created, name: 'Checkout (ClickStack)', tiles: created.tiles.slice(0, 1) };
    const updated = json(await stack(['dashboards', 'update', id, '--file', '-'], {}, JSON.stringify(edited))) as { name: string; tiles: { id: string }[] };
    expectSchema('DashboardResponse', updated);
    expect(updated.name).toBe('Checkout (ClickStack)');
    expect(updated.tiles.map((t) => t.id)).toEqual([created.tiles[0]!.id]);
    expect(lastRequest()).toMatchObject({ method: 'PUT', url: `${PREFIX}/dashboards/${id}`, body: edited });

    const deleted = await stack(['dashboards', 'delete', id]);
    expect(deleted).toEqual({ status: 0, out: '', err: `deleted dashboards ${id}\n` });
    expect(lastRequest()).toMatchObject({ method: 'DELETE', url: `${PREFIX}/dashboards/${id}`, body: undefined, status: 200 });

    const gone = await stack(['dashboards', 'get', id]);
    expect(gone).toEqual({ status: 1, out: '', err: 'stack dashboards get: 404 Not Found: Dashboard not found\n' });
  });

  it('alerts: create from flags, get, update from a file with a flag over it, delete', async () => {
    const targets = { dashboardId: '65f5e4a3b9e77c001a567890', tileId: '65f5e4a3b9e77c001a901234', webhookId: '65f5e4a3b9e77c001a789012' };
    const created = json(await stack(seedAlertArgs(targets))) as { id: string };
    expectSchema('AlertResponse', created);
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      url: `${PREFIX}/alerts`,
      contentType: 'application/json',
      // the body, field for field
      body: seedAlertBody(targets),
    });

    expect(json(await stack(['alerts', 'get', created.id]))).toEqual(created);
    expect((await stack(['alerts', 'get', created.id, '--table'])).out).toBe(
      `ID                        NAME               STATE  INTERVAL  CONDITION  TARGET\n${created.id}  Error Spike Alert  OK     1h        above 100  tile 65f5e4a3b9e77c001a567890/65f5e4a3b9e77c001a901234\n`,
    );

    const updated = json(await stack(['alerts', 'update', created.id, '--file', join(FIXTURES, 'alert.json'), '--threshold', '250']));
    expectSchema('AlertResponse', updated);
    expect(lastRequest()).toMatchObject({ method: 'PUT', url: `${PREFIX}/alerts/${created.id}`, body: { ...fixture('alert.json'), threshold: 250 } });
    expect(updated).toMatchObject({ id: created.id, threshold: 250, name: 'Checkout error spike' });

    expect(await stack(['alerts', 'delete', created.id])).toEqual({ status: 0, out: '', err: `deleted alerts ${created.id}\n` });
    expect(lastRequest()).toMatchObject({ method: 'DELETE', url: `${PREFIX}/alerts/${created.id}`, status: 200 });
  });

  it('alerts list follows the pages the server returns; --limit/--offset fetch one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ddb-stack-api-'));
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) {
      writeFileSync(join(dir, `${name}.json`), JSON.stringify({ ...fixture('alert.json'), name }));
      expect((await stack(['alerts', 'create', '--file', join(dir, `${name}.json`)])).status).toBe(0);
    }
    const before = server.requests.length;
    const all = json(await stack(['alerts', 'list'])) as { name: string }[];
    for (const a of all) expectSchema('AlertResponse', a);
    expect(all.map((a) => a.name)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(server.requests.slice(before).map((r) => r.url)).toEqual([0, 2, 4].map((o) => `${PREFIX}/alerts?limit=1000&offset=${o}`));

    const page = await stack(['alerts', 'list', '--limit', '2', '--offset', '3', '--table']);
    expect(page.status).toBe(0);
    expect(tableNames(page.out)).toEqual(['p4', 'p5']);
    expect(page.err).toBe('2 of 5 alerts, from offset 3\n');
    expect(lastRequest().url).toBe(`${PREFIX}/alerts?limit=2&offset=3`);
  });

  it('refuses a body the document does not allow before sending anything (exit 2, field named)', async () => {
    const before = server.requests.length;
    const alert = await stack(['alerts', 'create', '--threshold', '10', '--interval', '2h', '--threshold-type', 'over', '--webhook-id', 'w1']);
    expect(alert).toEqual({
      status: 2,
      out: '',
      err:
        'stack alerts create: the request does not match the OpenAPI document (createAlert); nothing was sent:\n' +
        'body.interval: must be one of 1m, 5m, 15m, 30m, 1h, 6h, 12h, 1d\n' +
        'body.thresholdType: must be one of above, below, above_exclusive, below_or_equal, equal, not_equal, between, not_between\n',
    });
    const dashboard = { ...fixture('dashboard.json'), tiles: [{ name: 'no size', x: 0, y: 0, config: { displayType: 'line', sourceId: 's' } }] };
    const dash = await stack(['dashboards', 'create', '--body', JSON.stringify(dashboard)]);
    expect(dash.status).toBe(2);
    expect(dash.err.split('\n').slice(1)).toEqual(['body.tiles[0].w: is required', 'body.tiles[0].h: is required', 'body.tiles[0].config.select: is required', '']);
    expect(server.requests.length).toBe(before);
  });

  it("shows the service's own message on 4xx (JSON or plain text) and exits 1", async () => {
    const dashboard = { ...fixture('dashboard.json'), filters: [{ type: 'QUERY_EXPRESSION', name: 'Env', expression: 'env', sourceId: '68fa86308aa879b977aa6af6' }] };
    const missingSource = await stack(['dashboards', 'create', '--body', JSON.stringify(dashboard)]);
    expect(missingSource).toEqual({ status: 1, out: '', err: 'stack dashboards create: 400 Bad Request: Could not find the following source IDs: 68fa86308aa879b977aa6af6\n' });

    const noChannel = await stack(['alerts', 'create', '--threshold', '1', '--interval', '5m', '--threshold-type', 'below']);
    expect(noChannel.err).toBe('stack alerts create: 400 Bad Request: Body validation failed: at least one of "channel" or "channels" must be provided\n');

    expect(await stack(['sources', 'list'], { CLICKSTACK_KEY_SECRET: 'not-the-secret' })).toEqual({ status: 1, out: '', err: 'stack sources list: 401 Unauthorized: Unauthorized\n' });

    // a 429 with Retry-After and no RateLimit-* headers: waited out, then answered
    server.replyNext({ status: 429, body: 'Too many requests, please try again later.', contentType: 'text/plain', headers: { 'retry-after': '1' } });
    const limited = await stack(['alerts', 'list']);
    expect(limited.status).toBe(0);
    expect(limited.err).toBe('stack alerts list: GET /api/v2/alerts: 429 Too Many Requests (rate limit); retrying in 1 s (Retry-After), retry 1 of 3\n');
  });

  it('refuses a reply that breaks the document (exit 1, field named)', async () => {
    server.replyNext({ status: 200, body: JSON.stringify({ data: [{ ...SOURCES[0], kind: 'logs' }] }) });
    const r = await stack(['sources', 'list']);
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/^stack sources list: the reply to GET \/api\/v2\/sources does not match the OpenAPI document \(listSources\):\nresponse\.data\[0\]\.kind: must be one of log, trace, metric, session, promql\n$/);
  });

  it('takes the connection from flags as well, and --verbose shows requests without credentials', async () => {
    const flags = ['--base-url', server.baseUrl, '--org', CLOUD_AUTH.org, '--service', CLOUD_AUTH.service, '--key-id', CLOUD_AUTH.keyId, '--key-secret', CLOUD_AUTH.keySecret];
    const r = await runCli(['sources', 'list', '--verbose', ...flags], {});
    outputs.push(r.out + r.err);
    expect(r.status).toBe(0);
    expect(r.err).toMatch(new RegExp(`^> GET http://127\\.0\\.0\\.1:\\d+${PREFIX}/sources \\(Basic auth\\)\\n< 200 OK \\(\\d+ bytes, \\d+ ms\\)\\n$`));
    expect(lastRequest().authorization).toBe(expectedAuthorization);
  });

  it('never printed a credential, and every request the server served used the deployment’s credentials', () => {
    expect(outputs.length).toBeGreaterThan(15);
    for (const text of outputs) for (const secret of SECRETS) expect(text).not.toContain(secret);
    const served = server.requests.filter((r) => r.status !== 401);
    expect(served.every((r) => r.authorization === expectedAuthorization && r.url.startsWith(`${PREFIX}/`))).toBe(true);
  });
});

describe('stack command line', () => {
  it('bare `stack --help` is the local stack’s help; `stack alerts --help` is this command’s', async () => {
    expect((await runCli(['--help'], {})).out).toMatch(/^Usage: dd-otlp-bridge-tools stack \[stack options\] \[sidecar options\]/);
    const help = await runCli(['alerts', '--help'], {});
    expect(help.status).toBe(0);
    expect(help.out).toMatch(/^Usage: dd-otlp-bridge-tools stack dashboards create\|list\|get\|update\|delete/);
  });

  it('usage errors exit 2 and send nothing', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [['sources', 'list'], {}, 'stack sources list: no credentials: give --org, --service, --key-id and --key-secret (Managed ClickStack) or --api-key (open source), or their environment variables (see --help)\n'],
      [['sources', 'delete', 'x'], { HYPERDX_PERSONAL_API_KEY: 'k' }, 'stack sources delete: unknown action "delete": sources takes list\n'],
      [['alerts', 'get'], { HYPERDX_PERSONAL_API_KEY: 'k' }, 'stack alerts get: needs the id of the item\n'],
      [
        ['alerts', 'list', '--org', 'o'],
        { HYPERDX_PERSONAL_API_KEY: 'k' },
        'stack alerts list: both Managed ClickStack settings (--org/--service/--key-id/--key-secret or CLICKSTACK_*) and an open-source API key (--api-key or HYPERDX_PERSONAL_API_KEY) are set: give one\n',
      ],
    ];
    for (const [args, env, err] of cases) expect(await runCli(args, env)).toEqual({ status: 2, out: '', err });
  });
});
