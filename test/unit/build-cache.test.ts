/** One build of an input at a time, and a line while it runs (tools/src/build-cache.ts). */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/core/observability/log';
import { buildOnce, step } from '../../tools/src/build-cache';

const capture = () => {
  const lines: { msg: string }[] = [];
  return { lines, log: createLogger('info', {}, (line) => lines.push(JSON.parse(line) as { msg: string })) };
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('buildOnce', () => {
  it('builds once when two ask at the same time: the second waits, says so, and finds the result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'build-once-'));
    const product = join(dir, 'product');
    const { lines, log } = capture();
    let builds = 0;
    const built = (): string | undefined => (existsSync(product) ? product : undefined);
    const build = async (): Promise<string> => {
      builds++;
      await sleep(300);
      writeFileSync(product, 'x');
      return product;
    };
    const results = await Promise.all([buildOnce(`${dir}/x.lock`, 'x', log, built, build, 50), buildOnce(`${dir}/x.lock`, 'x', log, built, build, 50)]);
    expect(results).toEqual([product, product]);
    expect(builds).toBe(1);
    expect(lines.some((l) => l.msg === 'waiting for another process building x')).toBe(true);
    expect(existsSync(`${dir}/x.lock`)).toBe(false);
  });

  it('takes over the lock of a process that died', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'build-once-'));
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    writeFileSync(`${dir}/x.lock`, String(dead.pid));
    const { log } = capture();
    expect(
      await buildOnce(
        `${dir}/x.lock`,
        'x',
        log,
        () => undefined,
        async () => 'built',
        50,
      ),
    ).toBe('built');
  });
});

describe('step', () => {
  it('says what it starts, that it is still running, and when it is done', async () => {
    const { lines, log } = capture();
    expect(await step(log, 'compiling', () => sleep(180).then(() => 7), 50)).toBe(7);
    const msgs = lines.map((l) => l.msg);
    expect(msgs[0]).toBe('compiling');
    expect(msgs.filter((m) => m === 'compiling: still running').length).toBeGreaterThanOrEqual(2);
    expect(msgs.at(-1)).toBe('compiling: done');
  });
});
