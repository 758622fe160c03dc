/**
 * The two systems under test, started the same way: "ours" is the sidecar (from dist/) plus our
 * stock collector, "upstream" is the reference collector with the upstream Datadog receiver. Each
 * is pinned to the same core set with taskset (Go's GOMAXPROCS set to match, since the runtime reads
 * the affinity only at start), and each reports the pids whose CPU and memory count as its cost.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCollector, REPO_ROOT } from '../tools/src/collector/build';
import { clickHouseSinkEnv, startCollector, type OverlayName, type RunningCollector } from '../tools/src/collector/run';
import type { TestClickHouse } from '../test/helpers/clickhouse';
import { startBenchClickHouse } from './destination';
import type { ClickHouseLogin } from '../tools/src/clickhouse/credentials';
import { createLogger } from '../src/core/observability/log';
import { freePort } from '../test/helpers/ports';
import { collectorListenEnv, eventually, healthy } from '../test/helpers/stack';

export type Side = 'ours' | 'upstream';
export const SIDES: readonly Side[] = ['ours', 'upstream'];

export const BENCH_DIR = __dirname;
export const REFERENCE_MANIFEST = join(BENCH_DIR, 'reference-builder.yaml');
const REFERENCE_CONFIG = join(BENCH_DIR, 'reference-config.yaml');
const DEBUG_SINK = join(BENCH_DIR, 'sink-debug.yaml');
const REFERENCE_FILE_SINK = join(BENCH_DIR, 'reference-sink-file.yaml');
/** The reference's receiver on top of collector/config.yaml: the end-to-end bench's upstream side. */
const REFERENCE_CLICKHOUSE = join(BENCH_DIR, 'reference-clickhouse.yaml');

/** The API key both sides are sent; ours is configured to require it, as a deployment would. */
export const BENCH_API_KEY = 'bench';

export interface SutOptions {
  /** taskset core list, e.g. "0" */
  cores: string;
  /**
   * debug exporter (throughput), OTLP JSON files in `sinkDir` (conformance), or a ClickHouse of the
   * side's own through collector/config.yaml's clickhouse exporter and disk queue (end to end)
   */
  sink: 'debug' | 'file' | 'clickhouse';
  sinkDir?: string;
  /** with sink 'clickhouse': the exporter's endpoint, its login and its queue's folder */
  clickhouse?: { tcpEndpoint: string; login: ClickHouseLogin; queueDir: string };
  /** extra sidecar environment (e.g. DD_BRIDGE_OTLP_COMPRESSION) */
  sidecarEnv?: Record<string, string>;
  /** node flags for the sidecar (e.g. --cpu-prof) */
  nodeArgs?: string[];
  /** the sidecar's entry point, when not this checkout's dist/ (bench/ab.ts compares two builds) */
  sidecarMain?: string;
  /** with `sink: 'clickhouse'`: keep its data folder after stop (bench/bytes.ts reads it then) */
  keepDestination?: boolean;
}

export interface RunningSut {
  side: Side;
  url: string;
  /** process name → pid, every process whose cost is this side's */
  pids: Record<string, number>;
  /**
   * Export calls to the collector that failed since the start (the sidecar retries them, so a
   * sender sees only the delay): what to look at first when a run's tail latency stands out.
   * The upstream receiver has no export step.
   */
  exportFailures?(): Promise<number>;
  /** Records the log pipelines applied to and ran past their budget on (ours only). */
  pipelineRecords?(): Promise<Record<string, number>>;
  /** with `sink: 'clickhouse'`: the side's own ClickHouse, its pid among `pids` */
  clickhouse?: TestClickHouse;
  stop(): Promise<void>;
}

const log = createLogger('warn', { component: 'bench' }, (line) => process.stderr.write(line + '\n'));

/** The reference collector is built from the Go module proxy like ours; see reference-builder.yaml. */
export async function binaries(): Promise<Record<Side, string>> {
  // this environment's checksum database has no entry for the contrib and DataDog modules
  process.env.GONOSUMDB ??= 'github.com/open-telemetry/opentelemetry-collector-contrib,github.com/DataDog';
  const [ours, upstream] = await Promise.all([ensureCollector(log), ensureCollector(log, { manifest: REFERENCE_MANIFEST })]);
  return { ours, upstream };
}

