/**
 * The embedded ClickHouse (tools/src/clickhouse/): a real server from the chdb-core venv that keeps
 * its data across restarts (also a data folder of the former layout), stops without leaving a
 * process, goes away with a killed parent, and names what to install when Python is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { clickHouseQuery, startTestClickHouse, TEST_CLICKHOUSE_HOME, type TestClickHouse } from '../helpers/clickhouse';
import { freePort } from '../helpers/ports';
import { eventually, processAlive as alive } from '../helpers/stack';

describe('embedded ClickHouse launcher', () => {
  let ch: TestClickHouse;
  beforeAll(async () => {
    ch = await startTestClickHouse();
  });
  afterAll(async () => ch?.stop());

  it('is a real ClickHouse 26 answering on loopback over HTTP with {name:Type} parameters', async () => {
    const [row] = await ch.query<{ v: string; n: number }>('SELECT version() AS v, {n:UInt8} + 1 AS n', { n: 41 });
    expect(row?.v).toMatch(/^26\./);
    expect(row?.n).toBe(42);
    expect(ch.httpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ch.tcpEndpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+\?dial_timeout=10s$/);
  });

  it('keeps rows across a restart on the same data directory, and a stop leaves no process', async () => {
    // as the collector: the one user that creates tables (otel_*, MergeTree)
    await clickHouseQuery(ch.httpUrl, ch.credentials.collector, 'CREATE TABLE otel_kept (id String, n UInt32) ENGINE = MergeTree ORDER BY id');
    await clickHouseQuery(ch.httpUrl, ch.credentials.collector, "INSERT INTO otel_kept VALUES ('a', 1), ('b', 2)");
    const before = ch.pid();
    await ch.restart();
    expect(alive(before)).toBe(false);
    expect(ch.pid()).not.toBe(before);
    expect(await ch.query('SELECT id, n FROM otel_kept ORDER BY id')).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    const running = ch.pid();
    await ch.stop();
    expect(alive(running)).toBe(false);
    // a clean stop is no error: ClickHouse's note that the holding query was cancelled stays out of the log
    expect(readFileSync(`${ch.dataDir}.log`, 'utf8')).not.toMatch(/QUERY_WAS_CANCELLED/);
    await ch.restart();
    expect(await ch.waitForRows('SELECT id FROM otel_kept', 2, 5000)).toHaveLength(2);
  });

  it("adopts a data folder made before clickhouse-local's own database was renamed: its default tables stay", async () => {
    // what the former layout had: the overlay's Atomic part linked metadata/default into store/
    // but wrote no metadata/default.sql
    await ch.stop();
    rmSync(join(ch.dataDir, 'metadata', 'default.sql'));
    expect(lstatSync(join(ch.dataDir, 'metadata', 'default')).isSymbolicLink()).toBe(true);
    await ch.restart();
    expect(await ch.query('SELECT id FROM otel_kept ORDER BY id')).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(await ch.query("SELECT engine FROM system.databases WHERE name = 'default'")).toEqual([{ engine: 'Atomic' }]);
  });

  it('exits when the process that started it is killed (no orphan)', async () => {
    const [httpPort, tcpPort] = await Promise.all([freePort(), freePort()]);
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-bridge-clickhouse-orphan-'));
    const script = `
      require(${JSON.stringify(join(REPO_ROOT, 'tools', 'register.js'))});
      const { startClickHouse } = require(${JSON.stringify(join(REPO_ROOT, 'tools', 'src', 'clickhouse', 'launcher.ts'))});
      startClickHouse(${JSON.stringify({ home: TEST_CLICKHOUSE_HOME, dataDir, httpPort, tcpPort })}).then((ch) => console.log('pid ' + ch.pid));
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    parent.stdout.on('data', (d: Buffer) => (output += d.toString()));
    expect(await eventually(async () => /pid \d+/.test(output), 30_000)).toBe(true);
    const pid = Number(/pid (\d+)/.exec(output)![1]);
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    expect(await eventually(async () => !alive(pid), 20_000)).toBe(true);
  });

  it('without python3 on PATH, says what to install', () => {
    const home = mkdtempSync(join(tmpdir(), 'dd-bridge-clickhouse-nopython-'));
    const script = `
      require(${JSON.stringify(join(REPO_ROOT, 'tools', 'register.js'))});
      require(${JSON.stringify(join(REPO_ROOT, 'tools', 'src', 'clickhouse', 'launcher.ts'))})
        .ensureClickHouseVenv(${JSON.stringify(home)})
        .then(() => console.log('made'), (err) => { console.log(err.message); process.exit(3); });`;
    const result = spawnSync(process.execPath, ['-e', script], { env: { PATH: join(home, 'no-such-bin') }, encoding: 'utf8' });
    expect(result.status).toBe(3);
    expect(result.stdout).toMatch(/python3 not found: the embedded ClickHouse needs Python 3 with venv and pip: install python3, python3-venv and python3-pip/);
  });
});
