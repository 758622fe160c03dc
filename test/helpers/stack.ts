/**
 * A real stack for end-to-end tests: the collector built from the manifest (file-sink overlay by
 * default, or writing to a test ClickHouse through its persistent queue with `sink: 'clickhouse'`;
 * the auth overlay when a token is given) plus the sidecar as its own node process from dist/,
 * exactly as an operator runs it. Ports are picked free so test files can run in parallel.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { clickHouseSinkEnv, startCollector, type OverlayName, type RunningCollector } from '../../tools/src/collector/run';
import type { TestClickHouse } from './clickhouse';
import { freePort } from './ports';

export type StackOptions = FileSinkStack | ClickHouseStack;

/** The collector writes OTLP JSON files under `sinkDir` (the default). */
interface FileSinkStack extends CommonStackOptions {
  sink?: 'file';
}

/** The collector writes to this ClickHouse (ClickStack's tables, `create_schema`) through its persistent queue. */
interface ClickHouseStack extends CommonStackOptions {
  sink: 'clickhouse';
  clickhouse: Pick<TestClickHouse, 'tcpEndpoint' | 'credentials'>;
}

interface CommonStackOptions {
  authToken?: string;
  sidecarEnv?: Record<string, string>;
  /** Start the sidecar without a collector behind it. */
  collector?: boolean;
  /** Extra collector config files (merged last) and environment for the collector. */
  collectorConfigs?: string[];
  collectorEnv?: Record<string, string>;
  /** How the sidecar reaches the collector (default http://127.0.0.1:<port>); {port} is replaced. */
  otlpEndpoint?: string;
}

/** Settings for one collector start only (a rotated token, a config without a pipeline). */
export interface CollectorStart {
  env?: Record<string, string>;
  configs?: string[];
  /** Instead of collector/config.yaml: overlays cannot take a pipeline away, a fault's own base can. */
  baseConfig?: string;
}

export interface TestStack {
  intakeUrl: string;
  adminUrl: string;
  /** Where the file sink writes (empty with `sink: 'clickhouse'`). */
  sinkDir: string;
  /** The collector's persistent queue (file_storage) with `sink: 'clickhouse'`. */
  queueDir: string;
  /** The running collector's process id, for tests that kill it. */
  collectorPid(): number | undefined;
  /** The collector's OTLP/gRPC port, the one the sidecar sends to. */
  grpcPort: number;
  sidecarOutput(): string;
  sidecarPid(): number | undefined;
  /** False once the sidecar process has exited (or was never started). */
  sidecarRunning(): boolean;
  /** Sends the signal and resolves with the exit code once the process is gone. */
  stopSidecar(signal: NodeJS.Signals): Promise<number | null>;
  /** Starts the sidecar again on the same ports and settings (e.g. the same spool directory). */
  /** Starts the sidecar again, with `env` over the stack's sidecar environment (e.g. fewer workers). */
  restartSidecar(env?: Record<string, string>): Promise<void>;
  startCollector(start?: CollectorStart): Promise<void>;
  stopCollector(): Promise<void>;
  /** kill -9: no shutdown, no flush; resolves once the process is gone. */
  killCollector(): Promise<void>;
  stop(): Promise<void>;
}

const collectorBinary = (): string => {
  const binary = process.env.DD_BRIDGE_TEST_COLLECTOR;
  if (!binary) throw new Error('DD_BRIDGE_TEST_COLLECTOR is unset: jest globalSetup did not build the collector');
  return binary;
};

/** An HTTP health probe: true on a 2xx, false on anything else or no answer. */
export async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** Whether a process with this id exists (signal 0 checks without sending anything). */
export const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves true as soon as `check` does, false after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

export interface CollectorPorts {
  grpc: number;
  http: number;
  health: number;
  metrics: number;
}

/** The environment collector/config.yaml takes its loopback listen addresses from. */
export const collectorListenEnv = (p: CollectorPorts): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  OTLP_GRPC_ENDPOINT: `127.0.0.1:${p.grpc}`,
  OTLP_HTTP_ENDPOINT: `127.0.0.1:${p.http}`,
  COLLECTOR_HEALTH_ENDPOINT: `127.0.0.1:${p.health}`,
  COLLECTOR_METRICS_HOST: '127.0.0.1',
  COLLECTOR_METRICS_PORT: String(p.metrics),
});