export const coreCount = (cores: string): number =>
  cores.split(',').reduce((n, part) => {
    const [lo, hi = lo] = part.split('-').map(Number) as [number, number?];
    return n + (hi as number) - lo + 1;
  }, 0);

/** Pins every thread of `pid` (existing ones; new ones inherit) to `cores`. */
export const pin = (pid: number, cores: string): void => void execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });

export async function collectorPorts(): Promise<{ env: NodeJS.ProcessEnv; grpc: number; health: number }> {
  const [grpc, http, health, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  return { grpc, health, env: { ...collectorListenEnv({ grpc, http, health, metrics }), COLLECTOR_BATCH_TIMEOUT: '200ms', COLLECTOR_LOG_LEVEL: 'warn' } };
}

/** Where a ClickHouse sink writes: the side's own server, or the one the caller gives (bench/production.ts). */
const clickHouseTarget = (o: SutOptions, dir: string, clickhouse?: TestClickHouse): SutOptions['clickhouse'] => (clickhouse ? { tcpEndpoint: clickhouse.tcpEndpoint, login: clickhouse.credentials.collector, queueDir: join(dir, 'queue') } : o.clickhouse);

/** What points the base's pipelines at the sink (collector/config.yaml: COLLECTOR_SINK, else ClickHouse). */
const sinkEnv = (o: SutOptions, target: SutOptions['clickhouse']): NodeJS.ProcessEnv => {
  if (o.sink === 'debug') return { COLLECTOR_SINK: 'debug' };
  if (o.sink === 'file') return { COLLECTOR_SINK: 'file' };
  return target ? { ...clickHouseSinkEnv(target.tcpEndpoint, target.login, target.queueDir), DB_TTL: NO_TTL } : {};
};

/** The config files on top of the base: the reference swaps its receiver in, its own base for the debug and file sinks. */
const layersFor = (o: SutOptions, reference: boolean): { overlays: OverlayName[]; extra: string[]; base?: string } => {
  if (o.sink === 'clickhouse') return { overlays: [], extra: reference ? [REFERENCE_CLICKHOUSE] : [] };
  if (o.sink === 'debug') return { overlays: [], extra: [DEBUG_SINK], ...(reference ? { base: REFERENCE_CONFIG } : {}) };
  return reference ? { overlays: [], extra: [REFERENCE_FILE_SINK], base: REFERENCE_CONFIG } : { overlays: ['fileSink'], extra: [] };
};

/**
 * The side's collector. With a ClickHouse sink both sides run collector/config.yaml (disk queue,
 * exporter batching), as a deployment does; the reference only adds its own receiver.
 */
export async function launchCollector(binary: string, o: SutOptions, env: NodeJS.ProcessEnv, health: number, reference: boolean, clickhouse?: TestClickHouse): Promise<RunningCollector> {
  const dir = o.sinkDir ?? mkdtempSync(join(tmpdir(), 'dd-bench-'));
  mkdirSync(dir, { recursive: true });
  const layers = layersFor(o, reference);
  const collector = await startCollector({
    binary,
    overlays: layers.overlays,
    extraConfigs: layers.extra,
    ...(layers.base ? { baseConfig: layers.base } : {}),
    env: { ...env, GOMAXPROCS: String(coreCount(o.cores)), FILE_SINK_DIR: dir, COLLECTOR_QUEUE_DIR: join(dir, 'queue'), ...sinkEnv(o, clickHouseTarget(o, dir, clickhouse)) },
    healthUrl: `http://127.0.0.1:${health}/`,
    logFile: join(dir, 'collector.log'),
  });
  pin(collector.process.pid as number, o.cores);
  return collector;
}

/** The bench's bodies carry a fixed wall time (scenarios.ts) that a table TTL would drop at insert. */
const NO_TTL = '0';

/** Stops the side's ClickHouse and, unless asked to keep it, removes its data. */
async function stopDestination(clickhouse: TestClickHouse | undefined, o: SutOptions): Promise<void> {
  await clickhouse?.stop();
  if (clickhouse && !o.keepDestination) rmSync(clickhouse.dataDir, { recursive: true, force: true });
}

/** With `sink: 'clickhouse'` and no server given, the side's own ClickHouse, pinned to its cores. */
const destinationFor = (o: SutOptions): Promise<TestClickHouse | undefined> => (o.sink === 'clickhouse' && !o.clickhouse ? startBenchClickHouse((pid) => pin(pid, o.cores)) : Promise.resolve(undefined));

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  return exited.finally(() => clearTimeout(timer));
}

