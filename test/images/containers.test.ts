/**
 * The two images as users run them (issue 35, item 2): the collector image and the sidecar image
 * with their default commands, on a network of their own with the ClickHouse stand-in
 * (test/images/clickhouse/), only the variables a deployment sets. Judged in ClickHouse: the captured
 * Datadog exporter's log, trace and series land as HyperDX reads them; a kill -9 of the collector
 * container under load loses no acknowledged record. Also: both run as non-root, the queue sits on
 * a volume, both health checks pass, ENABLE_VENDOR_RECEIVER=false closes the intake and /health
 * says so, and SIGTERM stops both within their grace. Figures go to stderr as `[images]` lines.
 */
import { clickHouseQuery } from '../helpers/clickhouse';
import { startAgentLoad } from '../helpers/agent-load';
import { expectNothingLostInClickHouse } from '../helpers/delivery';
import { FAULT_SECONDS, sleep } from '../helpers/timing';
import { CLICKHOUSE_IMAGE, COLLECTOR_IMAGE, SIDECAR_IMAGE } from './build';
import { createNetwork, createVolume, eventually, runContainer, type Container } from './containers';
import { EXPECTED, landedInClickHouse, sendCaptured } from './landed';

const TOKEN = 'images-test-token';
const DB_PASSWORD = 'images-test-password';
const LOGIN = { user: 'otel', password: DB_PASSWORD };
/** The sidecar's drain (DD_BRIDGE_SHUTDOWN_GRACE_MS default) plus headroom; compose and Kubernetes give more. */
const GRACE_SECONDS = 30;

jest.setTimeout(300_000);

