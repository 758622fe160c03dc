/**
 * A real ClickHouse server on this machine without Docker: ClickHouse 26.9 from the PyPI wheel
 * `chdb-core`, installed into a venv under the ClickHouse home and run in clickhouse-local's
 * server mode by server.py beside this file. Loopback only; every login needs a password
 * (credentials.ts, kept in the home); browsers may query it only from the UI origins given
 * (config.ts). The data directory is kept across restarts.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { Logger } from '../../../src/core/observability/log';
import { REPO_ROOT } from '../collector/build';
import { configXml, usersXml } from './config';
import { type ClickHouseCredentials, ensureClickHouseCredentials, newPassword, sha256Hex } from './credentials';

export const CHDB_PACKAGE = 'chdb-core==26.9.0';
export const SERVER_SCRIPT = join(REPO_ROOT, 'tools', 'src', 'clickhouse', 'server.py');
/** Venv, data and logs of the embedded ClickHouse unless --clickhouse-home says otherwise (src/config/options.ts). */
export const DEFAULT_CLICKHOUSE_HOME = join(REPO_ROOT, '.cache', 'clickhouse');

const INSTALL_HINT = 'the embedded ClickHouse needs Python 3 with venv and pip: install python3, python3-venv and python3-pip (Debian/Ubuntu: apt-get install python3 python3-venv python3-pip)';
const READY_TIMEOUT_MS = 60_000;
const STOP_DEADLINE_MS = 20_000;

export class ClickHouseSetupError extends Error {
  override name = 'ClickHouseSetupError';
}

interface Run {
  code: number | null;
  output: string;
  /** Set when the command could not be started at all (ENOENT: not installed). */
  spawnError?: Error;
}