export async function startOurs(binary: string, o: SutOptions): Promise<RunningSut> {
  const { env, grpc, health } = await collectorPorts();
  const clickhouse = await destinationFor(o);
  const collector = await launchCollector(binary, o, env, health, false, clickhouse);
  const [intake, admin] = await Promise.all([freePort(), freePort()]);
  let output = '';
  const sidecar = spawn('taskset', ['-c', o.cores, process.execPath, ...(o.nodeArgs ?? []), o.sidecarMain ?? join(REPO_ROOT, 'dist', 'cli', 'main.js')], {
    env: {
      PATH: process.env.PATH,
      ENABLE_VENDOR_RECEIVER: 'true',
      DD_BRIDGE_LISTEN: `127.0.0.1:${intake}`,
      DD_BRIDGE_ADMIN_LISTEN: `127.0.0.1:${admin}`,
      DD_BRIDGE_API_KEYS: BENCH_API_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${grpc}`,
      DD_BRIDGE_LOG_LEVEL: 'warn',
      ...o.sidecarEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  sidecar.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  sidecar.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  // the intake listens once the log pipelines (if any) are loaded, after the admin port's health
  if (!(await eventually(() => healthy(`http://127.0.0.1:${admin}/health`), 15_000)) || !(await eventually(() => listening(intake), 120_000))) {
    await Promise.all([stopChild(sidecar), collector.stop()]);
    await stopDestination(clickhouse, o);
    throw new Error(`sidecar did not become healthy:\n${output}`);
  }
  return {
    side: 'ours',
    url: `http://127.0.0.1:${intake}`,
    pids: { sidecar: sidecar.pid as number, collector: collector.process.pid as number, ...(clickhouse ? { clickhouse: clickhouse.pid() } : {}) },
    exportFailures: () => exportFailures(`http://127.0.0.1:${admin}/metrics`),
    pipelineRecords: () => pipelineRecords(`http://127.0.0.1:${admin}/metrics`),
    ...(clickhouse ? { clickhouse } : {}),
    async stop() {
      await stopChild(sidecar);
      await collector.stop();
      await stopDestination(clickhouse, o);
    },
  };
}

export async function startUpstream(binary: string, o: SutOptions): Promise<RunningSut> {
  const { env, health } = await collectorPorts();
  const intake = await freePort();
  const clickhouse = await destinationFor(o);
  const collector = await launchCollector(binary, o, { ...env, DD_RECEIVER_ENDPOINT: `127.0.0.1:${intake}` }, health, true, clickhouse);
  return {
    side: 'upstream',
    url: `http://127.0.0.1:${intake}`,
    pids: { collector: collector.process.pid as number, ...(clickhouse ? { clickhouse: clickhouse.pid() } : {}) },
    ...(clickhouse ? { clickhouse } : {}),
    async stop() {
      await collector.stop();
      await stopDestination(clickhouse, o);
    },
  };
}

/** Whether something accepts connections on this loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** The sidecar's ddbridge_log_pipeline_records_total by outcome (applied, over_budget); {} without pipelines. */
async function pipelineRecords(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^ddbridge_log_pipeline_records_total\{outcome="([^"]+)"\} (\S+)$/gm)) out[m[1] as string] = Number(m[2]);
  return out;
}

/** The sum of the sidecar's ddbridge_export_failures_total series. */
async function exportFailures(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('ddbridge_export_failures_total'))
    .reduce((n, line) => n + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

export const startSut = (side: Side, bins: Record<Side, string>, o: SutOptions): Promise<RunningSut> => (side === 'ours' ? startOurs(bins.ours, o) : startUpstream(bins.upstream, o));

// ---------------------------------------------------------------- /proc

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** user + system CPU seconds a process has used so far (its threads included). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the parenthesised command name, which may itself hold spaces
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Each process's CPU seconds used so far. */
export const cpuOf = (sut: Pick<RunningSut, 'pids'>): Record<string, number> => Object.fromEntries(Object.entries(sut.pids).map(([name, pid]) => [name, cpuSeconds(pid)]));

/** Peak resident set size (VmHWM) in MiB. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}