/**
 * No table TTL: ClickHouse drops rows already past it at insert, and a captured client's
 * timestamps age past collector/config.yaml's default (DB_TTL 720h) 30 days after the capture.
 */
const NO_TTL = '0';

export async function startStack(options: StackOptions = {}): Promise<TestStack> {
  const [grpcPort, httpPort, healthPort, metricsPort, intakePort, adminPort] = await Promise.all(Array.from({ length: 6 }, freePort));
  const dir = mkdtempSync(join(tmpdir(), 'dd-otlp-bridge-e2e-'));
  const sinkDir = join(dir, 'sink');
  const queueDir = join(dir, 'queue');
  const collectorEnv: NodeJS.ProcessEnv = {
    ...collectorListenEnv({ grpc: grpcPort, http: httpPort, health: healthPort, metrics: metricsPort }),
    COLLECTOR_BATCH_TIMEOUT: '100ms',
    ...(options.sink === 'clickhouse' ? { ...clickHouseSinkEnv(options.clickhouse.tcpEndpoint, options.clickhouse.credentials.collector, queueDir), DB_TTL: NO_TTL } : { FILE_SINK_DIR: sinkDir, COLLECTOR_QUEUE_DIR: queueDir }),
    ...(options.authToken ? { OTLP_AUTH_TOKEN: options.authToken } : {}),
    ...options.collectorEnv,
  };
  const overlays: OverlayName[] = [...(options.authToken ? (['auth'] as const) : []), ...(options.sink === 'clickhouse' ? [] : (['fileSink'] as const))];
  let collector: RunningCollector | undefined;
  const launchCollector = async (start: CollectorStart = {}): Promise<void> => {
    collector = await startCollector({
      binary: collectorBinary(),
      overlays,
      env: { ...collectorEnv, ...start.env },
      healthUrl: `http://127.0.0.1:${healthPort}/`,
      logFile: join(dir, 'collector.log'),
      extraConfigs: [...(options.collectorConfigs ?? []), ...(start.configs ?? [])],
      ...(start.baseConfig ? { baseConfig: start.baseConfig } : {}),
    });
  };
  if (options.collector !== false) await launchCollector();

  let output = '';
  let sidecar: ChildProcess | undefined;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const launchSidecar = async (env: Record<string, string> = {}): Promise<void> => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        ENABLE_VENDOR_RECEIVER: 'true',
        DD_BRIDGE_LISTEN: `127.0.0.1:${intakePort}`,
        DD_BRIDGE_ADMIN_LISTEN: `127.0.0.1:${adminPort}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: (options.otlpEndpoint ?? 'http://127.0.0.1:{port}').replace('{port}', String(grpcPort)),
        DD_BRIDGE_EXPORT_RETRY_MAX_ELAPSED_MS: '1500',
        ...(options.authToken ? { OTLP_AUTH_TOKEN: options.authToken } : {}),
        ...options.sidecarEnv,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    sidecar = child;
    if (!(await eventually(() => healthy(`${adminUrl}/health`), 15_000))) throw new Error(`sidecar did not become healthy:\n${output}`);
  };
  const stopSidecar = async (signal: NodeJS.Signals): Promise<number | null> => {
    const child = sidecar;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill(signal);
    return exited;
  };
  await launchSidecar();

  return {
    intakeUrl: `http://127.0.0.1:${intakePort}`,
    adminUrl,
    sinkDir: options.sink === 'clickhouse' ? '' : sinkDir,
    queueDir,
    collectorPid: () => collector?.process.pid,
    grpcPort,
    sidecarOutput: () => output,
    sidecarPid: () => sidecar?.pid,
    sidecarRunning: () => sidecar !== undefined && sidecar.exitCode === null && sidecar.signalCode === null,
    stopSidecar,
    restartSidecar: launchSidecar,
    startCollector: launchCollector,
    async stopCollector() {
      await collector?.stop();
      collector = undefined;
    },
    async killCollector() {
      collector?.process.kill('SIGKILL');
      await collector?.stop();
      collector = undefined;
    },
    async stop() {
      await stopSidecar('SIGTERM');
      await collector?.stop();
    },
  };
}
