/** The per-worker spools an earlier version left, which the sidecar delivers (src/cli/former-spools.ts). */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formerWorkerSpools } from '../../src/cli/former-spools';

describe('formerWorkerSpools', () => {
  it('lists DIR/worker-<i> folders, and nothing else of DIR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'former-spools-'));
    for (const name of ['worker-1', 'worker-0', 'dead-letters', 'worker-x']) mkdirSync(join(dir, name));
    writeFileSync(join(dir, 'worker-2'), 'a file, not a spool');
    writeFileSync(join(dir, `${'1'.padStart(20, '0')}.seg`), 'x');
    expect(formerWorkerSpools(dir)).toEqual([join(dir, 'worker-0'), join(dir, 'worker-1')]);
  });

  it('a spool folder that does not exist yet has none', () => {
    expect(formerWorkerSpools(join(tmpdir(), `former-spools-none-${process.pid}`))).toEqual([]);
  });
});
