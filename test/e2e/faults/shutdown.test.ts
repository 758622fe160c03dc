/**
 * SIGTERM: requests waiting for a live collector finish; with a collector that accepts connections
 * and never answers, the sidecar still exits within its grace period (sync and spool mode), and in
 * spool mode nothing it acknowledged is lost once a real collector is back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentLoad } from '../../helpers/agent-load';
import { expectNothingLost } from '../../helpers/delivery';
import { startSilentServer } from '../../helpers/silent-server';
import { logRecords, waitFor } from '../../helpers/sink';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_SECONDS, FAULT_TEST_TIMEOUT_MS, sleep } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

const GRACE_MS = 2000;
/** Process start-up/teardown slack on a shared 2-core machine; the point is "not the 10 s export deadline, not forever". */
const EXIT_MARGIN_MS = 1500;

const postLogs = (stack: TestStack, body: unknown): Promise<number | string> =>
  fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }).then(
    async (r) => {
      await r.arrayBuffer();
      return r.status;
    },
    () => 'network-error',
  );

/** SIGTERM, and how long until the process was gone; one that is still there after `limitMs` gets SIGKILL (code 'hung'). */
async function timedTerm(stack: TestStack, limitMs = 15_000): Promise<{ code: number | null | 'hung'; ms: number }> {
  const started = Date.now();
  const code = await Promise.race([stack.stopSidecar('SIGTERM'), sleep(limitMs).then(() => 'hung' as const)]);
  const ms = Date.now() - started;
  if (code === 'hung') await stack.stopSidecar('SIGKILL');
  return { code, ms };
}

describe('graceful shutdown', () => {
  it('SIGTERM lets in-flight requests finish with 2xx and exits within the grace period', async () => {
    const stack = await startStack({ sidecarEnv: { DD_BRIDGE_SHUTDOWN_GRACE_MS: '5000', DD_BRIDGE_EXPORT_RETRY_MAX_ELAPSED_MS: '4000' } });
    try {
      await stack.stopCollector(); // requests now wait in the exporter's retries
      const inflight = postLogs(stack, [{ message: 'in flight', ddtags: 'run:graceful' }]);
      await sleep(200);
      const collectorBack = stack.startCollector();
      const exit = timedTerm(stack);
      expect(await inflight).toBe(202);
      const { code, ms } = await exit;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(5000 + 1000);
      await collectorBack;
      expect(stack.sidecarOutput()).toMatch(/shutting down/);
      const delivered = await waitFor(
        () => logRecords(stack.sinkDir).filter((r) => r.attributes.run === 'graceful'),
        (r) => r.length === 1,
      );
      expect(delivered).toHaveLength(1);
    } finally {
      await stack.stop();
    }
  });
});

describe('shutdown with a collector that accepts connections and never answers', () => {
  it('synchronous mode: exits within the grace period, and no request waiting on it got a 2xx', async () => {
    const stack = await startStack({ collector: false, sidecarEnv: { DD_BRIDGE_SHUTDOWN_GRACE_MS: String(GRACE_MS), DD_BRIDGE_EXPORT_RETRY_MAX_ELAPSED_MS: '60000' } });
    const silent = await startSilentServer(stack.grpcPort);
    try {
      const inflight = Array.from({ length: 10 }, (_, i) => postLogs(stack, [{ message: `hang ${i}`, ddtags: 'run:hang-sync' }]));
      await sleep(500);
      expect(silent.accepted()).toBeGreaterThan(0); // the sidecar really is stuck on the silent collector
      const { code, ms } = await timedTerm(stack);
      const statuses = await Promise.all(inflight);
      process.stderr.write(`[fault] shutdown, silent collector, sync: exit=${code} after ${ms} ms (grace ${GRACE_MS} ms) in-flight=${statuses.join(',')}\n`);
      expect(ms).toBeLessThan(GRACE_MS + EXIT_MARGIN_MS);
      expect(code).toBe(0);
      // nothing reached the collector, so a 2xx would have been a lie
      expect(statuses.filter((s) => typeof s === 'number' && s >= 200 && s < 300)).toEqual([]);
    } finally {
      await silent.close();
      await stack.stop();
    }
  });

  it('spool mode: exits within the grace period and delivers everything acknowledged after a restart', async () => {
    const spoolDir = mkdtempSync(join(tmpdir(), 'dd-bridge-spool-hang-'));
    const stack = await startStack({ collector: false, sidecarEnv: { DD_BRIDGE_SPOOL_DIR: spoolDir, DD_BRIDGE_SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
    const silent = await startSilentServer(stack.grpcPort);
    const run = `hang-spool-${Date.now()}`;
    const load = startAgentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: Math.max(3000, FAULT_SECONDS * 1000), run });
    try {
      await sleep(1000);
      expect(silent.accepted()).toBeGreaterThan(0);
      const { code, ms } = await timedTerm(stack);
      process.stderr.write(`[fault] shutdown, silent collector, spool: exit=${code} after ${ms} ms (grace ${GRACE_MS} ms)\n`);
      await silent.close();
      await stack.startCollector();
      await stack.restartSidecar();
      await expectNothingLost('shutdown, silent collector, spool', stack.sinkDir, run, await load.done);
      expect(ms).toBeLessThan(GRACE_MS + EXIT_MARGIN_MS);
      expect(code).toBe(0);
    } finally {
      load.cancel();
      await silent.close();
      await stack.stop();
    }
  });
});
