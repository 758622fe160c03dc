/**
 * podman as it runs on these machines (../shared/reference/containers-here.md: runc, cgroupfs,
 * explicit ulimits, no image registry), with its configuration and image store kept under
 * ~/.cache/dd-otlp-bridge/images so a CI machine's warm run finds its base images and layers again.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const IMAGES_HOME = process.env.DD_BRIDGE_IMAGES_HOME ?? join(homedir(), '.cache', 'dd-otlp-bridge', 'images');

/** The settings containers-here.md measured; ulimits above 1024 are refused inside this VM. */
const CONTAINERS_CONF = ['[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', 'events_logger = "file"', '[containers]', 'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]', ''].join('\n');

/** The image store under `home`; its run state in /run (tmpfs), one folder per store. */
const storageConf = (home: string): string => ['[storage]', 'driver = "overlay"', `graphroot = "${join(home, 'storage')}"`, `runroot = "/run/dd-otlp-bridge-images-${createHash('sha256').update(home).digest('hex').slice(0, 8)}"`, ''].join('\n');

/** The environment every podman call gets: its own containers.conf and image store. */
export function podmanEnv(home = IMAGES_HOME): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  const conf = join(home, 'containers.conf');
  const storage = join(home, 'storage.conf');
  writeFileSync(conf, CONTAINERS_CONF);
  writeFileSync(storage, storageConf(home));
  return { ...process.env, CONTAINERS_CONF: conf, CONTAINERS_STORAGE_CONF: storage };
}

let env: NodeJS.ProcessEnv | undefined;
const theEnv = (): NodeJS.ProcessEnv => (env ??= podmanEnv());

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** when podman itself started (after the heavy-work lock was granted), ms since the epoch */
  startedAt: number;
}

/** Printed by the shell flock runs once it holds the lock, so the wait is not counted as work. */
const LOCKED = 'dd-bridge-heavy-lock-held';

/** podman, waited for; output collected (and echoed to stderr when `echo`). */
export function podman(args: readonly string[], options: { echo?: boolean; input?: string; heavy?: boolean } = {}): Promise<Run> {
  // builds that compile Go or C take the machine's heavy-work lock when one is named
  const lock = options.heavy ? process.env.DD_BRIDGE_HEAVY_LOCK : undefined;
  const [command, argv] = lock ? ['flock', [lock, 'sh', '-c', `echo ${LOCKED} >&2; exec podman "$@"`, 'sh', ...args]] : ['podman', [...args]];
  return new Promise((resolve) => {
    let startedAt = Date.now();
    const child = spawn(command, argv, { env: theEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (options.echo) process.stderr.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      if (lock && !stderr.includes(LOCKED) && text.includes(LOCKED)) startedAt = Date.now();
      stderr += text;
      if (options.echo) process.stderr.write(d);
    });
    child.on('error', (err) => resolve({ code: null, stdout, stderr: `${stderr}${err.message}`, startedAt }));
    child.on('close', (code) => resolve({ code, stdout, stderr, startedAt }));
    child.stdin.end(options.input ?? '');
  });
}

/** podman that must succeed: resolves with stdout, rejects with the command and its stderr. */
export async function podmanOk(args: readonly string[], options: { echo?: boolean; input?: string; heavy?: boolean } = {}): Promise<string> {
  return (await podmanRun(args, options)).stdout;
}

/** podman that must succeed, with its whole Run (for startedAt). */
export async function podmanRun(args: readonly string[], options: { echo?: boolean; input?: string; heavy?: boolean } = {}): Promise<Run> {
  const r = await podman(args, options);
  if (r.code !== 0) throw new Error(`podman ${args.join(' ')} exited with ${r.code}:\n${(r.stderr || r.stdout).trim().split('\n').slice(-20).join('\n')}`);
  return r;
}

export const imageExists = (tag: string): boolean => spawnSync('podman', ['image', 'exists', tag], { env: theEnv() }).status === 0;

/** Size of an image in bytes, as podman reports it. */
export async function imageSize(tag: string): Promise<number> {
  return Number((await podmanOk(['image', 'inspect', '--format', '{{.Size}}', tag])).trim());
}

export const hasPodman = (): boolean => spawnSync('podman', ['--version']).status === 0;
