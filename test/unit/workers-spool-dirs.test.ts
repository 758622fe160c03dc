/** Which spools each worker writes and which former ones it delivers (src/cli/workers/spool-dirs.ts), and the restart backoff. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spoolDirsFor } from '../../src/cli/workers/spool-dirs';
import { restartDelayMs } from '../../src/cli/workers/primary';

/** A spool folder as runs with `workers` left it, with a segment in DIR itself when `root`. */
function leftBy(workers: number[], root = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'spool-dirs-'));
  for (const i of workers) mkdirSync(join(dir, `worker-${i}`));
  if (root) writeFileSync(join(dir, `${'1'.padStart(20, '0')}.seg`), 'x');
  return dir;
}

describe('spoolDirsFor', () => {
  it('one worker writes DIR itself, as the single process always did, and delivers every worker-i a former run left', () => {
    const dir = leftBy([0, 1, 2]);
    expect(spoolDirsFor(dir, 0, 1)).toEqual({ own: dir, former: [0, 1, 2].map((i) => join(dir, `worker-${i}`)) });
  });

  it('worker i of N writes DIR/worker-i; the spools of indices N and up go to i + N, i + 2N, …', () => {
    const dir = leftBy([0, 1, 2, 3, 4]);
    expect(spoolDirsFor(dir, 0, 2)).toEqual({ own: join(dir, 'worker-0'), former: [join(dir, 'worker-2'), join(dir, 'worker-4')] });
    expect(spoolDirsFor(dir, 1, 2)).toEqual({ own: join(dir, 'worker-1'), former: [join(dir, 'worker-3')] });
  });

  it('worker 0 also delivers what a single process left in DIR itself, and only when it holds segments', () => {
    expect(spoolDirsFor(leftBy([], true), 0, 2).former).toHaveLength(1);
    expect(spoolDirsFor(leftBy([], true), 1, 2).former).toEqual([]);
    expect(spoolDirsFor(leftBy([]), 0, 2).former).toEqual([]);
  });

  it('a spool folder that does not exist yet has nothing former', () => {
    const dir = join(tmpdir(), `spool-dirs-none-${process.pid}`);
    expect(spoolDirsFor(dir, 1, 3)).toEqual({ own: join(dir, 'worker-1'), former: [] });
  });
});

describe('restartDelayMs', () => {
  it('restarts after 250 ms, doubling while a worker keeps dying, up to 30 s', () => {
    expect([1, 2, 3, 4, 8, 20].map(restartDelayMs)).toEqual([250, 500, 1000, 2000, 30_000, 30_000]);
  });
});
