/**
 * `dd-otlp-bridge stack` as a user runs it: without DB_ENDPOINT it starts the embedded ClickHouse,
 * the collector on it and the sidecar, prints the curl line that shows the data, and stops all
 * three on SIGTERM and when it is killed; `--sink file` starts no ClickHouse. Ports, ClickHouse
 * home and collector queue are the test's own; the ClickHouse venv is the shared one (linked).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureClickHouseCredentials } from '../../tools/src/clickhouse/credentials';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { clickHouseQuery, TEST_CLICKHOUSE_HOME } from '../helpers/clickhouse';
import { freePort } from '../helpers/ports';
import { eventually, processAlive as alive } from '../helpers/stack';

jest.setTimeout(120_000);

interface StackRun {
  child: ChildProcess;
  output(): string;
  intakeUrl: string;
  clickhouseUrl: string;
  /** The stack's --clickhouse-home. */
  home: string;
  dir: string;
  /** The pid a start-up log line names (`msg` is matched as a substring). */
  pidOf(msg: string): number;
}

const logLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The sidecar's "Datadog intake listening" line: the stack is serving. */
const serving = (output: string): boolean => output.split('\n').some((l) => l.endsWith('}') && l.includes('"msg":"Datadog intake listening"'));

async function startStackCommand(extraArgs: string[] = []): Promise<StackRun> {
  const [grpc, http, health, metrics, intake, admin, chHttp, chTcp] = await Promise.all(Array.from({ length: 8 }, freePort));
  const dir = mkdtempSync(join(tmpdir(), 'dd-bridge-stack-cmd-'));
  const home = join(dir, 'clickhouse');
  mkdirSync(home);
  symlinkSync(join(TEST_CLICKHOUSE_HOME, 'venv'), join(home, 'venv'));
  const collector = process.env.DD_BRIDGE_TEST_COLLECTOR ?? '';
  const child = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'tools', 'bin', 'dd-otlp-bridge-tools.js'),
      'stack',
      '--clickhouse-http-port',
      String(chHttp),
      '--clickhouse-tcp-port',
      String(chTcp),
      '--clickhouse-home',
      home,
      '--collector-grpc-port',
      String(grpc),
      '--collector-http-port',
      String(http),
      '--collector-health-port',
      String(health),
      '--collector-metrics-port',
      String(metrics),
      ...extraArgs,
    ],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DD_BRIDGE_COLLECTOR_CACHE: dirname(dirname(collector)),
        DD_BRIDGE_LISTEN: `127.0.0.1:${intake}`,
        DD_BRIDGE_ADMIN_LISTEN: `127.0.0.1:${admin}`,
        COLLECTOR_QUEUE_DIR: join(dir, 'queue'),
        FILE_SINK_DIR: join(dir, 'sink'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const listening = await eventually(async () => serving(output) || child.exitCode !== null, 90_000);
  if (!listening || child.exitCode !== null) throw new Error(`stack did not start:\n${output}`);
  return {
    child,
    output: () => output,
    intakeUrl: `http://127.0.0.1:${intake}`,
    clickhouseUrl: `http://127.0.0.1:${chHttp}`,
    home,
    dir,
    pidOf: (msg) => Number(logLines(output).find((l) => String(l.msg).includes(msg))?.pid),
  };
}

const exitOf = (child: ChildProcess): Promise<number | null> => (child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code))));

describe('dd-otlp-bridge stack on the embedded ClickHouse', () => {
  it('prints where the passwords are and a curl that reads them, a sent log sits in otel_logs, SIGTERM stops all three', async () => {
    const stack = await startStackCommand();
    const ready = logLines(stack.output()).find((l) => l.msg === 'collector running')!;
    const netrc = join(stack.home, 'reader.netrc');
    expect(ready.query).toBe(`curl --netrc-file ${netrc} ${stack.clickhouseUrl}/ --data-binary 'SELECT Timestamp, ServiceName, SeverityText, Body FROM otel_logs ORDER BY Timestamp DESC LIMIT 10 FORMAT PrettyCompact'`);
    expect(ready.credentials).toContain(join(stack.home, 'credentials.json'));
    for (const file of ['credentials.json', 'reader.netrc']) expect((statSync(join(stack.home, file)).mode & 0o777).toString(8)).toBe('600');
    const { reader, collector } = ensureClickHouseCredentials(stack.home);
    const clickhousePid = stack.pidOf('ClickHouse ready');
    const collectorPid = stack.pidOf('collector running');
    expect(alive(clickhousePid) && alive(collectorPid)).toBe(true);

    const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([{ message: 'hello from the stack test', service: 'stack-test', status: 'warn' }]) });
    expect(res.status).toBe(202);
    const seen = await eventually(async () => {
      try {
        return (await clickHouseQuery(stack.clickhouseUrl, reader, "SELECT Body FROM otel_logs WHERE ServiceName = 'stack-test' AND SeverityText = 'warn'")).length === 1;
      } catch {
        return false;
      }
    }, 30_000);
    expect(seen).toBe(true);
    // the printed line, as a user pastes it
    expect(execFileSync('sh', ['-c', String(ready.query)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })).toContain('hello from the stack test');
    expect(stack.output()).not.toContain(reader.password);
    expect(stack.output()).not.toContain(collector.password);

    const sidecarPid = stack.pidOf('sidecar running');
    stack.child.kill('SIGTERM');
    expect(await exitOf(stack.child)).toBe(0);
    expect(alive(clickhousePid)).toBe(false);
    expect(alive(collectorPid)).toBe(false);
    expect(alive(sidecarPid)).toBe(false);
    // each part says it stopped, in reverse order of starting, then the stack
    const stopped = logLines(stack.output())
      .filter((l) => l.component === 'dd-otlp-bridge-tools stack' && String(l.msg).endsWith(' stopped'))
      .map((l) => l.msg);
    expect(stopped).toEqual(['sidecar stopped', 'collector stopped', 'ClickHouse stopped', 'stack stopped']);
  });

  it('kill -9 of the stack leaves neither ClickHouse nor the collector running', async () => {
    const stack = await startStackCommand();
    const pids = [stack.pidOf('ClickHouse ready'), stack.pidOf('collector running')];
    expect(pids.every(alive)).toBe(true);
    stack.child.kill('SIGKILL');
    expect(await eventually(async () => !pids.some(alive), 30_000)).toBe(true);
  });

  it('--sink file starts no ClickHouse and writes the file sink', async () => {
    const stack = await startStackCommand(['--sink', 'file']);
    expect(stack.output()).not.toMatch(/ClickHouse ready/);
    const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([{ message: 'to the file sink', service: 'stack-test' }]) });
    expect(res.status).toBe(202);
    const sink = join(stack.dir, 'sink', 'otlp.jsonl');
    expect(await eventually(async () => existsSync(sink) && readFileSync(sink, 'utf8').includes('to the file sink'), 30_000)).toBe(true);
    stack.child.kill('SIGTERM');
    expect(await exitOf(stack.child)).toBe(0);
  });
});
