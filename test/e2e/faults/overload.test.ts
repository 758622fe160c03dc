/**
 * Overload: more bodies than the in-flight budget, and a client that pipelines thousands of cheap
 * requests without ever reading a reply. Memory stays bounded, /health keeps answering, and the
 * warn lines for refused requests are rate-limited rather than one per 503.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { healthLine, probeHealth } from '../../helpers/health-probe';
import { scrapeMetrics } from '../../helpers/prom';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_SECONDS, FAULT_TEST_TIMEOUT_MS, peakOf, sleep } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

const rssKiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const RSS_BOUND_KIB = 300 * 1024;
const NEVER_READ_GROWTH_KIB = 100 * 1024;
const lineCount = (text: string): number => text.split('\n').filter((l) => l.trim() !== '').length;

/**
 * Writes `count` pipelined `GET /info` requests on one connection and never reads: every reply
 * the sidecar produces has to wait in its own buffers. Stops writing after `ms` if the socket
 * backs up. Resolves with how many requests went out; the socket stays open until `close()`.
 */
async function pipelineWithoutReading(port: number, count: number, ms: number): Promise<{ written: number; close(): void }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // the sidecar may cut us off; that is an allowed answer
  socket.pause();
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const request = Buffer.from(`GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const chunk = Buffer.concat(Array.from({ length: 100 }, () => request));
  const until = Date.now() + ms;
  let written = 0;
  while (written < count && Date.now() < until && !socket.destroyed) {
    written += 100;
    if (!socket.write(chunk)) {
      const drained = await Promise.race([new Promise<boolean>((r) => socket.once('drain', () => r(true))), sleep(until - Date.now()).then(() => false)]);
      if (!drained) break;
    }
  }
  return { written, close: () => socket.destroy() };
}

describe('overload', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_MAX_INFLIGHT_REQUESTS: '4', DD_BRIDGE_MAX_INFLIGHT_BYTES: String(8 * 1024 * 1024) } });
  });
  afterAll(async () => stack?.stop());

  it('answers 503 past the in-flight budget, keeps RSS bounded, logs far fewer lines than 503s, and recovers by itself', async () => {
    const pid = stack.sidecarPid() as number;
    const big = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ message: `overload ${i} ${'x'.repeat(200)}`, service: 'ovl' })));
    const rss = peakOf(() => rssKiB(pid));
    const linesBefore = lineCount(stack.sidecarOutput());
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: big, headers: { 'Content-Type': 'application/json' } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    const peak = rss.stop();
    const logLines = lineCount(stack.sidecarOutput()) - linesBefore;
    const overloaded = statuses.filter((s) => s === 503).length;
    process.stderr.write(`[fault] overload storm: requests=200 503s=${overloaded} sidecar-log-lines=${logLines} peak-rss=${Math.round(peak / 1024)} MiB\n`);
    expect(overloaded).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 202 || s === 503)).toBe(true);
    // 200 concurrent 460 KB requests would need ~90 MB of bodies alone; the budget holds 8 MiB
    expect(peak).toBeLessThan(RSS_BOUND_KIB);
    // one warn line per refused request would let an overloaded sidecar flood its own logs
    expect(overloaded).toBeGreaterThanOrEqual(20);
    expect(logLines).toBeLessThan(overloaded / 5);
    expect(await scrapeMetrics(stack.adminUrl)).toMatch(/ddbridge_overload_rejections_total\{route="logs"\} [1-9]/);
    const after = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: JSON.stringify([{ message: 'after overload' }]), headers: { 'Content-Type': 'application/json' } });
    expect(after.status).toBe(202);
  });

  it('a client pipelining thousands of requests without reading: RSS bounded, /health answers', async () => {
    const pid = stack.sidecarPid() as number;
    const port = Number(new URL(stack.intakeUrl).port);
    const baseline = rssKiB(pid);
    const rss = peakOf(() => rssKiB(pid));
    const health = probeHealth(stack.adminUrl);
    const client = await pipelineWithoutReading(port, 400_000, Math.max(6000, FAULT_SECONDS * 1000));
    await sleep(1000); // let the sidecar work through what it already read
    const peak = rss.stop();
    const h = await health.stop();
    client.close();
    process.stderr.write(`[fault] never-reading client: requests-written=${client.written} rss=${Math.round(baseline / 1024)}->${Math.round(peak / 1024)} MiB ${healthLine(h)}\n`);
    expect(client.written).toBeGreaterThan(1000);
    expect(stack.sidecarRunning()).toBe(true);
    expect(h.answered).toBeGreaterThan(0);
    // replies nobody reads must not pile up: a bounded sidecar stops reading that connection instead
    expect(peak - baseline).toBeLessThan(NEVER_READ_GROWTH_KIB);
    expect(peak).toBeLessThan(RSS_BOUND_KIB);
    expect((await fetch(`${stack.adminUrl}/health`)).status).toBe(200);
  });
});
