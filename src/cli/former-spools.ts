/**
 * Versions with `--workers` gave each worker its own spool, DIR/worker-<i>. This version writes DIR
 * itself, as a single process always did, and delivers whatever those folders still hold, so an
 * upgrade loses nothing that was acknowledged.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const WORKER_DIR = /^worker-\d+$/;

/** The per-worker spool folders under `dir`, in name order; none when `dir` does not exist yet. */
export function formerWorkerSpools(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => WORKER_DIR.test(name) && statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => join(dir, name));
}
