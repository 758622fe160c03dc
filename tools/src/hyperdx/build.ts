/**
 * Builds the HyperDX app in local mode (NEXT_PUBLIC_IS_LOCAL_MODE=true: no API server, no
 * MongoDB; the browser keeps the ClickHouse connection and sources and queries ClickHouse over
 * HTTP). Cached under <cacheRoot>/<source hash>/: an unchanged source builds once, a new one
 * once more. The steps are the repository's own: `yarn install` with the yarn release it ships,
 * then common-utils, then the app's `next build`. Everything runs offline except the npm
 * registry (packages, the Node it needs, the fonts); telemetry is off.
 */
import { buildOnce, step } from '../build-cache';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parse } from 'yaml';
import type { Logger } from '../../../src/core/observability/log';
import { run } from '../collector/build';
import { appGoogleFonts, fetchFontsource, fontEnv } from './fonts';
import { ensureNode } from './node';
import { ensureSource, resolveSource, sourceHash, unpackSource } from './source';

export const DEFAULT_HYPERDX_CACHE = process.env.DD_BRIDGE_HYPERDX_CACHE ?? join(homedir(), '.cache', 'dd-otlp-bridge', 'hyperdx');

export interface HyperdxBuildOptions {
  /** A hyperdxio/hyperdx clone or .tar.gz; see resolveSource for the default. */
  source?: string;
  cacheRoot?: string;
}

export interface HyperdxBuild {
  /** The source tree with its node_modules and the built app. */
  root: string;
  appDir: string;
  /** The folder of the `node` binary it was built with (and must be served with). */
  nodeBin: string;
}

/** Written last: a build without it is incomplete and is redone. */
const MARKER = 'built.json';

const telemetryOff: NodeJS.ProcessEnv = { NEXT_TELEMETRY_DISABLED: '1', YARN_ENABLE_TELEMETRY: '0', DO_NOT_TRACK: '1' };

/** The yarn release the repository pins in .yarnrc.yml (shipped in .yarn/releases: no download). */
function yarnOf(root: string): string {
  const rc = parse(readFileSync(join(root, '.yarnrc.yml'), 'utf8')) as { yarnPath?: unknown } | null;
  if (typeof rc?.yarnPath !== 'string') throw new Error(`${join(root, '.yarnrc.yml')}: no yarnPath; is this a hyperdxio/hyperdx tree?`);
  return join(root, rc.yarnPath);
}

/** The environment of every build step: our Node first on PATH (yarn runs scripts with `node`). */
export const buildEnv = (nodeBin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  ...telemetryOff,
  PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`,
  NEXT_PUBLIC_IS_LOCAL_MODE: 'true',
  ...extra,
});

/** Where the build for this source lives, and whether it is complete. */
export function hyperdxBuildPath(options: HyperdxBuildOptions = {}): { dir: string; built: boolean } {
  const dir = join(options.cacheRoot ?? DEFAULT_HYPERDX_CACHE, sourceHash(resolveSource(options.source)));
  return { dir, built: existsSync(join(dir, MARKER)) };
}

function readBuild(dir: string): HyperdxBuild {
  const { nodeBin } = JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as { nodeBin: string };
  const root = join(dir, 'hyperdx');
  return { root, appDir: join(root, 'packages', 'app'), nodeBin };
}

/**
 * Returns the build for the source, building it first when the cache has none; a second process
 * asking for the same source meanwhile waits for this build (build-cache.ts).
 */
export async function ensureHyperdx(log: Logger, options: HyperdxBuildOptions = {}): Promise<HyperdxBuild> {
  const source = await ensureSource(options.source, log);
  const cacheRoot = options.cacheRoot ?? DEFAULT_HYPERDX_CACHE;
  const dir = join(cacheRoot, sourceHash(source));
  const built = (): HyperdxBuild | undefined => (existsSync(join(dir, MARKER)) ? readBuild(dir) : undefined);
  return built() ?? buildOnce(`${dir}.lock`, `HyperDX (${source})`, log, built, () => buildHyperdx(source, dir, cacheRoot, log));
}

async function buildHyperdx(source: string, dir: string, cacheRoot: string, log: Logger): Promise<HyperdxBuild> {
  const root = join(dir, 'hyperdx');
  const logFile = join(dir, 'build.log');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  log.info('building HyperDX in local mode (first run for this source: several minutes, ~4 GB of RAM, ~3 GB of disk)', { source, dir, log: logFile });
  const nodeBin = await ensureNode(log);
  const node = join(nodeBin, 'node');
  const fontsDir = join(cacheRoot, 'fontsource');
  await step(log, 'hyperdx build 1/5: unpacking the source', () => unpackSource(source, root, logFile));
  const yarn = yarnOf(root);
  const appDir = join(root, 'packages', 'app');
  await step(log, 'hyperdx build 2/5: fetching fonts from the npm registry (@fontsource)', () => fetchFontsource(appGoogleFonts(appDir), fontsDir, logFile));
  // skip-build: no package's install script is needed for the app, and some would fetch binaries
  await step(log, 'hyperdx build 3/5: yarn install (the npm registry)', () => run(node, [yarn, 'install', '--mode=skip-build'], buildEnv(nodeBin), logFile, root));
  await step(log, 'hyperdx build 4/5: building packages/common-utils', () => run(node, [yarn, 'run', 'build'], buildEnv(nodeBin), logFile, join(root, 'packages', 'common-utils')));
  await step(log, 'hyperdx build 5/5: building packages/app (next build)', () => run(node, [yarn, 'run', 'build'], buildEnv(nodeBin, fontEnv(fontsDir)), logFile, appDir));
  writeFileSync(join(dir, MARKER), JSON.stringify({ source, nodeBin, builtAt: new Date().toISOString() }, null, 2));
  log.info('HyperDX built', { dir, seconds: Math.round((Date.now() - started) / 1000) });
  return { root, appDir, nodeBin };
}
