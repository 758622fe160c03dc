/**
 * No data loss when the collector goes away (synchronous acknowledgement and the durable spool)
 * and when the sidecar is killed, end to end through the real collector. Durations are short in
 * `npm test`; FAULT_SECONDS makes the load phases longer (`npm run fault`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentLoad } from '../../helpers/agent-load';
import { deliveredCounts, expectNothingLost } from '../../helpers/delivery';
import { scrapeMetrics } from '../../helpers/prom';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_SECONDS, FAULT_TEST_TIMEOUT_MS, sleep } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

describe('collector outage under steady load (synchronous acknowledgement)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('every record a sender got 2xx for arrives, and 503s made senders retry the rest', async () => {
    const run = `outage-${Date.now()}`;
    const load = agentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: FAULT_SECONDS * 1000, run });
    await sleep(500);
    await stack.stopCollector();
    await sleep(Math.max(1500, FAULT_SECONDS * 300));
    await stack.startCollector();
    const result = await load;
    expect(result.statuses.get('503')).toBeGreaterThan(0);
    await expectNothingLost('sync collector outage', stack.sinkDir, run, result);
  });
});

describe('durable spool', () => {
  let stack: TestStack;
  const spoolDir = mkdtempSync(join(tmpdir(), 'dd-bridge-spool-'));
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_SPOOL_DIR: spoolDir } });
  });
  afterAll(async () => stack?.stop());

  it('acknowledges during a collector outage and delivers everything once it is back', async () => {
    const run = `spool-outage-${Date.now()}`;
    await stack.stopCollector();
    const result = await agentLoad({ url: stack.intakeUrl, agents: 2, batchSize: 20, durationMs: 1000, run });
    expect(result.statuses.get('503') ?? 0).toBe(0);
    expect(deliveredCounts(stack.sinkDir, run).size).toBe(0);
    expect(await scrapeMetrics(stack.adminUrl)).toMatch(/ddbridge_spool_bytes [1-9]/);
    await stack.startCollector();
    await expectNothingLost('spool collector outage', stack.sinkDir, run, result);
  });

  it('survives kill -9 mid-load: nothing acknowledged is missing after a restart', async () => {
    const run = `spool-kill-${Date.now()}`;
    const load = agentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: FAULT_SECONDS * 1000, run });
    await sleep(Math.max(800, FAULT_SECONDS * 250));
    await stack.stopCollector(); // leave undelivered data in the spool when the process dies
    await sleep(300);
    await stack.stopSidecar('SIGKILL');
    await sleep(300);
    await stack.restartSidecar();
    await stack.startCollector();
    const result = await load;
    expect(result.networkErrors).toBeGreaterThan(0);
    await expectNothingLost('spool kill -9', stack.sinkDir, run, result);
    expect(stack.sidecarOutput()).toMatch(/resuming delivery of spooled data/);
  });
});