function runCommand(cmd: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => resolve({ code: null, output, spawnError: err }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

const tail = (text: string, lines = 15): string => text.trim().split('\n').slice(-lines).join('\n');
const venvPython = (venv: string): string => join(venv, 'bin', 'python');
/** Written last: a venv without it is half-made (interrupted install) and is made again. */
const MARKER = 'dd-otlp-bridge-installed';
const venvReady = (marker: string): boolean => existsSync(marker) && readFileSync(marker, 'utf8').trim() === CHDB_PACKAGE;

/**
 * The venv at `<home>/venv` with the pinned chdb-core, made once. Built in a temporary folder and
 * renamed into place, so two processes making it at once both end with one complete venv. Returns
 * the venv's python.
 */
export async function ensureClickHouseVenv(home: string, log?: Logger): Promise<string> {
  const venv = join(home, 'venv');
  const marker = join(venv, MARKER);
  if (venvReady(marker)) return venvPython(venv);
  const python = 'python3';
  const probe = await runCommand(python, ['-c', 'import venv, ensurepip']);
  if (probe.spawnError) throw new ClickHouseSetupError(`${python} not found: ${INSTALL_HINT}`);
  if (probe.code !== 0) throw new ClickHouseSetupError(`${python} lacks the venv module or ensurepip: ${INSTALL_HINT}\n${tail(probe.output, 3)}`);

  mkdirSync(home, { recursive: true });
  const building = mkdtempSync(join(home, 'venv.building-'));
  try {
    log?.info('creating the ClickHouse venv (once; downloads a 181 MB wheel)', { venv, package: CHDB_PACKAGE });
    const made = await runCommand(python, ['-m', 'venv', building]);
    if (made.code !== 0) throw new ClickHouseSetupError(`${python} -m venv failed: ${INSTALL_HINT}\n${tail(made.output)}`);
    // chdb-core's dependencies (pandas, pyarrow) serve only its DataFrame API, which server.py never uses
    const pip = await runCommand(venvPython(building), ['-m', 'pip', 'install', '--no-deps', '--disable-pip-version-check', CHDB_PACKAGE]);
    if (pip.code !== 0) throw new ClickHouseSetupError(`pip install ${CHDB_PACKAGE} failed (is PyPI or a mirror reachable? pip reads PIP_INDEX_URL):\n${tail(pip.output)}`);
    writeFileSync(join(building, MARKER), `${CHDB_PACKAGE}\n`);
    // another process may have put its complete venv there meanwhile: that one is in use, keep it
    if (!venvReady(marker)) {
      rmSync(venv, { recursive: true, force: true });
      renameSync(building, venv);
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  log?.info('ClickHouse venv ready', { venv });
  return venvPython(venv);
}

export interface ClickHouseOptions {
  home: string;
  dataDir: string;
  httpPort: number;
  tcpPort: number;
  log?: Logger;
  /** The server's own output (default `<home>/logs/clickhouse-<httpPort>.log`). */
  logFile?: string;
  /** Browser origins that may query over HTTP (the HyperDX UI the stack serves); none by default. */
  uiOrigins?: readonly string[];
}

export interface RunningClickHouse {
  /** http://127.0.0.1:PORT: curl, HyperDX and the tests query here. */
  httpUrl: string;
  /** What the collector's clickhouse exporter takes as its endpoint. */
  tcpEndpoint: string;
  pid: number;
  logFile: string;
  /** The reader's and the collector's logins, from the home. */
  credentials: ClickHouseCredentials;
  /** What confines the server: `landlock ABI <n>`, or `none: <why>` (then file() reads any file this user can). */
  sandbox: string;
  /** Resolves with the exit code when the server exits, asked to or not. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * One request on its own connection, closed after the reply: clickhouse-local waits up to 5 s for
 * open client connections before it exits, so a pooled keep-alive socket would slow every stop.
 * Resolves with the status, or 0 when nothing answered.
 */
const requestOnce = (url: string, method: 'GET' | 'POST', auth?: string): Promise<number> =>
  new Promise((resolve) => {
    const req = request(url, { method, agent: false, timeout: 5000, ...(auth ? { auth } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });

const pinged = async (httpUrl: string): Promise<boolean> => (await requestOnce(`${httpUrl}/ping`, 'GET')) === 200;

/**
 * Only what Python and ClickHouse need: the server can read its own /proc/self/environ (file()),
 * so the stack's tokens and keys stay out of it.
 */
const serverEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => Object.fromEntries(['PATH', 'LANG', 'LC_ALL', 'TZ'].filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));

/** config.xml and users.xml for server.py, in its run folder (made private by mkdtemp). */
function writeServerConfig(runDir: string, options: ClickHouseOptions, credentials: ClickHouseCredentials, controlPassword: string): void {
  const owner = { mode: 0o600 };
  writeFileSync(join(runDir, 'config.xml'), configXml({ httpPort: options.httpPort, tcpPort: options.tcpPort, uiOrigins: options.uiOrigins ?? [] }), owner);
  writeFileSync(join(runDir, 'users.xml'), usersXml({ reader: sha256Hex(credentials.reader.password), collector: sha256Hex(credentials.collector.password), control: sha256Hex(controlPassword) }), owner);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Starts the server and resolves once it answers `/ping`. */
export async function startClickHouse(options: ClickHouseOptions): Promise<RunningClickHouse> {
  const { home, dataDir, httpPort, tcpPort, log } = options;
  // a server already on the port would answer our readiness probe in our server's place
  for (const [what, port] of [
    ['HTTP', httpPort],
    ['native', tcpPort],
  ] as const) {
    if (!(await portFree(port))) throw new ClickHouseSetupError(`ClickHouse ${what} port 127.0.0.1:${port} is in use (another ClickHouse or stack running?); choose another port`);
  }
  const python = await ensureClickHouseVenv(home, log);
  mkdirSync(dataDir, { recursive: true });
  const logFile = options.logFile ?? join(home, 'logs', `clickhouse-${httpPort}.log`);
  mkdirSync(dirname(logFile), { recursive: true });
  const runDir = mkdtempSync(join(home, 'run-'));
  const credentials = ensureClickHouseCredentials(home);
  // made per start and known only to this process and server.py: what stops the server
  const controlPassword = newPassword();
  writeServerConfig(runDir, options, credentials, controlPassword);
  const out = createWriteStream(logFile, { flags: 'a' });
  // its own process group: a terminal's Ctrl-C must not stop it before the collector has drained
  // into it; server.py stops it when this process dies
  const child = spawn(python, [SERVER_SCRIPT, '--data-dir', dataDir, '--run-dir', runDir, '--http-port', String(httpPort), '--tcp-port', String(tcpPort)], { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: serverEnv(process.env) });
  child.stdin.end(`${controlPassword}\n`);
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      rmSync(runDir, { recursive: true, force: true });
      resolve(exitCode);
    }),
  );
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await pinged(httpUrl))) {
    if (exitCode !== undefined) {
      out.end();
      throw new ClickHouseSetupError(`ClickHouse exited with ${exitCode} during start-up; see ${logFile}:\n${tail(readFileSync(logFile, 'utf8'), 5)}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      out.end();
      throw new ClickHouseSetupError(`ClickHouse did not answer ${httpUrl}/ping in ${READY_TIMEOUT_MS / 1000} s; see ${logFile}`);
    }
    await sleep(100);
  }
  const sandbox = readFileSync(join(runDir, 'sandbox'), 'utf8').trim();
  log?.info('ClickHouse ready', { http: httpUrl, native: `127.0.0.1:${tcpPort}`, data: dataDir, pid: child.pid, log: logFile, credentials: credentials.file, sandbox });
  if (sandbox.startsWith('none')) log?.warn('ClickHouse runs without a sandbox: file() and the Template format reach any file this user can read', { sandbox });

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    if (exitCode === undefined) {
      // server.py ends its holding query (KILL QUERY, as `control`) and leaves ClickHouse's note of
      // that cancellation out of the log: the normal stop. clickhouse-local then closes its
      // listeners, lets client connections drain for up to 5 s, flushes and exits.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
      await exited;
      clearTimeout(timer);
    }
    out.end();
  };
  return {
    httpUrl,
    tcpEndpoint: `tcp://127.0.0.1:${tcpPort}?dial_timeout=10s`,
    pid: child.pid ?? -1,
    logFile,
    credentials,
    sandbox,
    exited,
    stop() {
      stopping ??= stop();
      return stopping;
    },
  };
}
