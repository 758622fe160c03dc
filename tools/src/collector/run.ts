/**
 * Runs a built collector as a child process and waits until its health_check extension says it
 * is ready, so callers never race the collector's start-up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import type { ClickHouseLogin } from '../clickhouse/credentials';
import { REPO_ROOT } from './build';

export const BASE_CONFIG = join(REPO_ROOT, 'collector', 'config.yaml');
export const OVERLAYS = {
  auth: join(REPO_ROOT, 'collector', 'overlays', 'auth.yaml'),
  fileSink: join(REPO_ROOT, 'collector', 'overlays', 'file-sink.yaml'),
  datadog: join(REPO_ROOT, 'collector', 'overlays', 'datadog.yaml'),
  cluster: join(REPO_ROOT, 'collector', 'overlays', 'cluster.yaml'),
} as const;
export type OverlayName = keyof typeof OVERLAYS;

/**
 * The collector joins the lists of extensions, receivers and exporters of its --config files
 * instead of replacing them, so an overlay only adds to the base (collector/config.yaml). The image's
 * entrypoint passes the same flag.
 */
export const MERGE_APPEND = '--feature-gates=confmap.enableMergeAppendOption';

/**
 * Which overlays the environment asks for: auth with a token, file sink without a DB; with one,
 * Datadog when keyed and asked.
 */
export function overlaysFor(env: NodeJS.ProcessEnv): OverlayName[] {
  const overlays: OverlayName[] = [];
  if (env.OTLP_AUTH_TOKEN) overlays.push('auth');
  if (!env.DB_ENDPOINT) return [...overlays, 'fileSink'];
  if (env.COLLECTOR_DATADOG_FANOUT === 'true') overlays.push('datadog');
  return overlays;
}

