/**
 * `dd-otlp-bridge-tools stack`: the whole thing locally. Without DB_ENDPOINT it starts an embedded
 * ClickHouse (tools/src/clickhouse/), then builds (or reuses) the collector from
 * collector/builder.yaml and starts it writing there through its persistent queue, then the built
 * sidecar (dist/, as the image runs it) with intake enabled; `--sink file` writes OTLP JSON files
 * under .cache/sink instead. All of it stops together, in reverse order: on SIGTERM/SIGINT, when
 * one part dies, and (by the parent-death signal and server.py's parent check) when this process
 * is killed.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { acceptedKeys, helpRows, loadTable, OPTIONS, parseArgsFor, type Config, type ParsedArgs } from '../../../src/config';
import { createLogger, type Logger } from '../../../src/core/observability/log';
import { onShutdown } from '../../../src/cli/shutdown';
import { uiOriginsFor } from '../clickhouse/config';
import { DEFAULT_CLICKHOUSE_HOME, startClickHouse, type RunningClickHouse } from '../clickhouse/launcher';
import { REPO_ROOT, ensureCollector } from '../collector/build';
import { clickHouseSinkEnv, extraConfigsFrom, overlaysFor, startCollector } from '../collector/run';
import { serveUi } from '../hyperdx/command';
import { STACK_OPTIONS, type StackConfig } from './options';
import { startSidecarProcess } from './sidecar-process';

const STACK_CACHE = join(REPO_ROOT, '.cache', 'stack');

/**
 * What a user types to see the newest logs, as the read-only user: curl takes the login from the
 * netrc file, so the line carries no password. Single quotes only, so the JSON log line shows it
 * unescaped.
 */
export const logsQueryCurl = (httpUrl: string, netrc: string): string => `curl --netrc-file ${netrc} ${httpUrl}/ --data-binary 'SELECT Timestamp, ServiceName, SeverityText, Body FROM otel_logs ORDER BY Timestamp DESC LIMIT 10 FORMAT PrettyCompact'`;

export const STACK_HELP = [
  'Usage: dd-otlp-bridge-tools stack [stack options] [sidecar options]',
  '',
  'ClickHouse (DB_ENDPOINT, else an embedded one), the collector and the sidecar, intake on; Ctrl-C stops all of them.',
  'Every sidecar option (dd-otlp-bridge --help) is accepted too and handed to the sidecar.',
  '',
  'Stack options (flag > environment > --config file > default):',
  ...helpRows(STACK_OPTIONS),
  '',
].join('\n');

/** A started part of the stack, stopped in reverse order of starting. */
interface Part {
  name: string;
  stop(): Promise<void>;
}

/** The sidecar's own flags among the stack's arguments, handed on as they were given. */
const sidecarFlags = (args: ParsedArgs): string[] => {
  const own = new Set(OPTIONS.map((o) => o.flag));
  return [...args.flags].filter(([flag]) => own.has(flag) || flag === '--config').map(([flag, value]) => `${flag}=${value}`);
};

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');

/**
 * The token the collector requires: OTLP_AUTH_TOKEN when set; one made for this run when the
 * sidecar checks keys (its agents' keys then guard the only way in) — the sidecar sends it, nothing
 * else knows it. None on a loopback-only stack without keys. A collector open to the network
 * without a token is refused.
 */
function collectorToken(stack: StackConfig, sidecar: Config, env: NodeJS.ProcessEnv): { token?: string; generated: boolean } {
  if (env.OTLP_AUTH_TOKEN) return { token: env.OTLP_AUTH_TOKEN, generated: false };
  if (!isLoopback(stack.collectorHost)) throw new Error(`--collector-host ${stack.collectorHost} opens the collector's ports beyond this host: set OTLP_AUTH_TOKEN so that it requires a token`);
  return acceptedKeys(sidecar).length > 0 ? { token: randomBytes(24).toString('base64url'), generated: true } : { generated: false };
}

/** The collector's listen addresses, as collector/config.yaml reads them. */
const collectorListenEnv = (stack: StackConfig): NodeJS.ProcessEnv => ({
  OTLP_GRPC_ENDPOINT: `${stack.collectorHost}:${stack.collectorGrpcPort}`,
  OTLP_HTTP_ENDPOINT: `${stack.collectorHost}:${stack.collectorHttpPort}`,
  COLLECTOR_HEALTH_ENDPOINT: `${stack.collectorHost}:${stack.collectorHealthPort}`,
  COLLECTOR_METRICS_HOST: stack.collectorHost,
  COLLECTOR_METRICS_PORT: String(stack.collectorMetricsPort),
});

/** Browsers may query it only from the UI this stack serves (`--ui`), from no page at all otherwise. */
async function startEmbeddedClickHouse(stack: StackConfig, log: Logger): Promise<RunningClickHouse> {
  const home = stack.clickhouseHome ?? DEFAULT_CLICKHOUSE_HOME;
  return startClickHouse({ home, dataDir: join(home, 'data'), httpPort: stack.clickhouseHttpPort, tcpPort: stack.clickhouseTcpPort, log, uiOrigins: stack.ui ? uiOriginsFor(stack.uiPort) : [] });
}

