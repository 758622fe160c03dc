/**
 * One spool per worker (`--spool-dir`): a spool has one writer, so worker i of N writes
 * DIR/worker-i; with one worker the spool is DIR itself, as it always was. Whatever an earlier run
 * left in a spool no worker of this run writes (more workers before, or fewer, or one) is drained by
 * one of them: worker i takes the indices i + N, i + 2N, … and worker 0 also DIR itself, or, with
 * one worker, every DIR/worker-j.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface SpoolDirs {
  /** the spool this worker writes */
  own: string;
  /** spools of former workers this one delivers and then leaves empty */
  former: string[];
}

const WORKER_DIR = /^worker-(\d+)$/;

/** The per-worker folders under `dir`, by index. */
function workerDirs(dir: string): Map<number, string> {
  const found = new Map<number, string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return found; // no spool yet
  }
  for (const name of names) {
    const m = WORKER_DIR.exec(name);
    if (m && statSync(join(dir, name)).isDirectory()) found.set(Number(m[1]), join(dir, name));
  }
  return found;
}

/** True when `dir` holds spool segments of its own (not only the workers' folders). */
function holdsSegments(dir: string): boolean {
  try {
    return readdirSync(dir).some((name) => /^\d{20}\.seg$/.test(name));
  } catch {
    return false;
  }
}

export function spoolDirsFor(dir: string, index: number, workers: number): SpoolDirs {
  const existing = workerDirs(dir);
  if (workers === 1) return { own: dir, former: [...existing.values()] };
  const former = [...existing].filter(([j]) => j >= workers && j % workers === index).map(([, path]) => path);
  if (index === 0 && holdsSegments(dir)) former.unshift(dir);
  return { own: join(dir, `worker-${index}`), former };
}
