/**
 * `dd-otlp-bridge stack`: the whole thing locally. Builds (or reuses) the collector from
 * otelcol-builder.yaml, starts it with the overlays the environment asks for (a file sink under
 * .cache/sink when DB_ENDPOINT is unset), then the sidecar with intake enabled.
 */
import { join } from 'node:path';
import { REPO_ROOT, ensureCollector } from '../tools/collector/build';
import { extraConfigsFrom, overlaysFor, startCollector } from '../tools/collector/run';
import { loadConfig, type ParsedArgs } from '../config';
import type { Logger } from '../core/observability/log';
import { startSidecar } from './sidecar';
import { onShutdown } from './shutdown';

export async function stackCommand(args: ParsedArgs, log: Logger): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ENABLE_VENDOR_RECEIVER: 'true',
    FILE_SINK_DIR: join(REPO_ROOT, '.cache', 'sink'),
    COLLECTOR_BATCH_TIMEOUT: '1s',
    ...process.env,
  };
  const binary = await ensureCollector(log);
  const overlays = overlaysFor(env);
  const healthPort = (env.COLLECTOR_HEALTH_ENDPOINT ?? '0.0.0.0:13133').split(':').pop();
  const collector = await startCollector({
    binary,
    overlays,
    env,
    healthUrl: `http://127.0.0.1:${healthPort}/`,
    extraConfigs: extraConfigsFrom(env),
    logFile: join(REPO_ROOT, '.cache', 'stack', 'collector.log'),
  });
  log.info('collector running', { overlays, log: collector.logFile, ...(env.DB_ENDPOINT ? { db: env.DB_ENDPOINT } : { sink: env.FILE_SINK_DIR }) });
  const sidecar = await startSidecar(loadConfig(args, env), log);
  collector.process.on('exit', (code) => {
    log.error('collector exited; stopping', { code, log: collector.logFile });
    void sidecar.stop().then(() => process.exit(1));
  });
  onShutdown(log, async () => {
    await sidecar.stop();
    await collector.stop();
  });
  return -1;
}