/** Where the collector writes, for the start-up log: how to look at the data (where the passwords are, never the passwords). */
function destinationFields(env: NodeJS.ProcessEnv, clickhouse: RunningClickHouse | undefined): Record<string, string> {
  if (clickhouse) {
    const { credentials } = clickhouse;
    return {
      clickhouse: clickhouse.httpUrl,
      query: logsQueryCurl(clickhouse.httpUrl, credentials.netrc),
      credentials: `${credentials.file} (users ${credentials.reader.user}: read-only, ${credentials.collector.user}: the collector's writes)`,
    };
  }
  return env.DB_ENDPOINT ? { db: env.DB_ENDPOINT } : { sink: env.FILE_SINK_DIR ?? '' };
}

export async function stackCommand(argv: readonly string[], processEnv: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgsFor([...OPTIONS, ...STACK_OPTIONS], argv);
  if (args.help) {
    process.stdout.write(STACK_HELP);
    return 0;
  }
  const env: NodeJS.ProcessEnv = { ENABLE_VENDOR_RECEIVER: 'true', FILE_SINK_DIR: join(REPO_ROOT, '.cache', 'sink'), COLLECTOR_BATCH_TIMEOUT: '1s', ...processEnv };
  const stack = loadTable(STACK_OPTIONS, args, env);
  const sidecar = loadTable(OPTIONS, args, env);
  const log = createLogger(sidecar.logLevel, { component: 'dd-otlp-bridge-tools stack' });
  const token = collectorToken(stack, sidecar, env);
  if (stack.sink === 'file') delete env.DB_ENDPOINT;

  const parts: Part[] = [];
  let stopping: Promise<void> | undefined;
  const stopAll = (): Promise<void> =>
    (stopping ??= (async () => {
      for (const part of [...parts].reverse()) {
        await part.stop();
        log.info(`${part.name} stopped`);
      }
      log.info('stack stopped');
    })());
  const failed = (what: string, fields: Record<string, unknown>) => (code: number | null) => {
    if (stopping) return;
    log.error(`${what} exited; stopping`, { code, ...fields });
    void stopAll().then(() => process.exit(1));
  };

  try {
    const binary = await ensureCollector(log);
    const clickhouse = stack.sink === 'clickhouse' && !env.DB_ENDPOINT ? await startEmbeddedClickHouse(stack, log) : undefined;
    env.COLLECTOR_QUEUE_DIR ??= join(STACK_CACHE, 'collector-queue');
    if (clickhouse) {
      parts.push({ name: 'ClickHouse', stop: () => clickhouse.stop() });
      clickhouse.exited.then(failed('ClickHouse', { log: clickhouse.logFile }));
    }
    // the collector's login goes to the collector only, not into the sidecar's environment
    const sinkEnv = clickhouse ? clickHouseSinkEnv(clickhouse.tcpEndpoint, clickhouse.credentials.collector, env.COLLECTOR_QUEUE_DIR) : {};
    const collectorEnv: NodeJS.ProcessEnv = { ...env, ...sinkEnv, ...collectorListenEnv(stack), ...(token.token ? { OTLP_AUTH_TOKEN: token.token } : {}) };
    const overlays = overlaysFor(collectorEnv);
    const collector = await startCollector({
      binary,
      overlays,
      env: collectorEnv,
      healthUrl: `http://${isLoopback(stack.collectorHost) ? stack.collectorHost : '127.0.0.1'}:${stack.collectorHealthPort}/`,
      extraConfigs: extraConfigsFrom(env),
      logFile: join(STACK_CACHE, 'collector.log'),
      stopWithParent: true,
    });
    parts.push({ name: 'collector', stop: () => collector.stop() });
    collector.process.on('exit', failed('collector', { log: collector.logFile }));
    log.info('collector running', {
      overlays,
      pid: collector.process.pid,
      log: collector.logFile,
      listen: stack.collectorHost,
      auth: token.token ? (token.generated ? 'a token made for this run' : 'OTLP_AUTH_TOKEN') : 'none (loopback only)',
      ...destinationFields(env, clickhouse),
    });

    const sidecarEnv: NodeJS.ProcessEnv = {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? `http://127.0.0.1:${stack.collectorGrpcPort}`,
      // a made token goes to the collector only as a header: it must not become a key agents may send
      ...(token.generated ? { OTEL_EXPORTER_OTLP_HEADERS: [env.OTEL_EXPORTER_OTLP_HEADERS, `authorization=${token.token}`].filter(Boolean).join(',') } : {}),
    };
    const sidecarProcess = await startSidecarProcess({ args: ['serve', ...sidecarFlags(args)], env: sidecarEnv, admin: sidecar.adminListen, logFile: join(STACK_CACHE, 'sidecar.log'), graceMs: sidecar.shutdownGraceMs });
    parts.push({ name: 'sidecar', stop: () => sidecarProcess.stop() });
    log.info('sidecar running', { pid: sidecarProcess.process.pid, log: sidecarProcess.logFile });
    sidecarProcess.process.on('exit', failed('sidecar', { log: sidecarProcess.logFile }));

    if (stack.ui) {
      const hyperdx = await serveUi(stack, log, clickhouse && { url: clickhouse.httpUrl, ...clickhouse.credentials.reader });
      parts.push({ name: 'HyperDX', stop: () => hyperdx.stop() });
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  onShutdown(log, stopAll);
  return -1;
}
