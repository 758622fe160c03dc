/**
 * `--reuse-port`: several sidecar processes on one intake port of one host (docs/decisions/007-one-process.md),
 * each with its own admin port, both delivering through the real collector.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { deliveredCounts } from '../helpers/delivery';
import { freePort } from '../helpers/ports';
import { scrapeMetrics } from '../helpers/prom';
import { eventually, startStack, type TestStack } from '../helpers/stack';
import { parseReusePort } from '../../src/config/options';

const nodeHasReusePort = ((): boolean => {
  try {
    return parseReusePort('true', 'node');
  } catch {
    return false;
  }
})();

/** How many log requests a sidecar answered 202, from its /metrics. */
const acceptedLogs = async (adminUrl: string): Promise<number> => {
  const line = (await scrapeMetrics(adminUrl)).split('\n').find((l) => l.startsWith('ddbridge_http_requests_total{') && l.includes('route="logs"') && l.includes('status="202"'));
  return line ? Number(line.split(' ').pop()) : 0;
};

(nodeHasReusePort ? describe : describe.skip)('two sidecars on one port (--reuse-port)', () => {
  let stack: TestStack;
  let second: ReturnType<typeof spawn> | undefined;
  afterAll(async () => {
    second?.kill('SIGTERM');
    await stack?.stop();
  });

  it('the kernel spreads connections over both processes, and what each acknowledged lands', async () => {
    stack = await startStack({ sidecarEnv: { DD_BRIDGE_REUSE_PORT: 'true' } });
    const admin2 = await freePort();
    second = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        ENABLE_VENDOR_RECEIVER: 'true',
        DD_BRIDGE_LISTEN: new URL(stack.intakeUrl).host,
        DD_BRIDGE_ADMIN_LISTEN: `127.0.0.1:${admin2}`,
        DD_BRIDGE_REUSE_PORT: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${stack.grpcPort}`,
      },
      stdio: 'ignore',
    });
    const adminUrl2 = `http://127.0.0.1:${admin2}`;
    expect(await eventually(async () => (await fetch(`${adminUrl2}/health`).catch(() => undefined))?.ok === true, 15_000)).toBe(true);

    const run = `reuse-port-${Date.now()}`;
    // a new connection each: SO_REUSEPORT picks a listener per connection
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', headers: { 'Content-Type': 'application/json', Connection: 'close' }, body: JSON.stringify([{ message: `${run} ${i}`, service: 'reuse-port', ddtags: `run:${run},id:${i}` }]) });
      expect(res.status).toBe(202);
    }
    const [first, other] = await Promise.all([acceptedLogs(stack.adminUrl), acceptedLogs(adminUrl2)]);
    expect(first + other).toBe(40);
    expect(first).toBeGreaterThan(0);
    expect(other).toBeGreaterThan(0);
    expect(await eventually(async () => deliveredCounts(stack.sinkDir, run).size === 40, 20_000)).toBe(true);
  });
});
