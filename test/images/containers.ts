/**
 * Containers of the built images on a podman network of their own (service names resolve, as in
 * compose), their ports published on 127.0.0.1 only, on free ports.
 */
import { randomBytes } from 'node:crypto';
import { freePort } from '../helpers/ports';
import { podman, podmanOk } from './podman';

export interface Container {
  name: string;
  /** host port → container port, for what was published */
  port(containerPort: number): number;
  logs(): Promise<string>;
  /** `podman healthcheck run`: the image's own HEALTHCHECK, true when it passed */
  healthy(): Promise<boolean>;
  exec(command: string[]): Promise<string>;
  kill(signal: string): Promise<void>;
  start(): Promise<void>;
  /** podman stop -t grace: SIGTERM, SIGKILL after `graceSeconds`; resolves with how long it took and the exit code */
  stop(graceSeconds: number): Promise<{ seconds: number; exitCode: number }>;
  remove(): Promise<void>;
}

export interface RunOptions {
  image: string;
  network: string;
  /** network alias other containers reach it by (and the container's name prefix) */
  alias: string;
  /** more names on the network */
  aliases?: string[];
  env?: Record<string, string>;
  publish?: number[];
  volumes?: string[];
  args?: string[];
}

export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;

export async function createNetwork(): Promise<{ name: string; remove(): Promise<void> }> {
  const name = uniqueName('ddb-images');
  await podmanOk(['network', 'create', name]);
  return { name, remove: async () => void (await podman(['network', 'rm', '-f', name])) };
}

export async function createVolume(prefix: string): Promise<{ name: string; remove(): Promise<void> }> {
  const name = uniqueName(prefix);
  await podmanOk(['volume', 'create', name]);
  return { name, remove: async () => void (await podman(['volume', 'rm', '-f', name])) };
}

export async function runContainer(o: RunOptions): Promise<Container> {
  const name = uniqueName(o.alias);
  const ports = new Map<number, number>();
  for (const p of o.publish ?? []) ports.set(p, await freePort());
  await podmanOk([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    o.network,
    ...[o.alias, ...(o.aliases ?? [])].flatMap((a) => ['--network-alias', a]),
    ...[...ports].flatMap(([inside, outside]) => ['-p', `127.0.0.1:${outside}:${inside}`]),
    ...Object.entries(o.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    ...(o.volumes ?? []).flatMap((v) => ['-v', v]),
    o.image,
    ...(o.args ?? []),
  ]);
  return {
    name,
    port: (p) => {
      const outside = ports.get(p);
      if (outside === undefined) throw new Error(`${name}: port ${p} is not published`);
      return outside;
    },
    logs: async () => {
      const r = await podman(['logs', name]);
      return r.stdout + r.stderr;
    },
    healthy: async () => (await podman(['healthcheck', 'run', name])).code === 0,
    exec: (command) => podmanOk(['exec', name, ...command]),
    kill: async (signal) => void (await podmanOk(['kill', '-s', signal, name])),
    start: async () => void (await podmanOk(['start', name])),
    stop: async (graceSeconds) => {
      const started = Date.now();
      await podmanOk(['stop', '-t', String(graceSeconds), name]);
      const seconds = (Date.now() - started) / 1000;
      const exitCode = Number((await podmanOk(['inspect', '--format', '{{.State.ExitCode}}', name])).trim());
      return { seconds, exitCode };
    },
    // -v: the anonymous volumes of the images' VOLUME lines go with it
    remove: async () => void (await podman(['rm', '-f', '-v', '-t', '0', name])),
  };
}

/** Polls until `check` is true or `timeoutMs` passed; returns the last answer. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 500): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
