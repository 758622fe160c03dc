/**
 * Issue 36's proof in ClickHouse: the sidecar with the bundled integration pipelines and a custom
 * pipeline (written in Terraform HCL, turned into the sidecar's file by `migrate pipelines`:
 * test/helpers/shop-pipeline.ts), the real collector and ClickHouse. Lines real servers wrote
 * (test/fixtures/captured-logs/: nginx's access log with a 200, a 404 and a 503, PostgreSQL's log
 * with two errors) land with the HTTP attributes HyperDX's HTTP panel reads, the level of their
 * status code and the time the server wrote; the captured Java app's logback lines get the custom
 * pipeline's attributes and level. Then the custom pipeline changes and the sidecar gets SIGHUP
 * while batches keep coming: every batch is answered 2xx, every record acknowledged is in
 * ClickHouse, and the records after the reload carry the new pipeline's value.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { writeShopPipeline } from '../helpers/shop-pipeline';
import { eventually } from '../helpers/stack';

const KEY = 'log-pipelines-key';
const FIXTURES = join(__dirname, '..', 'fixtures');
const lines = (file: string): string[] => readFileSync(join(FIXTURES, file), 'utf8').trimEnd().split('\n');

const NGINX = lines('captured-logs/nginx-1.22.1/access.log');
const POSTGRES = lines('captured-logs/postgresql-15.18/postgresql.log');
const JAVA = lines('captured/java-dd-java-agent-1.68.1-v0.4/app.default.log');

const dir = mkdtempSync(join(tmpdir(), 'log-pipelines-e2e-'));
const CUSTOM_FILE = join(dir, 'custom-pipelines.json');
const migrateCustom = (version: string): void => writeShopPipeline(dir, CUSTOM_FILE, version);
migrateCustom('1');

/** An agent's log entry for a line read from a file: the agent's default status and its read time. */
const entry = (message: string, source: string, service: string, extra: Record<string, string> = {}): Record<string, string | number> => ({
  message,
  ddsource: source,
  service,
  hostname: 'web-1',
  status: 'info',
  timestamp: Date.now(),
  ddtags: `env:e2e,source:${source}`,
  ...extra,
});

