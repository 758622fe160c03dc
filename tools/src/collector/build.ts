/**
 * Builds the collector from a builder manifest with the OpenTelemetry Collector Builder, fetched
 * from the Go module proxy at the manifest's own `dist.version`. The binary is cached under
 * <cacheRoot>/<sha256(manifest)>/, so a manifest edit means exactly one rebuild and an unchanged
 * one means none.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { Logger } from '../../../src/core/observability/log';
import { buildOnce, step } from '../build-cache';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const DEFAULT_MANIFEST = join(REPO_ROOT, 'collector', 'builder.yaml');
export const DEFAULT_CACHE_ROOT = process.env.DD_BRIDGE_COLLECTOR_CACHE ?? join(REPO_ROOT, '.cache', 'otelcol');

export interface BuildOptions {
  manifest?: string;
  cacheRoot?: string;
}

interface Manifest {
  text: string;
  hash: string;
  name: string;
  version: string;
  /** `module@version` of every component and provider. */
  modules: string[];
}

const COMPONENT_KINDS = ['receivers', 'processors', 'exporters', 'extensions', 'connectors', 'providers'];

function readManifest(path: string): Manifest {
  const text = readFileSync(path, 'utf8');
  const doc = parseDocument(text);
  const name = doc.getIn(['dist', 'name']);
  const version = doc.getIn(['dist', 'version']);
  if (typeof name !== 'string' || typeof version !== 'string') throw new Error(`${path}: dist.name and dist.version are required`);
  const data = doc.toJS() as Record<string, { gomod?: string }[] | undefined>;
  const modules = COMPONENT_KINDS.flatMap((kind) => (data[kind] ?? []).map((c) => (c.gomod ?? '').trim().split(/\s+/).join('@'))).filter((m) => m.includes('@'));
  return { text, hash: createHash('sha256').update(text).digest('hex').slice(0, 16), name, version, modules };
}

/** Where the binary for this manifest lives (whether or not it is built yet). */
export function collectorBinaryPath(options: BuildOptions = {}): string {
  const m = readManifest(options.manifest ?? DEFAULT_MANIFEST);
  return join(options.cacheRoot ?? DEFAULT_CACHE_ROOT, m.hash, m.name);
}

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Runs one build step with its output appended to `logFile`; rejects naming the log on failure. */
export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, cwd: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const out = createWriteStream(logFile, { flags: 'a' });
    out.write(`$ ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('error', (err) => reject(new Error(`cannot run ${cmd}: ${err.message}${cmd === 'go' ? ' (is the Go toolchain installed and on PATH?)' : ''}`)));
    child.on('close', (code) => {
      out.end();
      if (code === 0) resolvePromise();
      else reject(new Error(`${cmd} ${args[0]} exited with ${code}; see ${logFile}`));
    });
  });
}

async function ensureBuilder(version: string, cacheRoot: string, env: NodeJS.ProcessEnv, logFile: string, log: Logger): Promise<string> {
  const builder = join(cacheRoot, 'tools', `builder-${version}`);
  if (isExecutable(builder)) return builder;
  // per version: one process may build two collectors (the benchmark does) at the same time
  const gobin = join(cacheRoot, 'tools', `gobin-${version}-${process.pid}`);
  mkdirSync(gobin, { recursive: true });
  log.info('installing the OpenTelemetry Collector Builder', { version });
  await run('go', ['install', `go.opentelemetry.io/collector/cmd/builder@v${version.replace(/^v/, '')}`], { ...env, GOBIN: gobin }, logFile, cacheRoot);
  renameSync(join(gobin, 'builder'), builder);
  rmSync(gobin, { recursive: true, force: true });
  return builder;
}

/**
 * Returns the path of the built collector, building it first when the cache has none; a second
 * process asking for the same manifest meanwhile waits for this build (build-cache.ts).
 */
export async function ensureCollector(log: Logger, options: BuildOptions = {}): Promise<string> {
  const manifestPath = options.manifest ?? DEFAULT_MANIFEST;
  const cacheRoot = options.cacheRoot ?? DEFAULT_CACHE_ROOT;
  const m = readManifest(manifestPath);
  const dir = join(cacheRoot, m.hash);
  const binary = join(dir, m.name);
  const built = (): string | undefined => (isExecutable(binary) ? binary : undefined);
  return built() ?? buildOnce(`${dir}.lock`, `the collector ${m.name} (${m.hash})`, log, built, () => buildCollector(m, manifestPath, dir, cacheRoot, log));
}

async function buildCollector(m: Manifest, manifestPath: string, dir: string, cacheRoot: string, log: Logger): Promise<string> {
  const binary = join(dir, m.name);
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, 'build.log');
  const env = { ...process.env, CGO_ENABLED: '0' };
  const started = Date.now();
  log.info('building the collector (first run for this manifest: about 5 minutes on 2 idle cores, 20 on a busy one)', { manifest: manifestPath, hash: m.hash, log: logFile });
  const builder = await ensureBuilder(m.version, cacheRoot, env, logFile, log);

  const work = join(dir, `src-${process.pid}`);
  const doc = parseDocument(m.text);
  doc.setIn(['dist', 'output_path'], work);
  const manifestCopy = join(dir, `manifest-${process.pid}.yaml`);
  writeFileSync(manifestCopy, doc.toString());
  // the builder only generates the sources; modules are resolved by `go get` (see the manifest)
  await step(log, 'collector build 1/3: generating the sources (builder)', () => run(builder, ['--config', manifestCopy, '--skip-get-modules', '--skip-compilation'], env, logFile, dir));
  const goEnv = { ...env, GOFLAGS: '-mod=mod' };
  await run('go', ['mod', 'init', m.name], goEnv, logFile, work);
  await step(log, 'collector build 2/3: fetching modules (go get, the Go module proxy)', () => run('go', ['get', ...m.modules, `go.opentelemetry.io/collector/otelcol@v${m.version.replace(/^v/, '')}`], goEnv, logFile, work));
  await step(log, 'collector build 3/3: compiling (go build)', () => run('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', m.name, '.'], goEnv, logFile, work));
  if (!existsSync(join(work, m.name))) throw new Error(`the build finished without producing ${m.name}; see ${logFile}`);
  renameSync(join(work, m.name), binary); // atomic: a concurrent reader sees no binary or a whole one
  rmSync(work, { recursive: true, force: true });
  rmSync(manifestCopy, { force: true });
  log.info('collector built', { binary, seconds: Math.round((Date.now() - started) / 1000) });
  return binary;
}
