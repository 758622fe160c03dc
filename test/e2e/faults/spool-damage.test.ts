/**
 * A damaged spool: one flipped byte in the middle of a segment, or a cursor file that points
 * nowhere sensible. A record with a bad checksum holds exactly one request's batch, so at most
 * those ids may be missing (and the loss is logged and counted); a bad cursor must never cost
 * data: after the restart everything not yet delivered is delivered (duplicates allowed) and the
 * sidecar says it ignored the cursor.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logsBatch } from '../../helpers/agent-load';
import { deliveredCounts, deliveryOf, reportFigures } from '../../helpers/delivery';
import { sampleSum, scrapeMetrics } from '../../helpers/prom';
import { warningsMatching } from '../../helpers/sidecar-log';
import { waitFor } from '../../helpers/sink';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_TEST_TIMEOUT_MS } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

/** Odd, so the middle byte of a segment of equal-sized records falls inside the middle record's body. */
const BATCHES = 41;
const BATCH_SIZE = 10;

async function postBatch(stack: TestStack, run: string): Promise<string[]> {
  const ids = Array.from({ length: BATCH_SIZE }, () => randomUUID());
  const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: logsBatch(run, ids), headers: { 'Content-Type': 'application/json' } });
  await res.arrayBuffer();
  expect(res.status).toBe(202);
  return ids;
}

/** Sends `count` requests, `concurrency` at a time (as several agents do); the ids, per request. */
async function spoolBatches(stack: TestStack, run: string, count: number, concurrency: number): Promise<string[][]> {
  const batches: string[][] = [];
  while (batches.length < count) batches.push(...(await Promise.all(Array.from({ length: Math.min(concurrency, count - batches.length) }, () => postBatch(stack, run)))));
  return batches;
}

const segments = (spoolDir: string): string[] =>
  readdirSync(spoolDir)
    .filter((f) => f.endsWith('.seg'))
    .sort();

/** Where the records not yet delivered start in segment `name`, by the cursor the sidecar left. */
function undeliveredFrom(spoolDir: string, name: string): number {
  const file = join(spoolDir, 'cursor');
  if (!existsSync(file)) return 0; // nothing delivered yet
  const cursor = JSON.parse(readFileSync(file, 'utf8')) as { segment: number; offset: number };
  return cursor.segment === Number(name.slice(0, 20)) ? cursor.offset : 0;
}

/** Batches with at least one id the sink does not have. */
const missingBatches = (stack: TestStack, run: string, batches: string[][]): string[][] => {
  const delivered = deliveredCounts(stack.sinkDir, run);
  return batches.filter((ids) => ids.some((id) => !delivered.has(id)));
};

/** A stack whose spool can be filled with the collector stopped, damaged with the sidecar stopped, then restarted. */
function spoolStack(): { stack: () => TestStack; spoolDir: string; spoolDamageRestart(run: string, count: number, damage: () => void, concurrency?: number): Promise<{ batches: string[][]; outputFrom: number }> } {
  let stack: TestStack;
  const spoolDir = join(mkdtempSync(join(tmpdir(), 'dd-bridge-damage-')), 'spool');
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_SPOOL_DIR: spoolDir } });
  });
  afterAll(async () => stack?.stop());
  return {
    stack: () => stack,
    spoolDir,
    async spoolDamageRestart(run, count, damage, concurrency = 1) {
      await stack.stopCollector();
      const batches = await spoolBatches(stack, run, count, concurrency);
      await stack.stopSidecar('SIGTERM');
      damage();
      const outputFrom = stack.sidecarOutput().length;
      await stack.restartSidecar();
      await stack.startCollector();
      return { batches, outputFrom };
    },
  };
}

describe('a flipped byte in a spool segment', () => {
  const fixture = spoolStack();

  // one sender at a time, and eight at once: requests that arrive together must still be spooled as records of their own
  it.each([1, 8])('costs at most the one request whose record it hit, %s sender(s) at a time; logged and counted', async (concurrency) => {
    const stack = fixture.stack();
    const run = `damaged-byte-${concurrency}-${Date.now()}`;
    let flipped = '';
    const { batches, outputFrom } = await fixture.spoolDamageRestart(
      run,
      BATCHES,
      () => {
        const name = segments(fixture.spoolDir).at(-1) as string;
        const file = join(fixture.spoolDir, name);
        const data = readFileSync(file);
        // the middle of what this case spooled: the segment may still hold an earlier case's delivered records
        const at = Math.floor((undeliveredFrom(fixture.spoolDir, name) + data.length) / 2);
        data[at] = (data[at] as number) ^ 0xff;
        writeFileSync(file, data);
        flipped = `byte ${at} of ${data.length}`;
      },
      concurrency,
    );
    await waitFor(
      () => missingBatches(stack, run, batches),
      (m) => m.length <= 1,
      30_000,
    );
    const d = deliveryOf(stack.sinkDir, run, new Set(batches.flat()));
    const missing = missingBatches(stack, run, batches);
    reportFigures(`spool damaged byte, ${concurrency} sender(s) at a time`, d, undefined, `flipped=${flipped} batches-missing=${missing.length}/${BATCHES}`);
    expect(missing.length).toBeLessThanOrEqual(1);
    // whatever is missing is one request's batch, not records scattered over several
    expect(d.lost.every((id) => missing[0]?.includes(id))).toBe(true);
    expect(d.lost.length).toBeLessThanOrEqual(BATCH_SIZE);
    expect(warningsMatching(stack.sidecarOutput().slice(outputFrom), /damaged|corrupt|checksum|unreadable/i).length).toBeGreaterThan(0);
    expect(sampleSum(await scrapeMetrics(stack.adminUrl), 'ddbridge_spool_damaged_bytes_total')).toBeGreaterThan(0);
  });
});

describe('a bad spool cursor', () => {
  const fixture = spoolStack();
  const segmentId = (name: string): number => Number(name.slice(0, 20));
  const BAD_CURSORS: [string, (segment: string, size: number) => unknown][] = [
    ['past the end of its segment', (segment, size) => ({ segment: segmentId(segment), offset: size + 4096 })],
    ['negative', (segment) => ({ segment: segmentId(segment), offset: -13 })],
    ['inside a record', (segment) => ({ segment: segmentId(segment), offset: 7 })],
    ['out of range', (segment) => ({ segment: segmentId(segment), offset: 1e21 })],
    ['naming a missing segment', () => ({ segment: 987654321, offset: 0 })],
  ];

  it.each(BAD_CURSORS)('%s: everything undelivered is delivered after the restart, with a warning', async (name, cursor) => {
    const stack = fixture.stack();
    const run = `bad-cursor-${name.replace(/\W+/g, '-')}-${Date.now()}`;
    const { batches, outputFrom } = await fixture.spoolDamageRestart(run, 10, () => {
      const segment = segments(fixture.spoolDir)[0] as string;
      writeFileSync(join(fixture.spoolDir, 'cursor'), JSON.stringify(cursor(segment, statSync(join(fixture.spoolDir, segment)).size)));
    });
    const d = await waitFor(
      () => deliveryOf(stack.sinkDir, run, new Set(batches.flat())),
      (x) => x.lost.length === 0,
      20_000,
    );
    const warned = warningsMatching(stack.sidecarOutput().slice(outputFrom), /cursor/i).length;
    reportFigures(`spool cursor ${name}`, d, undefined, `cursor-warnings=${warned}`);
    expect(d.lost).toEqual([]);
    expect(warned).toBeGreaterThan(0);
  });
});