describe('Datadog log pipelines in ClickHouse (issue 36)', () => {
  // a budget no record reaches on a loaded machine: this test is about what the pipelines make,
  // not how fast (a record past the budget goes on unparsed, and is counted)
  const running = useClickHouseStack({ authToken: KEY, sidecarEnv: { DD_BRIDGE_LOG_PIPELINES: `${join(REPO_ROOT, 'pipelines', 'integrations-core')},${CUSTOM_FILE}`, DD_BRIDGE_LOG_PIPELINE_BUDGET_MS: '1000' } });
  const post = (entries: Record<string, string | number>[]): Promise<Response> => fetch(`${running.stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify(entries), headers: { 'Content-Type': 'application/json', 'DD-API-KEY': KEY } });
  const loads = (): number => running.stack.sidecarOutput().match(/log pipelines loaded/g)?.length ?? 0;

  beforeAll(async () => {
    // the pipelines load before the intake listens
    expect(await eventually(async () => running.stack.sidecarOutput().includes('Datadog intake listening'), 120_000)).toBe(true);
    expect(loads()).toBe(1);
    const sent = [...NGINX.map((l) => entry(l, 'nginx', 'nginx')), ...POSTGRES.map((l) => entry(l, 'postgresql', 'postgres')), ...JAVA.map((l) => entry(l, 'shop', 'shop'))];
    expect((await post(sent)).status).toBe(202);
  }, 180_000);

  it('nginx access lines: HTTP attributes, the level of their status code, the time nginx wrote', async () => {
    const rows = await running.ch.waitForRows<{ status: string; level: string; ts: string; method: string; path: string; browser: string; client: string }>(
      `SELECT LogAttributes['http.status_code'] AS status, SeverityText AS level, toString(Timestamp) AS ts, LogAttributes['http.method'] AS method,
              LogAttributes['http.url_details.path'] AS path, LogAttributes['http.useragent_details.browser.family'] AS browser, LogAttributes['net.peer.ip'] AS client
       FROM otel_logs WHERE ServiceName = 'nginx' ORDER BY status`,
      3,
      60_000,
    );
    expect(rows).toEqual([
      { status: '200', level: 'info', ts: '2026-11-28 19:50:07.000000000', method: 'GET', path: '/index.html', browser: 'Chrome', client: '127.0.0.1' },
      { status: '404', level: 'warn', ts: '2026-11-28 19:50:07.000000000', method: 'GET', path: '/orders/42', browser: 'curl', client: '127.0.0.1' },
      { status: '503', level: 'error', ts: '2026-11-28 19:50:07.000000000', method: 'POST', path: '/checkout', browser: 'Safari', client: '127.0.0.1' },
    ]);
  });

  it('PostgreSQL error lines are errors; the others keep their level; each at the time the server wrote', async () => {
    const rows = await running.ch.waitForRows<{ level: string; severity: string; ts: string; body: string }>(
      `SELECT SeverityText AS level, LogAttributes['db.severity'] AS severity, toString(Timestamp) AS ts, Body AS body FROM otel_logs WHERE ServiceName = 'postgres' ORDER BY Timestamp, body`,
      POSTGRES.length,
      60_000,
    );
    // the pipeline's message remapper makes the text after the prefix the message
    expect(rows.filter((r) => r.level === 'error').map((r) => [r.ts, r.body])).toEqual([
      ['2026-11-28 19:50:18.918000000', 'relation "users" does not exist at character 15'],
      ['2026-11-28 19:50:19.163000000', 'duplicate key value violates unique constraint "orders_pkey"'],
    ]);
    expect(rows.filter((r) => r.level === 'error').every((r) => r.severity === 'ERROR')).toBe(true);
    expect(rows.filter((r) => r.severity === 'LOG').every((r) => r.level === 'info')).toBe(true);
  });

  it('the custom pipeline’s attributes and level are on the records, searchable as HyperDX searches them', async () => {
    const rows = await running.ch.waitForRows<{ body: string; id: string; event: string; level: string; version: string }>(
      `SELECT Body AS body, LogAttributes['invoice.id'] AS id, LogAttributes['invoice.event'] AS event, SeverityText AS level, LogAttributes['shop.pipeline_version'] AS version
       FROM otel_logs WHERE ServiceName = 'shop' AND LogAttributes['load.seq'] = '' AND LogAttributes['invoice.id'] != '' ORDER BY body`,
      3,
      60_000,
    );
    expect(rows.map(({ body, ...r }) => ({ ...r, line: body.slice(body.indexOf('-- ') + 3) }))).toEqual([
      { id: '1', event: 'created', level: 'info', version: '1', line: 'invoice 1 created for acme' },
      { id: '1', event: 'found', level: 'info', version: '1', line: 'invoice 1 found' },
      { id: '42', event: 'not found', level: 'warn', version: '1', line: 'invoice 42 not found' },
    ]);
    const customer = await running.ch.query<{ n: string }>(`SELECT toString(count()) AS n FROM otel_logs WHERE LogAttributes['invoice.customer'] = 'acme'`);
    expect(customer).toEqual([{ n: '1' }]);
  });

  it('reloads on SIGHUP while batches keep coming: every batch answered 2xx, every record acknowledged is stored, the new pipeline applies after', async () => {
    const BATCH = 20;
    let stop = false;
    let acknowledged = 0;
    const refused: number[] = [];
    let batches = 0;
    const sender = (async () => {
      while (!stop) {
        const entries = Array.from({ length: BATCH }, (_, i) => entry(JAVA[(batches * BATCH + i) % JAVA.length] as string, 'shop', 'shop', { 'load.seq': String(batches * BATCH + i) }));
        const res = await post(entries.map((e) => ({ ...e, service: 'shop-reload' })));
        batches++;
        if (res.status === 202) acknowledged += BATCH;
        else refused.push(res.status);
      }
    })();
    expect(await eventually(async () => batches >= 5, 30_000)).toBe(true);
    migrateCustom('2');
    process.kill(running.stack.sidecarPid() as number, 'SIGHUP');
    expect(await eventually(async () => loads() === 2, 120_000)).toBe(true);
    const afterReload = batches;
    expect(await eventually(async () => batches >= afterReload + 5, 30_000)).toBe(true);
    stop = true;
    await sender;
    expect(refused).toEqual([]);
    const stored = await running.ch.waitForRows<{ version: string; n: string }>(
      `SELECT LogAttributes['shop.pipeline_version'] AS version, toString(count()) AS n FROM otel_logs WHERE LogAttributes['load.seq'] != '' GROUP BY version ORDER BY version`,
      2,
      60_000,
    );
    const total = async (): Promise<number> => Number((await running.ch.query<{ n: string }>(`SELECT toString(count()) AS n FROM otel_logs WHERE LogAttributes['load.seq'] != ''`))[0]?.n ?? 0);
    expect(await eventually(async () => (await total()) >= acknowledged, 60_000)).toBe(true);
    expect(await total()).toBe(acknowledged);
    expect(stored.map((s) => s.version)).toEqual(['1', '2']);
  }, 240_000);
});