describe('the images, run as deployed', () => {
  const cleanup: (() => Promise<void>)[] = [];
  let clickhouse: Container;
  let collector: Container;
  let sidecar: Container;
  let httpUrl: string;
  let networkName: string;
  const query = <T = Record<string, unknown>>(sql: string, params?: Record<string, string | number>): Promise<T[]> => clickHouseQuery<T>(httpUrl, LOGIN, sql, params);
  const intake = (path: string) => `http://127.0.0.1:${sidecar.port(8126)}${path}`;

  beforeAll(async () => {
    const network = await createNetwork();
    networkName = network.name;
    const queue = await createVolume('ddb-queue');
    const data = await createVolume('ddb-clickhouse');
    cleanup.push(network.remove, queue.remove, data.remove);
    clickhouse = await runContainer({ image: CLICKHOUSE_IMAGE, network: network.name, alias: 'clickhouse', env: { CLICKHOUSE_USER: 'otel', CLICKHOUSE_PASSWORD: DB_PASSWORD }, publish: [8123], volumes: [`${data.name}:/var/lib/clickhouse`] });
    cleanup.unshift(clickhouse.remove);
    httpUrl = `http://127.0.0.1:${clickhouse.port(8123)}`;
    expect(await eventually(async () => (await query('SELECT 1')).length === 1, 60_000)).toBe(true);
    collector = await runContainer({
      image: COLLECTOR_IMAGE,
      network: network.name,
      alias: 'collector',
      env: { DB_ENDPOINT: 'tcp://clickhouse:9000?dial_timeout=10s', DB_USER: 'otel', DB_PASSWORD, OTLP_AUTH_TOKEN: TOKEN, DB_TTL: '0', COLLECTOR_BATCH_TIMEOUT: '500ms' },
      volumes: [`${queue.name}:/var/lib/otelcol/queue`],
    });
    cleanup.unshift(collector.remove);
    expect(await eventually(() => collector.healthy(), 60_000)).toBe(true);
    sidecar = await runContainer({
      image: SIDECAR_IMAGE,
      network: network.name,
      alias: 'bridge',
      env: { ENABLE_VENDOR_RECEIVER: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_COMPRESSION: 'none', OTLP_AUTH_TOKEN: TOKEN },
      publish: [8126, 9126],
    });
    cleanup.unshift(sidecar.remove);
    expect(await eventually(() => sidecar.healthy(), 60_000)).toBe(true);
  });

  afterAll(async () => {
    for (const step of cleanup) await step().catch(() => undefined);
  });

  it('both run as non-root users, and both health checks pass', async () => {
    expect((await collector.exec(['id', '-u'])).trim()).toBe('10001');
    expect((await sidecar.exec(['id', '-u'])).trim()).toBe('1000');
    expect(await collector.healthy()).toBe(true);
    expect(await sidecar.healthy()).toBe(true);
  });

  it("the captured Datadog exporter's log, trace and series land in ClickHouse as HyperDX reads them", async () => {
    expect(await sendCaptured(`http://127.0.0.1:${sidecar.port(8126)}`, TOKEN)).toEqual([]);
    expect(await landedInClickHouse(query, 60_000)).toEqual(EXPECTED);
  });

  it('the queue sits on the volume', async () => {
    const mountinfo = await collector.exec(['cat', '/proc/self/mountinfo']);
    expect(mountinfo).toMatch(/^(\S+ ){4}\/var\/lib\/otelcol\/queue rw[ ,]/m);
    expect((await collector.exec(['ls', '/var/lib/otelcol/queue'])).trim()).toMatch(/exporter_clickhouse/);
  });

  it('kill -9 of the collector container under load loses no acknowledged record', async () => {
    const run = `images-kill-${Date.now()}`;
    const load = startAgentLoad({ url: intake(''), agents: 4, batchSize: 20, pauseMs: 50, durationMs: Math.max(6_000, FAULT_SECONDS * 1000), run, headers: { 'DD-API-KEY': TOKEN } });
    try {
      await sleep(2_000);
      await collector.kill('KILL');
      await sleep(1_000);
      await collector.start();
      await load.done;
    } finally {
      load.cancel();
    }
    expect(await eventually(() => collector.healthy(), 60_000)).toBe(true);
    const d = await expectNothingLostInClickHouse('images collector kill -9', { query }, run, load.result, 120_000);
    const requests = [...load.result.statuses.values()].reduce((a, b) => a + b, load.result.networkErrors);
    // the load resends a batch until it is accepted: every record sent was acknowledged in the end
    process.stderr.write(
      `[images] collector kill -9: requests=${requests} (${[...load.result.statuses].map(([k, v]) => `${k}:${v}`).join(' ')} network-errors:${load.result.networkErrors}) acknowledged=${d.acknowledged} in-clickhouse=${d.delivered} lost=${d.lost.length} duplicates=${d.duplicates}\n`,
    );
  });

  it('ENABLE_VENDOR_RECEIVER=false closes the intake, and /health says so and stays 200', async () => {
    const disabled = await runContainer({ image: SIDECAR_IMAGE, network: networkName, alias: 'bridge-off', env: { ENABLE_VENDOR_RECEIVER: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTLP_AUTH_TOKEN: TOKEN }, publish: [8126, 9126] });
    cleanup.unshift(disabled.remove);
    expect(await eventually(() => disabled.healthy(), 60_000)).toBe(true);
    const health = await fetch(`http://127.0.0.1:${disabled.port(9126)}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toMatch(/disabled/);
    const posted = await fetch(`http://127.0.0.1:${disabled.port(8126)}/api/v2/logs`, { method: 'POST', body: '[]', headers: { 'DD-API-KEY': TOKEN, 'Content-Type': 'application/json' } }).then(
      (r) => `status ${r.status}`,
      () => 'refused',
    );
    process.stderr.write(`[images] intake with ENABLE_VENDOR_RECEIVER=false: ${posted}\n`);
    expect(posted).not.toMatch(/status 2\d\d/);
  });

  it('SIGTERM stops both within their grace (the sidecar first, as the orchestrators do)', async () => {
    const bridge = await sidecar.stop(GRACE_SECONDS);
    const col = await collector.stop(GRACE_SECONDS);
    process.stderr.write(`[images] SIGTERM: sidecar exited ${bridge.exitCode} after ${bridge.seconds.toFixed(1)} s, collector exited ${col.exitCode} after ${col.seconds.toFixed(1)} s (grace ${GRACE_SECONDS} s)\n`);
    // 137 would be the SIGKILL at the end of the grace
    expect(bridge.exitCode).not.toBe(137);
    expect(col.exitCode).not.toBe(137);
    expect(bridge.seconds).toBeLessThan(GRACE_SECONDS);
    expect(col.seconds).toBeLessThan(GRACE_SECONDS);
  });
});
