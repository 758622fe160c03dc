/**
 * Builds the two images from the repository's Dockerfile with nothing but build args naming the
 * locally made base images (bases.ts), and reports their sizes and build times. The collector
 * stage compiles Go: its module and build caches are mounted from this machine (a build option,
 * not a Dockerfile change), so a warm build downloads and compiles nothing new. Builds take the
 * heavy-work lock when DD_BRIDGE_HEAVY_LOCK names one.
 *
 * Run alone: node -r ./tools/register.js test/images/build.ts
 */
import { execFileSync } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CHDB_PACKAGE, SERVER_SCRIPT } from '../../tools/src/clickhouse/launcher';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { ensureBaseImages, type BaseImages, type Timed } from './bases';
import { IMAGES_HOME, imageExists, imageSize, podmanOk, podmanRun } from './podman';

export const COLLECTOR_IMAGE = 'localhost/dd-otlp-bridge-collector:test';
export const SIDECAR_IMAGE = 'localhost/dd-otlp-bridge:test';
/** The stand-in for the official ClickHouse image (test/images/clickhouse/). */
export const CLICKHOUSE_IMAGE = 'localhost/dd-otlp-bridge-clickhouse:test';

export interface ImageReport {
  tag: string;
  target: string;
  /** building, not waiting for the heavy-work lock; 0 when cached */
  seconds: number;
  bytes: number;
  /** an image of the same inputs existed: nothing was built */
  cached: boolean;
}

/** What the Dockerfile's stages read (its COPY lines and .dockerignore), hashed: the image's inputs. */
const SIDECAR_INPUTS = ['Dockerfile', 'package.json', 'package-lock.json', 'tsconfig.json', 'src', 'pipelines'];
const COLLECTOR_INPUTS = ['Dockerfile', 'collector'];

