/**
 * The real HyperDX API server for a test: FerretDB and `packages/api` of the HyperDX snapshot on
 * loopback ports, started as the snapshot's `yarn dev` starts the API (ts-node transpile-only with
 * tsconfig-paths on packages/api/src/index.ts), with our preload (./preload.js) bridging FerretDB's gaps. A user
 * registers as the UI's sign-up form does, and the personal access key `/api/v2` takes as Bearer is
 * read from `/me`, as the UI's Team settings page shows it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseLogin } from '../../tools/src/clickhouse/credentials';
import { freePort } from '../helpers/ports';
import { STACK_API_FIXTURES } from '../helpers/stack-cli';
import { ensureApiNode, ensureFerretDb, ensureHyperdxApi } from './setup';

export interface HyperdxApi {
  /** The API port's address: `/api/v2/…` hangs off it. */
  baseUrl: string;
  /** The registered user's personal API access key. */
  apiKey: string;
  /** What the API and FerretDB wrote so far (for a failing test's message). */
  logs: () => string;
  stop: () => Promise<void>;
}

const READY_TIMEOUT_MS = 120_000;

interface Child {
  process: ChildProcess;
  output: string[];
}

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Child {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer): void => {
    output.push(chunk.toString());
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { process: child, output };
}

const exited = (child: ChildProcess): Promise<void> => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve())));

async function stopChild(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited(child);
  clearTimeout(killer);
}

/** Polls until `probe` holds, the child dies, or the time is up. */
async function until(what: string, child: Child, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`${what} exited with ${child.process.exitCode}:\n${child.output.join('').slice(-4000)}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready after ${READY_TIMEOUT_MS / 1000} s:\n${child.output.join('').slice(-4000)}`);
}

const answers = (url: string): Promise<boolean> => fetch(url, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok);

/** The UI's sign-up (the first user creates the team), then `/me` with its session cookie. */
async function registerUser(baseUrl: string): Promise<string> {
  // HyperDX's password rule: 12+ characters with upper and lower case, a digit and a symbol
  const password = `Bridge-${randomBytes(6).toString('hex')}-9`;
  const registered = await fetch(`${baseUrl}/register/password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ci@dd-otlp-bridge.test', password, confirmPassword: password }),
  });
  if (registered.status !== 200) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const cookie = registered.headers.getSetCookie().find((c) => c.startsWith('connect.sid='));
  if (!cookie) throw new Error('register: no session cookie');
  const me = await fetch(`${baseUrl}/me`, { headers: { cookie: cookie.split(';')[0]! } });
  const { accessKey } = (await me.json()) as { accessKey?: string };
  if (typeof accessKey !== 'string') throw new Error(`/me: ${me.status} without an accessKey`);
  return accessKey;
}

export async function startHyperdxApi(): Promise<HyperdxApi> {
  const node = ensureApiNode();
  const ferretdb = ensureFerretDb();
  const apiDir = join(ensureHyperdxApi(), 'packages', 'api');
  const state = mkdtempSync(join(tmpdir(), 'ddb-hyperdx-api-'));
  const [mongoPort, apiPort, opampPort] = [await freePort(), await freePort(), await freePort()];
  const db = start(ferretdb, ['--handler=sqlite', `--sqlite-url=file:${state}/`, `--state-dir=${state}`, `--listen-addr=127.0.0.1:${mongoPort}`, '--debug-addr=-', '--telemetry=disable', '--log-level=warn'], { cwd: state, env: {} });
  const children = [db];
  const stop = async (): Promise<void> => {
    for (const child of children.reverse()) await stopChild(child.process);
    rmSync(state, { recursive: true, force: true });
  };
  try {
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const api = start(node, ['--require', join(__dirname, 'preload.js'), '--require', 'ts-node/register/transpile-only', '--require', 'tsconfig-paths/register', './src/index.ts'], {
      cwd: apiDir,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        USAGE_STATS_ENABLED: 'false',
        MONGO_URI: `mongodb://127.0.0.1:${mongoPort}/hyperdx`,
        PORT: String(apiPort),
        OPAMP_PORT: String(opampPort),
        EXPRESS_SESSION_SECRET: randomBytes(16).toString('hex'),
        FRONTEND_URL: 'http://127.0.0.1:8080',
      },
    });
    children.push(api);
    await until('the HyperDX API', api, () => answers(`${baseUrl}/health`));
    const apiKey = await registerUser(baseUrl);
    return { baseUrl, apiKey, logs: () => children.map((c) => c.output.join('')).join('\n'), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface Created {
  id: string;
  [field: string]: unknown;
}

/** Setup calls an operator would make in the UI or with curl; the CLIs do not cover them. */
async function apiPost(api: HyperdxApi, path: string, body: unknown): Promise<Created> {
  const res = await fetch(`${api.baseUrl}/api/v2${path}`, { method: 'POST', headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return (JSON.parse(text) as { data: Created }).data;
}

/** A ClickHouse HyperDX's connection points at, and the read-only login it uses. */
export interface ClickHouseTarget {
  url: string;
  login: ClickHouseLogin;
}

/** Where the connection points when a suite runs no ClickHouse (nothing queries it): the stack's default address (`npm run stack`). */
const UNQUERIED_CLICKHOUSE: ClickHouseTarget = { url: 'http://127.0.0.1:8123', login: { user: 'reader', password: 'unused' } };

/** test/fixtures/stack-api/sources.json's sources, created over a connection to ClickHouse; fixture id → server id. */
async function createSources(api: HyperdxApi, clickhouse: ClickHouseTarget): Promise<Map<string, string>> {
  const connection = await apiPost(api, '/connections', { name: 'Local ClickHouse', host: clickhouse.url, username: clickhouse.login.user, password: clickhouse.login.password });
  const ids = new Map<string, string>();
  const sources = JSON.parse(readFileSync(join(STACK_API_FIXTURES, 'sources.json'), 'utf8')) as Record<string, unknown>[];
  for (const { id, traceSourceId: _t, logSourceId: _l, ...source } of sources) {
    ids.set(id as string, (await apiPost(api, '/sources', { ...source, connection: connection.id })).id);
  }
  return ids;
}

export interface SeededApi {
  api: HyperdxApi;
  /** fixture source id → server id */
  sourceIds: Map<string, string>;
  /** a generic webhook named "ops" */
  webhookId: string;
}

/**
 * The server with what an operator sets up first: the fixture's sources (over a connection to
 * `clickhouse`) and a webhook.
 */
export async function startSeededHyperdxApi(clickhouse = UNQUERIED_CLICKHOUSE): Promise<SeededApi> {
  const api = await startHyperdxApi();
  try {
    const sourceIds = await createSources(api, clickhouse);
    const webhookId = (await apiPost(api, '/webhooks', { name: 'ops', service: 'generic', url: 'https://hooks.example.com/alert' })).id;
    return { api, sourceIds, webhookId };
  } catch (err) {
    await api.stop();
    throw err;
  }
}

/**
 * A suite's server: started (and seeded) before its first test, stopped after its last. The
 * returned object is filled in by then. `clickhouse` is read when the server starts (a
 * ClickHouse started by an earlier `beforeAll` of the suite is running by then).
 */
export function seededApiForSuite(clickhouse?: () => ClickHouseTarget): SeededApi {
  const seeded = {} as SeededApi;
  beforeAll(async () => {
    Object.assign(seeded, await startSeededHyperdxApi(clickhouse?.()));
  }, 180_000);
  afterAll(async () => {
    await seeded.api?.stop();
  });
  return seeded;
}
