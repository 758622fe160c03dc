/**
 * `dd-otlp-bridge stack dashboards|alerts|sources …` against the real HyperDX API server (open
 * source deployment: `/api/v2`, Bearer personal access key), started by ./server.ts from the
 * shared HyperDX snapshot on FerretDB. A user registers as in the UI, a ClickHouse connection,
 * sources and a webhook are created through the API as an operator would have them, then every
 * command of the CLI runs as an operator runs it: ids come from the server, replies are what the
 * server sends (and the CLI checks them against the OpenAPI document: exit 0 means they matched),
 * error texts are the server's own, and the rate limit (100 requests a minute per key) is waited
 * out. Creating a connection and sources stores their settings only (the server does not reach
 * ClickHouse for it), so no ClickHouse runs here. Managed ClickStack (Cloud paths, Basic auth)
 * cannot be run locally: test/e2e/stack-api-cli.test.ts covers it with the OpenAPI stand-in.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertCliBuilt, runCli, STACK_API_FIXTURES, seedAlertArgs, seedAlertBody, tableNames, type Run } from '../helpers/stack-cli';
import { type Created, type HyperdxApi, startSeededHyperdxApi } from './server';

const fixture = <T = Record<string, unknown>>(name: string): T => JSON.parse(readFileSync(join(STACK_API_FIXTURES, name), 'utf8')) as T;
const OBJECT_ID = /^[0-9a-f]{24}$/;

let api: HyperdxApi;
const outputs: string[] = [];
let sourceIds: Map<string, string>;
let webhookId: string;

/** The fixture dashboard over this server's sources. */
const dashboardBody = (): Record<string, unknown> => JSON.parse(JSON.stringify(fixture('dashboard.json')).replace(/65f5e4a3b9e77c001a\d{6}/g, (id) => sourceIds.get(id) ?? id)) as Record<string, unknown>;

const stack = async (args: string[], env: Record<string, string> = {}, stdin?: string): Promise<Run> => {
  const r = await runCli(args, { HYPERDX_API_URL: api.baseUrl, HYPERDX_PERSONAL_API_KEY: api.apiKey, ...env }, stdin);
  outputs.push(r.out + r.err);
  return r;
};
const json = <T = Created>(r: Run): T => {
  expect({ status: r.status, err: r.err }).toEqual({ status: 0, err: expect.any(String) });
  return JSON.parse(r.out) as T;
};

beforeAll(async () => {
  assertCliBuilt();
  ({ api, sourceIds, webhookId } = await startSeededHyperdxApi());
}, 180_000);

afterAll(async () => {
  await api?.stop();
});

it('sources list: the sources the server holds, as JSON and as a table', async () => {
  const items = json<Created[]>(await stack(['sources', 'list']));
  expect(items.map((s) => [s.id, s.name, s.kind])).toEqual([
    [sourceIds.get('65f5e4a3b9e77c001a111111'), 'Logs', 'log'],
    [sourceIds.get('65f5e4a3b9e77c001a222222'), 'Traces', 'trace'],
    [sourceIds.get('65f5e4a3b9e77c001a333333'), 'Metrics', 'metric'],
  ]);
  const table = await stack(['sources', 'list', '--table']);
  expect(table.out.split('\n').map((line) => line.replace(/[0-9a-f]{24}/, '<id>'))).toEqual([
    'ID                        NAME     KIND    TABLE',
    '<id>  Logs     log     default.otel_logs',
    '<id>  Traces   trace   default.otel_traces',
    '<id>  Metrics  metric  default',
    '',
  ]);
});

it('dashboards: create (ids from the server), list, get, update from what get printed, delete', async () => {
  const body = dashboardBody();
  // the server makes its own tile ids: one sent along is ignored
  const withIds = { ...body, tiles: (body.tiles as object[]).map((tile, i) => ({ ...tile, id: `mine-${i}` })) };
  const created = json<Created & { tiles: Created[] }>(await stack(['dashboards', 'create', '--body', JSON.stringify(withIds)]));
  expect(created).toMatchObject({ id: expect.stringMatching(OBJECT_ID), name: body.name, tags: body.tags });
  expect(created.tiles.map((t) => [t.name, OBJECT_ID.test(t.id)])).toEqual([
    ['Errors per minute', true],
    ['p95 latency', true],
  ]);
  const { id } = created;

  expect(json<Created[]>(await stack(['dashboards', 'list']))).toEqual([created]);
  expect((await stack(['dashboards', 'list', '--table'])).out).toBe(`ID                        NAME                             TILES  TAGS\n${id}  Checkout service (from Datadog)  2      checkout,migrated\n`);

  const got = await stack(['dashboards', 'get', id]);
  expect(json(got)).toEqual(created);
  // `get` prints a valid update body: edit it and send it back (stdin); a kept tile keeps its id
  const edited = { ...created, name: 'Checkout (ClickStack)', tiles: created.tiles.slice(0, 1) };
  const updated = json<Created & { tiles: Created[] }>(await stack(['dashboards', 'update', id, '--file', '-'], {}, JSON.stringify(edited)));
  expect(updated).toMatchObject({ id, name: 'Checkout (ClickStack)' });
  expect(updated.tiles.map((t) => t.id)).toEqual([created.tiles[0]!.id]);

  expect(await stack(['dashboards', 'delete', id])).toEqual({ status: 0, out: '', err: `deleted dashboards ${id}\n` });
  expect(await stack(['dashboards', 'get', id])).toEqual({ status: 1, out: '', err: 'stack dashboards get: 404 Not Found: Not Found\n' });
});