function hashTree(hash: Hash, path: string): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) hashTree(hash, join(path, entry));
    return;
  }
  hash.update(relative(REPO_ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
}

const inputsHash = (paths: readonly string[], extra: readonly string[]): string => {
  const hash = createHash('sha256');
  for (const p of paths) hashTree(hash, join(REPO_ROOT, p));
  hash.update(extra.join('\0'));
  return hash.digest('hex').slice(0, 12);
};

export interface BuildReport {
  bases: Record<keyof BaseImages, Timed & { bytes: number }>;
  images: ImageReport[];
}

const goPath = (what: 'GOMODCACHE' | 'GOCACHE'): string | undefined => {
  try {
    return execFileSync('go', ['env', what], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
};

/** The Go caches shared with this machine's own collector builds (else kept beside the image store). */
function goCacheVolumes(): string[] {
  const modcache = goPath('GOMODCACHE') ?? join(IMAGES_HOME, 'gomod');
  const buildcache = goPath('GOCACHE') ?? join(IMAGES_HOME, 'gobuild');
  for (const dir of [modcache, buildcache]) mkdirSync(dir, { recursive: true });
  return ['-v', `${modcache}:/go/pkg/mod`, '-v', `${buildcache}:/root/.cache/go-build`];
}

/**
 * One Dockerfile target, tagged `tag` and `tag-<inputs hash>`; an image of the same inputs is
 * reused without calling the builder (nor taking the lock).
 */
async function buildTarget(target: 'collector' | 'sidecar', tag: string, inputs: readonly string[], buildArgs: Record<string, string>, extra: string[] = []): Promise<ImageReport> {
  const keyed = `${tag}-${inputsHash(inputs, Object.entries(buildArgs).flat())}`;
  const cached = imageExists(keyed);
  let seconds = 0;
  if (!cached) {
    // docker format: the OCI image format has no HEALTHCHECK, and podman drops it from OCI images
    const args = ['build', '--format', 'docker', '--isolation', 'chroot', '--target', target, ...Object.entries(buildArgs).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]), ...extra, '-t', keyed, REPO_ROOT];
    const run = await podmanRun(args, { echo: process.env.DD_BRIDGE_IMAGES_VERBOSE === '1', heavy: true });
    seconds = Math.round((Date.now() - run.startedAt) / 100) / 10;
  }
  await podmanOk(['tag', keyed, tag]);
  await dropOlderBuilds(tag, keyed);
  return { tag, target, seconds, bytes: await imageSize(tag), cached };
}

/**
 * Earlier builds of `tag` (other inputs) are removed; untagged layers a week old too. Younger ones
 * stay: they are the builder's cache (a changed src/ rebuilds from the npm install layer on).
 */
async function dropOlderBuilds(tag: string, current: string): Promise<void> {
  const listed = await podmanOk(['images', '--format', '{{.Repository}}:{{.Tag}}', '--filter', `reference=${tag}-*`]);
  const older = listed.split('\n').filter((t) => t.startsWith(`${tag}-`) && t !== current);
  if (older.length > 0) await podmanOk(['rmi', ...older]);
  await podmanOk(['image', 'prune', '-f', '--filter', 'until=168h']);
}

/** The chdb-core wheel, downloaded once with this machine's pip settings; the image installs it offline. */
function chdbWheels(): string {
  const dir = join(IMAGES_HOME, 'wheels', CHDB_PACKAGE.replace(/[^\w.-]+/g, '-'));
  if (!existsSync(dir) || !readdirSync(dir).some((f) => f.endsWith('.whl'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('python3', ['-m', 'pip', 'download', '--quiet', '--no-deps', '--only-binary=:all:', '--platform', 'manylinux2014_x86_64', '--python-version', '3.11', '-d', dir, CHDB_PACKAGE], { stdio: 'inherit' });
  }
  return dir;
}

async function buildClickHouse(base: string): Promise<ImageReport> {
  const keyed = `${CLICKHOUSE_IMAGE}-${inputsHash(['test/images/clickhouse', 'tools/src/clickhouse/server.py'], [base, CHDB_PACKAGE])}`;
  const cached = imageExists(keyed);
  const started = Date.now();
  if (!cached) {
    const context = mkdtempSync(join(IMAGES_HOME, 'context-'));
    try {
      cpSync(join(__dirname, 'clickhouse'), context, { recursive: true });
      cpSync(SERVER_SCRIPT, join(context, 'server.py'));
      cpSync(chdbWheels(), join(context, 'wheels'), { recursive: true });
      await podmanOk(['build', '--format', 'docker', '--isolation', 'chroot', '--build-arg', `BASE_IMAGE=${base}`, '-t', keyed, context], { echo: process.env.DD_BRIDGE_IMAGES_VERBOSE === '1' });
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  }
  await podmanOk(['tag', keyed, CLICKHOUSE_IMAGE]);
  await dropOlderBuilds(CLICKHOUSE_IMAGE, keyed);
  return { tag: CLICKHOUSE_IMAGE, target: 'clickhouse', seconds: cached ? 0 : Math.round((Date.now() - started) / 100) / 10, bytes: await imageSize(CLICKHOUSE_IMAGE), cached };
}

export async function buildImages(): Promise<BuildReport> {
  const { images, timings } = await ensureBaseImages();
  const collector = await buildTarget('collector', COLLECTOR_IMAGE, COLLECTOR_INPUTS, { GO_IMAGE: images.go, COLLECTOR_BASE_IMAGE: images.debian }, goCacheVolumes());
  const sidecar = await buildTarget('sidecar', SIDECAR_IMAGE, SIDECAR_INPUTS, { NODE_IMAGE: images.node });
  const clickhouse = await buildClickHouse(images.debian);
  const bases = Object.fromEntries(await Promise.all(Object.entries(timings).map(async ([k, t]) => [k, { ...t, bytes: await imageSize(t.tag) }]))) as BuildReport['bases'];
  return { bases, images: [collector, sidecar, clickhouse] };
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;

export function formatReport(report: BuildReport): string {
  const rows = [
    ...Object.entries(report.bases).map(([name, b]) => `base ${name.padEnd(9)} ${b.tag.padEnd(52)} ${mb(b.bytes).padStart(8)}  ${b.cached ? 'cached' : `${b.seconds} s`}`),
    ...report.images.map((i) => `image ${i.target.padEnd(10)} ${i.tag.padEnd(50)} ${mb(i.bytes).padStart(8)}  ${i.cached ? 'cached' : `${i.seconds} s`}`),
  ];
  return rows.join('\n');
}

/** Writes the report where CI and the closing note read it. */
export function saveReport(report: BuildReport): string {
  const file = join(IMAGES_HOME, 'build-report.json');
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), ...report }, null, 2));
  return file;
}

if (require.main === module) {
  buildImages().then(
    (report) => {
      process.stdout.write(`${formatReport(report)}\nreport: ${saveReport(report)}\n`);
    },
    (err: Error) => {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    },
  );
}