/** The file sink's exporter is what the base's pipelines export to once COLLECTOR_SINK names it. */
export const collectorEnvFor = (overlays: readonly OverlayName[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => (overlays.includes('fileSink') ? { COLLECTOR_SINK: 'file', ...env } : env);

/**
 * The collector's environment for writing to a ClickHouse that the exporter sets up itself
 * (create_schema): the endpoint and its login, the queue's folder, and the exponential-histogram
 * table under the name HyperDX's metrics auto-detection looks for (see collector/config.yaml).
 */
export const clickHouseSinkEnv = (tcpEndpoint: string, login: ClickHouseLogin, queueDir: string): NodeJS.ProcessEnv => ({
  DB_ENDPOINT: tcpEndpoint,
  DB_USER: login.user,
  DB_PASSWORD: login.password,
  COLLECTOR_QUEUE_DIR: queueDir,
  DB_EXP_HISTOGRAM_TABLE: 'otel_metrics_exp_histogram',
});

/** The collector's arguments before any subcommand: merge-append, the base, the overlays, then the extra files. */
export const configArgs = (overlays: readonly OverlayName[], extra: readonly string[] = [], base = BASE_CONFIG): string[] => [MERGE_APPEND, ...[base, ...overlays.map((o) => OVERLAYS[o]), ...extra].flatMap((c) => ['--config', c])];

/** COLLECTOR_EXTRA_CONFIG: comma-separated config files merged last (like ClickStack's CUSTOM_OTELCOL_CONFIG_FILE). */
export const extraConfigsFrom = (env: NodeJS.ProcessEnv): string[] =>
  (env.COLLECTOR_EXTRA_CONFIG ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');

export interface RunningCollector {
  process: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

export interface RunOptions {
  binary: string;
  overlays: readonly OverlayName[];
  /** Merged after the overlays (the benchmark's sinks, COLLECTOR_EXTRA_CONFIG, test TLS). */
  extraConfigs?: readonly string[];
  /** Instead of collector/config.yaml (the benchmark's reference collector). */
  baseConfig?: string;
  env: NodeJS.ProcessEnv;
  healthUrl: string;
  logFile: string;
  /** Show the collector's output on our stdout too (the interactive stack). */
  echo?: boolean;
  /** Have the kernel send the collector SIGTERM when this process dies, even by kill -9 (the interactive stack). */
  stopWithParent?: boolean;
  readyTimeoutMs?: number;
}

/** True when `url` answers 200 within a second. */
export const probe = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const req = request(url, { timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });

const SETPRIV = '/usr/bin/setpriv';

/**
 * util-linux's setpriv sets the parent-death signal and execs the collector in its place (same
 * pid); it is kept across exec. Without setpriv the collector runs as is and outlives a killed parent.
 */
export const withParentDeathSignal = (binary: string, args: string[], wanted: boolean): [string, string[]] => (wanted && existsSync(SETPRIV) ? [SETPRIV, ['--pdeathsig', 'TERM', '--', binary, ...args]] : [binary, args]);

export async function startCollector(options: RunOptions): Promise<RunningCollector> {
  mkdirSync(dirname(options.logFile), { recursive: true });
  // the file exporter opens its files at start-up and does not create their folder
  if (options.overlays.includes('fileSink')) mkdirSync(options.env.FILE_SINK_DIR ?? join(process.cwd(), '.cache', 'sink'), { recursive: true });
  const out = createWriteStream(options.logFile, { flags: 'a' });
  const [command, args] = withParentDeathSignal(options.binary, configArgs(options.overlays, options.extraConfigs, options.baseConfig), options.stopWithParent === true);
  // its own process group with stopWithParent: a terminal's Ctrl-C then reaches only us, and we
  // stop the parts in order (the sidecar drains into the collector before the collector stops)
  const child = spawn(command, args, { env: collectorEnvFor(options.overlays, options.env), stdio: ['ignore', 'pipe', 'pipe'], detached: options.stopWithParent === true });
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipe(out, { end: false });
    if (options.echo) stream.pipe(process.stdout, { end: false });
  }
  const stop = await superviseChild(child, () => probe(options.healthUrl), {
    what: 'collector',
    notReady: `collector not healthy at ${options.healthUrl} in time`,
    logFile: options.logFile,
    out,
    readyTimeoutMs: options.readyTimeoutMs,
  });
  return { process: child, logFile: options.logFile, stop };
}

export interface SuperviseOptions {
  /** Names the child in errors. */
  what: string;
  /** The error when `ready` never says so in time. */
  notReady: string;
  logFile: string;
  /** The child's log stream, ended by stop(). */
  out: WriteStream;
  readyTimeoutMs?: number | undefined;
  /** after SIGTERM, how long the child gets before SIGKILL (default 10 s) */
  killAfterMs?: number;
}

/**
 * Polls `ready` until the child is up; a child that exits first, or is not ready in time (then it
 * is killed), rejects, naming its log. Resolves with its stop: SIGTERM, then SIGKILL after 10 s.
 */
export async function superviseChild(child: ChildProcess, ready: () => Promise<boolean>, options: SuperviseOptions): Promise<() => Promise<void>> {
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (!(await ready())) {
    if (exited !== undefined) throw new Error(`${options.what} exited with ${exited} during start-up; see ${options.logFile}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.notReady}; see ${options.logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 10_000);
      await exit;
      clearTimeout(timer);
    }
    options.out.end();
  };
}

export interface ConfigCommandResult {
  ok: boolean;
  /** stdout and stderr together */
  output: string;
  /** stdout alone: print-config's YAML */
  stdout: string;
}

/** `otelcol <command>` (validate, print-config) on the base config plus the given overlays and extra files. */
export function collectorConfigCommand(binary: string, command: 'validate' | 'print-config', overlays: readonly OverlayName[], env: NodeJS.ProcessEnv, extra: readonly string[] = []): Promise<ConfigCommandResult> {
  const [gate, ...configs] = configArgs(overlays, extra);
  return new Promise((resolve) => {
    const child = spawn(binary, [gate as string, command, ...(command === 'print-config' ? ['--mode', 'unredacted'] : []), ...configs], { env: collectorEnvFor(overlays, env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ ok: code === 0, output, stdout }));
  });
}

export const validateConfig = (binary: string, overlays: readonly OverlayName[], env: NodeJS.ProcessEnv): Promise<ConfigCommandResult> => collectorConfigCommand(binary, 'validate', overlays, env);

export const overlayExists = (name: OverlayName): boolean => existsSync(OVERLAYS[name]);
