/**
 * The stack's sidecar: the built sidecar (dist/cli/main.js, what the image runs) as a child
 * process, its output on ours and in a log file, stopped with SIGTERM within its own grace.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HostPort } from '../../../src/config';
import { REPO_ROOT } from '../collector/build';
import { probe, superviseChild, withParentDeathSignal, type RunningCollector } from '../collector/run';

export const SIDECAR_MAIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');

export interface SidecarProcessOptions {
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** where its /health answers (an unspecified address is probed on loopback) */
  admin: HostPort;
  logFile: string;
  /** its --shutdown-grace-ms: SIGKILL only after that and a margin */
  graceMs: number;
}

const probeHost = (host: string): string => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

export async function startSidecarProcess(options: SidecarProcessOptions): Promise<RunningCollector> {
  if (!existsSync(SIDECAR_MAIN)) throw new Error(`${SIDECAR_MAIN} is missing: build the sidecar first (npm run build; npm run stack does it)`);
  mkdirSync(dirname(options.logFile), { recursive: true });
  const out = createWriteStream(options.logFile, { flags: 'a' });
  const [command, args] = withParentDeathSignal(process.execPath, [SIDECAR_MAIN, ...options.args], true);
  // its own process group: a terminal's Ctrl-C reaches only the stack, which stops the parts in order
  const child = spawn(command, args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipe(out, { end: false });
    stream.pipe(process.stdout, { end: false });
  }
  const healthUrl = `http://${probeHost(options.admin.host)}:${options.admin.port}/health`;
  const stop = await superviseChild(child, () => probe(healthUrl), { what: 'sidecar', notReady: `sidecar not healthy at ${healthUrl} in time`, logFile: options.logFile, out, killAfterMs: options.graceMs + 5_000 });
  return { process: child, logFile: options.logFile, stop };
}
