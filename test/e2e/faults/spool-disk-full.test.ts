/**
 * The spool's disk fills up under steady load: senders must hear 503 + Retry-After (never a 400,
 * which makes every Datadog sender drop the data), the sidecar keeps running, and once space is
 * free again everything it acknowledged — before, during and after, and across a restart — is
 * delivered. The spool lives on a 4 MiB tmpfs (needs root to mount; skipped with a reason if not).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentLoad, type RunningLoad } from '../../helpers/agent-load';
import { expectNothingLost } from '../../helpers/delivery';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_SECONDS, FAULT_TEST_TIMEOUT_MS, sleep } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

const mountPoint = join(mkdtempSync(join(tmpdir(), 'dd-bridge-diskfull-')), 'tmpfs');
mkdirSync(mountPoint);
const mount = (): void => void execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint], { stdio: 'pipe' });
const unmount = (): void => void execFileSync('umount', [mountPoint], { stdio: 'pipe' });

/**
 * Whether this process may mount a tmpfs, tried once at collection time so the test can be
 * skipped with a reason (it is unmounted at once: hooks do not run when a filter skips the test).
 */
function cannotMount(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: cannot mount a tmpfs';
  try {
    mount();
    unmount();
    return undefined;
  } catch (err) {
    return `mount -t tmpfs failed: ${(err as Error).message.split('\n')[0]}`;
  }
}

const skipReason = cannotMount();
if (skipReason) process.stderr.write(`[fault] spool disk full: SKIPPED (${skipReason})\n`);
const itMounted = skipReason ? it.skip : it;

/** Statuses other than 202 seen so far: the first one says the disk is full. */
const refusals = (load: RunningLoad): number => [...load.result.statuses].filter(([s]) => s !== '202').reduce((n, [, c]) => n + c, 0);

describe('spool on a disk that fills up', () => {
  let stack: TestStack | undefined;
  let load: RunningLoad | undefined;
  let mounted = false;
  afterAll(async () => {
    load?.cancel();
    await stack?.stop();
    if (mounted) unmount();
  });

  itMounted('503 + Retry-After while full, never 400 or a crash; every acknowledged record delivered after space frees and a restart', async () => {
    mount();
    mounted = true;
    // most of the disk goes to a filler file first, so load fills the rest in seconds and deleting it frees space again
    const filler = join(mountPoint, 'filler');
    writeFileSync(filler, Buffer.alloc(2.5 * 1024 * 1024, 1));
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_SPOOL_DIR: join(mountPoint, 'spool') } });
    await stack.stopCollector(); // nothing drains: the spool only grows
    const run = `disk-full-${Date.now()}`;
    load = startAgentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: 600_000, run });
    const filledBy = Date.now() + 20_000;
    while (refusals(load) === 0 && Date.now() < filledBy) await sleep(100);
    const filled = refusals(load) > 0;
    await sleep(Math.max(1500, FAULT_SECONDS * 300)); // stay full for a while
    const whileFull = new Map(load.result.statuses);

    unlinkSync(filler);
    await stack.startCollector();
    await sleep(Math.max(1500, FAULT_SECONDS * 300)); // keep loading with space back
    const survived = stack.sidecarRunning();
    await stack.stopSidecar('SIGTERM');
    await stack.restartSidecar();
    await sleep(1000);
    load.stop();
    // batches still waiting for a 2xx get a bounded time; ones never acknowledged count for nothing
    await Promise.race([load.done, sleep(20_000)]);
    load.cancel();
    const result = await load.done;

    process.stderr.write(`[fault] spool disk full: statuses while full=${[...whileFull].map(([s, n]) => `${s}:${n}`).join(' ')} sidecar-survived=${survived}\n`);
    await expectNothingLost('spool disk full', stack.sinkDir, run, result);
    expect(filled).toBe(true); // the fault really happened
    expect(survived).toBe(true);
    expect([...result.statuses.keys()].filter((s) => s !== '202' && s !== '503')).toEqual([]);
    expect(result.unavailableWithoutRetryAfter).toBe(0);
  });
});