describe('alerts', () => {
  let dashboard: Created & { tiles: Created[] };
  beforeAll(async () => {
    dashboard = json(await stack(['dashboards', 'create', '--body', JSON.stringify(dashboardBody())]));
  });

  it('create with the seed body from flags, get, update from what get printed, delete', async () => {
    const tileId = dashboard.tiles[0]!.id;
    const targets = { dashboardId: dashboard.id, tileId, webhookId };
    const created = json(await stack(seedAlertArgs(targets)));
    // the body, field for field, as the server stored it
    expect(created).toMatchObject({ ...seedAlertBody(targets), id: expect.stringMatching(OBJECT_ID), state: 'OK' });

    const got = await stack(['alerts', 'get', created.id]);
    expect(json(got)).toEqual(created);
    expect((await stack(['alerts', 'get', created.id, '--table'])).out).toBe(`ID                        NAME               STATE  INTERVAL  CONDITION  TARGET\n${created.id}  Error Spike Alert  OK     1h        above 100  tile ${dashboard.id}/${tileId}\n`);

    const updated = json(await stack(['alerts', 'update', created.id, '--file', '-', '--threshold', '250'], {}, got.out));
    expect(updated).toMatchObject({ id: created.id, threshold: 250, name: 'Error Spike Alert', tileId });

    const elsewhere = await stack(['alerts', 'update', created.id, '--file', '-', '--tile-id', 'no-such-tile'], {}, got.out);
    expect(elsewhere).toEqual({ status: 1, out: '', err: 'stack alerts update: 400 Bad Request: Tile not found\n' });

    expect(await stack(['alerts', 'delete', created.id])).toEqual({ status: 0, out: '', err: `deleted alerts ${created.id}\n` });
    expect(await stack(['alerts', 'get', created.id])).toEqual({ status: 1, out: '', err: 'stack alerts get: 404 Not Found: Alert not found\n' });
  });

  it('list reads every page, or the one asked for', async () => {
    const tileId = dashboard.tiles[1]!.id;
    for (const name of ['p1', 'p2', 'p3']) {
      const body = { ...fixture('alert.json'), name, dashboardId: dashboard.id, tileId, channel: { type: 'webhook', webhookId } };
      expect((await stack(['alerts', 'create', '--body', JSON.stringify(body)])).status).toBe(0);
    }
    expect(json<Created[]>(await stack(['alerts', 'list'])).map((a) => a.name)).toEqual(['p1', 'p2', 'p3']);
    const page = await stack(['alerts', 'list', '--limit', '2', '--offset', '1', '--table']);
    expect(tableNames(page.out)).toEqual(['p2', 'p3']);
    expect(page.err).toBe('2 of 3 alerts, from offset 1\n');
  });
});

it("shows the server's own message on 4xx (JSON or plain text) and exits 1", async () => {
  const dashboard = { ...dashboardBody(), filters: [{ type: 'QUERY_EXPRESSION', name: 'Env', expression: 'env', sourceId: '68fa86308aa879b977aa6af6' }] };
  expect(await stack(['dashboards', 'create', '--body', JSON.stringify(dashboard)])).toEqual({ status: 1, out: '', err: 'stack dashboards create: 400 Bad Request: Could not find the following source IDs: 68fa86308aa879b977aa6af6\n' });
  expect(await stack(['alerts', 'create', '--threshold', '1', '--interval', '5m', '--threshold-type', 'below'])).toEqual({ status: 1, out: '', err: 'stack alerts create: 400 Bad Request: Body validation failed: Invalid input\n' });
  expect(await stack(['sources', 'list'], { HYPERDX_PERSONAL_API_KEY: 'not-the-key' })).toEqual({ status: 1, out: '', err: 'stack sources list: 401 Unauthorized: Unauthorized\n' });
});

it('waits out the rate limit (100 requests a minute per key) and then gets its answer', async () => {
  // spend what is left of this minute's budget, a few requests at a time
  let refused: Response | undefined;
  while (!refused) {
    const replies = await Promise.all(Array.from({ length: 10 }, () => fetch(`${api.baseUrl}/api/v2/sources`, { headers: { authorization: `Bearer ${api.apiKey}` } })));
    await Promise.all(replies.map((r) => r.arrayBuffer()));
    refused = replies.find((r) => r.status === 429);
  }
  const reset = Number(refused.headers.get('ratelimit-reset'));
  expect({ limit: refused.headers.get('ratelimit-limit'), remaining: refused.headers.get('ratelimit-remaining'), retryAfter: refused.headers.get('retry-after') }).toEqual({ limit: '100', remaining: '0', retryAfter: '60' });
  expect(reset).toBeLessThanOrEqual(60);

  const r = await stack(['sources', 'list']);
  expect(r.status).toBe(0);
  expect(JSON.parse(r.out)).toHaveLength(3);
  expect(r.err).toMatch(/^stack sources list: GET \/api\/v2\/sources: 429 Too Many Requests \(rate limit 100 requests per window\); retrying in \d+ s \(RateLimit-Reset\), retry 1 of 3\n$/);
}, 150_000);

it('never printed the access key', () => {
  expect(outputs.length).toBeGreaterThan(15);
  for (const text of outputs) expect(text).not.toContain(api.apiKey);
});
