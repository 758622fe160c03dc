/**
 * `dd-otlp-bridge stack`: the whole thing locally. Without DB_ENDPOINT it starts an embedded
 * ClickHouse (src/tools/clickhouse/), then builds (or reuses) the collector from
 * otelcol-builder.yaml and starts it writing there through its persistent queue, then the sidecar
 * with intake enabled; `--sink file` writes OTLP JSON files under .cache/sink instead. All of it
 * stops together: on SIGTERM/SIGINT, when one part dies, and (by the parent-death signal and
 * server.py's parent check) when this process is killed.
 */
import { join } from 'node:path';
import { REPO_ROOT, ensureCollector } from '../tools/collector/build';
import { DEFAULT_CLICKHOUSE_HOME, startClickHouse, type RunningClickHouse } from '../tools/clickhouse/launcher';
import { clickHouseSinkEnv, extraConfigsFrom, overlaysFor, startCollector } from '../tools/collector/run';
import { loadConfig, type Config, type ParsedArgs } from '../config';
import type { Logger } from '../core/observability/log';
import { serveUi } from './hyperdx';
import { serve } from './serve';
import { onShutdown } from './shutdown';

const STACK_CACHE = join(REPO_ROOT, '.cache', 'stack');

/** What a user types to see the newest logs: single quotes only, so the JSON log line shows it unescaped. */
export const logsQueryCurl = (httpUrl: string): string => `curl ${httpUrl}/ --data-binary 'SELECT Timestamp, ServiceName, SeverityText, Body FROM otel_logs ORDER BY Timestamp DESC LIMIT 10 FORMAT PrettyCompact'`;

async function startEmbeddedClickHouse(config: Config, log: Logger): Promise<RunningClickHouse> {
  const home = config.clickhouseHome ?? DEFAULT_CLICKHOUSE_HOME;
  return startClickHouse({ home, dataDir: join(home, 'data'), httpPort: config.clickhouseHttpPort, tcpPort: config.clickhouseTcpPort, log });
}

/** Where the collector writes, for the start-up log: how to look at the data. */
function destinationFields(env: NodeJS.ProcessEnv, clickhouse: RunningClickHouse | undefined): Record<string, string> {
  if (clickhouse) return { clickhouse: clickhouse.httpUrl, query: logsQueryCurl(clickhouse.httpUrl), hyperdx: `connect HyperDX to ${clickhouse.httpUrl} (user default, no password)` };
  return env.DB_ENDPOINT ? { db: env.DB_ENDPOINT } : { sink: env.FILE_SINK_DIR ?? '' };
}

export async function stackCommand(args: ParsedArgs, log: Logger): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ENABLE_VENDOR_RECEIVER: 'true',
    FILE_SINK_DIR: join(REPO_ROOT, '.cache', 'sink'),
    COLLECTOR_BATCH_TIMEOUT: '1s',
    ...process.env,
  };
  const config = loadConfig(args, env);
  if (config.stackSink === 'file') delete env.DB_ENDPOINT;
  const binary = await ensureCollector(log);
  const clickhouse = config.stackSink === 'clickhouse' && !env.DB_ENDPOINT ? await startEmbeddedClickHouse(config, log) : undefined;
  if (clickhouse) Object.assign(env, clickHouseSinkEnv(clickhouse.tcpEndpoint, env.COLLECTOR_QUEUE_DIR ?? join(STACK_CACHE, 'collector-queue')));
  else env.COLLECTOR_QUEUE_DIR ??= join(STACK_CACHE, 'collector-queue');

  const overlays = overlaysFor(env);
  const healthPort = (env.COLLECTOR_HEALTH_ENDPOINT ?? '0.0.0.0:13133').split(':').pop();
  const collector = await startCollector({
    binary,
    overlays,
    env,
    healthUrl: `http://127.0.0.1:${healthPort}/`,
    extraConfigs: extraConfigsFrom(env),
    logFile: join(STACK_CACHE, 'collector.log'),
    stopWithParent: true,
  }).catch(async (err: unknown) => {
    await clickhouse?.stop();
    throw err;
  });
  log.info('collector running', { overlays, pid: collector.process.pid, log: collector.logFile, ...destinationFields(env, clickhouse) });
  const stopSidecar = await serve(config, log).catch(async (err: unknown) => {
    await collector.stop();
    await clickhouse?.stop();
    throw err;
  });

  const hyperdx = config.ui
    ? await serveUi(config, log, clickhouse?.httpUrl).catch(async (err: unknown) => {
        await stopSidecar();
        await collector.stop();
        await clickhouse?.stop();
        throw err;
      })
    : undefined;

  let stopping: Promise<void> | undefined;
  const stopAll = (): Promise<void> =>
    (stopping ??= (async () => {
      await hyperdx?.stop();
      await stopSidecar();
      await collector.stop();
      await clickhouse?.stop();
    })());
  const failed = (what: string, fields: Record<string, unknown>) => (code: number | null) => {
    if (stopping) return;
    log.error(`${what} exited; stopping`, { code, ...fields });
    void stopAll().then(() => process.exit(1));
  };
  collector.process.on('exit', failed('collector', { log: collector.logFile }));
  clickhouse?.exited.then(failed('ClickHouse', { log: clickhouse.logFile }));
  onShutdown(log, stopAll);
  return -1;
}
