/**
 * What every long build of the workbench shares (the collector, the reference collector, HyperDX,
 * FerretDB, the HyperDX API install): one process builds a given input at a time — a second one
 * waits for it and then finds the result cached, instead of compiling twice (two Go builds at once
 * have run a 2-core, 24 GiB machine out of memory) — and a long step says every 30 s that it is
 * still running, and for how long.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../src/core/observability/log';

export const PROGRESS_EVERY_MS = 30_000;
const POLL_MS = 1_000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The pid a lock file names, or undefined when it names none (being written, or garbage). */
const holderOf = (lock: string): number | undefined => {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

/** Takes `lock` (a file holding our pid) if it is free or its holder is gone; false while another live process holds it. */
function tryLock(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const holder = holderOf(lock);
  if (holder !== undefined && !alive(holder)) rmSync(lock, { force: true }); // its holder died: the next try takes it
  return false;
}

/**
 * Runs `build` holding the lock file `lock`, unless `built()` says another process finished it
 * while this one waited. Waits as long as the holder lives, saying so every PROGRESS_EVERY_MS.
 */
export async function buildOnce<T>(lock: string, what: string, log: Logger, built: () => T | undefined, build: () => Promise<T>, everyMs = PROGRESS_EVERY_MS): Promise<T> {
  mkdirSync(dirname(lock), { recursive: true });
  const started = Date.now();
  let said = 0;
  while (!tryLock(lock)) {
    if (Date.now() - said >= everyMs) {
      log.info(`waiting for another process building ${what}`, { pid: holderOf(lock), waitedSeconds: Math.round((Date.now() - started) / 1000) });
      said = Date.now();
    }
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, everyMs)));
  }
  try {
    return built() ?? (await build());
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Runs one long step with a line before, a line every PROGRESS_EVERY_MS while it runs, and one after. */
export async function step<T>(log: Logger, what: string, action: () => Promise<T>, everyMs = PROGRESS_EVERY_MS): Promise<T> {
  const started = Date.now();
  const elapsed = (): number => Math.round((Date.now() - started) / 1000);
  log.info(what);
  const beat = setInterval(() => log.info(`${what}: still running`, { elapsedSeconds: elapsed() }), everyMs);
  try {
    const result = await action();
    log.info(`${what}: done`, { seconds: elapsed() });
    return result;
  } finally {
    clearInterval(beat);
  }
}
