/**
 * Spool mode while the collector refuses for a while with a code that is not retryable in the
 * OTLP sense (UNAUTHENTICATED after a token rotation, UNIMPLEMENTED without a logs pipeline) or
 * accepts connections and never answers. The data is fine and the fault is temporary, so the
 * spooled records must stay spooled and be retried until the collector takes them: 0 acknowledged
 * records lost.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentLoad, type RunningLoad } from '../../helpers/agent-load';
import { expectNothingLost } from '../../helpers/delivery';
import { sampleSum, scrapeMetrics } from '../../helpers/prom';
import { startSilentServer } from '../../helpers/silent-server';
import { startStack, type TestStack } from '../../helpers/stack';
import { FAULT_SECONDS, FAULT_TEST_TIMEOUT_MS, sleep } from '../../helpers/timing';

jest.setTimeout(FAULT_TEST_TIMEOUT_MS);

const TOKEN = 'fault-token-current';
const FAULT_MS = Math.max(2500, FAULT_SECONDS * 400);

/**
 * The OTLP receiver only serves the signals a pipeline takes from it: a collector whose own base
 * config has no logs pipeline answers logs with UNIMPLEMENTED (the overlays, file sink and auth,
 * still apply; they can only add, so the fault needs a base of its own).
 */
/** A reference the collector resolves from its environment (its own `$` + `{env:NAME}` syntax). */
const envRef = (name: string): string => ['$', '{env:', name, '}'].join('');

function configWithoutLogsPipeline(dir: string): string {
  const file = join(dir, 'no-logs-pipeline.yaml');
  const pipeline = (name: string) => [`    ${name}:`, '      receivers: [otlp]', '      exporters: [file]'];
  writeFileSync(
    file,
    [
      'extensions:',
      '  health_check:',
      `    endpoint: ${envRef('COLLECTOR_HEALTH_ENDPOINT')}`,
      'receivers:',
      '  otlp:',
      '    protocols:',
      '      grpc:',
      `        endpoint: ${envRef('OTLP_GRPC_ENDPOINT')}`,
      'service:',
      '  extensions: [health_check]',
      '  pipelines:',
      ...pipeline('traces'),
      ...pipeline('metrics'),
      '',
    ].join('\n'),
  );
  return file;
}

describe('spool mode: the collector refuses or hangs for a while', () => {
  let stack: TestStack;
  let load: RunningLoad | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'dd-bridge-refusals-'));
  beforeAll(async () => {
    stack = await startStack({
      authToken: TOKEN,
      sidecarEnv: { DD_BRIDGE_SPOOL_DIR: join(dir, 'spool') },
    });
  });
  afterEach(() => load?.cancel());
  afterAll(async () => stack?.stop());

  /** Steady load; `fault` runs against the live sidecar and must leave the real collector running. */
  async function underLoad(name: string, fault: () => Promise<void>): Promise<string> {
    const run = `${name.replace(/\W+/g, '-')}-${Date.now()}`;
    const outputBefore = stack.sidecarOutput().length;
    load = startAgentLoad({ url: stack.intakeUrl, agents: 4, batchSize: 20, durationMs: FAULT_MS + 2000, run, headers: { 'DD-API-KEY': TOKEN } });
    await sleep(500);
    await fault();
    const result = await load.done;
    await expectNothingLost(name, stack.sinkDir, run, result);
    // spooled: senders were acknowledged throughout
    expect([...result.statuses.keys()]).toEqual(['202']);
    return stack.sidecarOutput().slice(outputBefore);
  }

  it('token rotation (UNAUTHENTICATED for a while): spooled records are retried, not dropped', async () => {
    const output = await underLoad('spool, token rotation', async () => {
      await stack.stopCollector();
      await stack.startCollector({ env: { OTLP_AUTH_TOKEN: 'fault-token-next' } });
      await sleep(FAULT_MS);
      await stack.stopCollector();
      await stack.startCollector();
    });
    expect(output).toMatch(/UNAUTHENTICATED/); // the fault really happened
    const metrics = await scrapeMetrics(stack.adminUrl);
    expect(sampleSum(metrics, 'ddbridge_spool_delivery_retries_total')).toBeGreaterThan(0);
    expect(sampleSum(metrics, 'ddbridge_spool_dead_letter_records_total') ?? 0).toBe(0);
  });

  it('a collector without a logs pipeline (UNIMPLEMENTED for a while): spooled records are retried, not dropped', async () => {
    const noLogs = configWithoutLogsPipeline(dir);
    const output = await underLoad('spool, no logs pipeline', async () => {
      await stack.stopCollector();
      await stack.startCollector({ baseConfig: noLogs });
      await sleep(FAULT_MS);
      await stack.stopCollector();
      await stack.startCollector();
    });
    expect(output).toMatch(/UNIMPLEMENTED/);
    expect(sampleSum(await scrapeMetrics(stack.adminUrl), 'ddbridge_spool_dead_letter_records_total') ?? 0).toBe(0);
  });

  it('a collector that accepts connections and never answers: spooled records wait and are delivered', async () => {
    await underLoad('spool, silent collector', async () => {
      await stack.stopCollector();
      const silent = await startSilentServer(stack.grpcPort);
      await sleep(FAULT_MS);
      await silent.close();
      expect(silent.accepted()).toBeGreaterThan(0);
      await stack.startCollector();
    });
  });
});
