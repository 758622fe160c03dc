/**
 * `dd-otlp-bridge-tools hyperdx build|path|serve` and the UI of `stack --ui`: the HyperDX UI in
 * local mode, built from a hyperdxio/hyperdx source (tools/src/hyperdx/). Its settings are the
 * `--ui*` options of the stack's table (tools/src/stack/options.ts).
 */
import { join } from 'node:path';
import type { StackConfig } from '../stack/options';
import type { Logger } from '../../../src/core/observability/log';
import { REPO_ROOT } from '../collector/build';
import { ensureHyperdx, hyperdxBuildPath } from './build';
import { type ClickHouseForUi, EXP_HISTOGRAM_TABLE, startHyperdx, type RunningHyperdx } from './serve';

/** Builds (or reuses) and serves HyperDX, connected to `clickhouse` when given; logs its URL (never the password). */
export async function serveUi(config: Pick<StackConfig, 'uiSource' | 'uiPort'>, log: Logger, clickhouse?: Omit<ClickHouseForUi, 'expHistogramTable'>): Promise<RunningHyperdx> {
  const build = await ensureHyperdx(log, { source: config.uiSource });
  const running = await startHyperdx({ build, port: config.uiPort, logFile: join(REPO_ROOT, '.cache', 'stack', 'hyperdx.log'), ...(clickhouse ? { clickhouse: { ...clickhouse, expHistogramTable: EXP_HISTOGRAM_TABLE } } : {}) });
  log.info(`HyperDX UI at ${running.url}`, { url: running.url, ...(clickhouse ? { clickhouse: clickhouse.url, user: clickhouse.user } : { connect: 'fill in the connection form with your ClickHouse HTTP URL' }) });
  return running;
}

export const HYPERDX_USAGE = `usage: dd-otlp-bridge-tools hyperdx build|path|serve [--ui-source PATH|TARBALL] [--ui-port PORT]
  build   build HyperDX in local mode (cached by source hash under DD_BRIDGE_HYPERDX_CACHE,
          default ~/.cache/dd-otlp-bridge/hyperdx) and print the app's folder
  path    print the cache folder for the source, and "(not built)" when it is not
  serve   build if needed, then serve it on 127.0.0.1:--ui-port with its connection form, for a
          ClickHouse of your own (the embedded one of \`stack\` answers only the UI that
          \`stack --ui\` serves)
`;

export async function hyperdxCommand(args: readonly string[], config: StackConfig, log: Logger, onStop: (stop: () => Promise<void>) => void): Promise<number> {
  const [sub] = args;
  if (sub === 'build') {
    process.stdout.write(`${(await ensureHyperdx(log, { source: config.uiSource })).appDir}\n`);
    return 0;
  }
  if (sub === 'path') {
    const { dir, built } = hyperdxBuildPath({ source: config.uiSource });
    process.stdout.write(`${dir}${built ? '' : ' (not built)'}\n`);
    return 0;
  }
  if (sub === 'serve') {
    const running = await serveUi(config, log);
    onStop(() => running.stop());
    return -1;
  }
  process.stderr.write(HYPERDX_USAGE);
  return 2;
}
