/**
 * No data loss under faults, end to end through the real collector. Durations are short in CI;
 * FAULT_SECONDS makes the load phases longer (`npm run fault`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentLoad } from '../helpers/agent-load';
import { logRecords, waitFor } from '../helpers/sink';
import { startStack, type TestStack } from '../helpers/stack';

const SECONDS = Number(process.env.FAULT_SECONDS ?? '4');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Ids of the load's records the collector wrote (duplicates are allowed: at-least-once). */
const deliveredIds = (stack: TestStack, run: string): Set<string> =>
  new Set(
    logRecords(stack.sinkDir)
      .filter((r) => r.attributes.run === run)
      .map((r) => String(r.attributes.id)),
  );

async function expectAllDelivered(stack: TestStack, run: string, acknowledged: Set<string>): Promise<void> {
  const delivered = await waitFor(
    () => deliveredIds(stack, run),
    (d) => [...acknowledged].every((id) => d.has(id)),
    30_000,
  );
  const missing = [...acknowledged].filter((id) => !delivered.has(id));
  expect(missing).toEqual([]);
  expect(acknowledged.size).toBeGreaterThan(0);
}

const rssKiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

describe('collector outage under steady load (synchronous acknowledgement)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('every record a sender got 2xx for arrives, and 503s made senders retry the rest', async () => {
    const run = `outage-${Date.now()}`;
    const load = agentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: SECONDS * 1000, run });
    await sleep(500);
    await stack.stopCollector();
    await sleep(Math.max(1500, SECONDS * 300));
    await stack.startCollector();
    const result = await load;
    expect(result.statuses.get('503')).toBeGreaterThan(0);
    await expectAllDelivered(stack, run, result.acknowledged);
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
    expect(deliveredIds(stack, run).size).toBe(0);
    const metrics = await (await fetch(`${stack.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/ddbridge_spool_bytes [1-9]/);
    await stack.startCollector();
    await expectAllDelivered(stack, run, result.acknowledged);
  });

  it('survives kill -9 mid-load: nothing acknowledged is missing after a restart', async () => {
    const run = `spool-kill-${Date.now()}`;
    const load = agentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: SECONDS * 1000, run });
    await sleep(Math.max(800, SECONDS * 250));
    await stack.stopCollector(); // leave undelivered data in the spool when the process dies
    await sleep(300);
    await stack.stopSidecar('SIGKILL');
    await sleep(300);
    await stack.restartSidecar();
    await stack.startCollector();
    const result = await load;
    expect(result.networkErrors).toBeGreaterThan(0);
    await expectAllDelivered(stack, run, result.acknowledged);
    expect(stack.sidecarOutput()).toMatch(/resuming delivery of spooled data/);
  });
});

describe('overload', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_MAX_INFLIGHT_REQUESTS: '4', DD_BRIDGE_MAX_INFLIGHT_BYTES: String(8 * 1024 * 1024) } });
  });
  afterAll(async () => stack?.stop());

  it('answers 503 past the in-flight budget, keeps RSS bounded and recovers by itself', async () => {
    const pid = stack.sidecarPid() as number;
    const big = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ message: `overload ${i} ${'x'.repeat(200)}`, service: 'ovl' })));
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 20);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: big, headers: { 'Content-Type': 'application/json' } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    clearInterval(sampler);
    const overloaded = statuses.filter((s) => s === 503).length;
    expect(overloaded).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 202 || s === 503)).toBe(true);
    // 200 concurrent 460 KB requests would need ~90 MB of bodies alone; the budget holds 8 MiB
    expect(peak).toBeLessThan(300 * 1024);
    const metrics = await (await fetch(`${stack.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/ddbridge_overload_rejections_total\{route="logs"\} [1-9]/);
    const after = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify([{ message: 'after overload' }]), headers: { 'Content-Type': 'application/json' } });
    expect(after.status).toBe(202);
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM lets in-flight requests finish with 2xx and exits within the grace period', async () => {
    const stack = await startStack({ sidecarEnv: { DD_BRIDGE_SHUTDOWN_GRACE_MS: '5000', DD_BRIDGE_EXPORT_RETRY_MAX_ELAPSED_MS: '4000' } });
    try {
      await stack.stopCollector(); // requests now wait in the exporter's retries
      const inflight = fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify([{ message: 'in flight', ddtags: 'run:graceful' }]), headers: { 'Content-Type': 'application/json' } });
      await sleep(200);
      const collectorBack = stack.startCollector();
      const started = Date.now();
      const exit = stack.stopSidecar('SIGTERM');
      const res = await inflight;
      expect(res.status).toBe(202);
      expect(await exit).toBe(0);
      expect(Date.now() - started).toBeLessThan(5000 + 1000);
      await collectorBack;
      expect(stack.sidecarOutput()).toMatch(/shutting down/);
      const delivered = await waitFor(() => logRecords(stack.sinkDir).filter((r) => r.attributes.run === 'graceful'), (r) => r.length === 1);
      expect(delivered).toHaveLength(1);
    } finally {
      await stack.stop();
    }
  });
});
