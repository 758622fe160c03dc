/**
 * Spool mode on a busy machine (CPU hogs beside the stack): every kind of collector outage —
 * down, a token it refuses (UNAUTHENTICATED), no logs pipeline (UNIMPLEMENTED), a listener that
 * never answers, a frozen process (SIGSTOP) — long enough for retry backoff to grow. Senders get
 * 202 throughout, and once the outage ends the spool must be empty within DRAIN_BOUND_MS (the
 * collector accepted everything) without a restart, with every acknowledged record at the
 * destination. Then the collector connection reset every 3 s under moderate load: a 202 in spool
 * mode needs only a local disk write, so intake p99 must stay within INTAKE_P99_BOUND_MS.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, startAgentLoad, type LoadResult, type RunningLoad } from '../../helpers/agent-load';
import { cpuMsOf, startCpuHogs, type CpuHogs } from '../../helpers/cpu-hogs';
import { awaitDelivery, reportFigures } from '../../helpers/delivery';
import { freePort } from '../../helpers/ports';
import { sampleSum, scrapeMetrics } from '../../helpers/prom';
import { startResetProxy } from '../../helpers/reset-proxy';
import { startSilentServer, type SilentServer } from '../../helpers/silent-server';
import { startStack, type TestStack } from '../../helpers/stack';
import { sleep } from '../../helpers/timing';

/** Issue 33's bounds: drained within 10 s of the outage's end, intake p99 within 1 s. */
const DRAIN_BOUND_MS = 10_000;
const INTAKE_P99_BOUND_MS = 1_000;
/** Long enough for a backoff that doubles from 100 ms to pass 10 s. */
const OUTAGE_MS = Number(process.env.SPOOL_OUTAGE_MS ?? '20000');
/** Beside the two cores of the smallest machine this runs on: the load average doubles or triples. */
const HOGS = Number(process.env.SPOOL_FAULT_HOGS ?? '3');
/** Moderate agent-like load: 4 agents flushing 20 lines every 100 ms (at most 800 lines/s). */
const LOAD = { agents: 4, batchSize: 20, pauseMs: 100 };
/** How long a case watches a spool that is not draining, to report how far it got. */
const WATCH_MS = 45_000;

jest.setTimeout(OUTAGE_MS + WATCH_MS + 60_000);

const TOKEN = 'fault-token-current';
const headers = { 'DD-API-KEY': TOKEN };

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

const spoolBytes = async (stack: TestStack): Promise<number> => sampleSum(await scrapeMetrics(stack.adminUrl), 'ddbridge_spool_bytes') ?? Number.NaN;

/** Milliseconds until the sidecar reports an empty spool, or undefined if it still holds data after `timeoutMs`. */
async function timeToDrain(stack: TestStack, from: number, timeoutMs: number): Promise<number | undefined> {
  while (Date.now() - from < timeoutMs) {
    if ((await spoolBytes(stack)) === 0) return Date.now() - from;
    await sleep(100);
  }
  return undefined;
}

interface Outage {
  name: string;
  /** What the sidecar logs while it lasts (proof the fault happened), if anything specific. */
  says?: RegExp;
  begin(stack: TestStack, dir: string): Promise<void>;
  /** Resolves once the real collector takes data again. */
  end(stack: TestStack): Promise<void>;
}

let silent: SilentServer | undefined;
const restartCollector = async (stack: TestStack): Promise<void> => {
  await stack.stopCollector();
  await stack.startCollector();
};
const signalCollector = (stack: TestStack, signal: NodeJS.Signals): void => {
  process.kill(stack.collectorPid() as number, signal);
};

const OUTAGES: Outage[] = [
  { name: 'collector down', says: /UNAVAILABLE/, begin: (stack) => stack.stopCollector(), end: (stack) => stack.startCollector() },
  {
    name: 'token the collector refuses',
    says: /UNAUTHENTICATED/,
    begin: async (stack) => {
      await stack.stopCollector();
      await stack.startCollector({ env: { OTLP_AUTH_TOKEN: 'fault-token-next' } });
    },
    end: restartCollector,
  },
  {
    name: 'no logs pipeline',
    says: /UNIMPLEMENTED/,
    begin: async (stack, dir) => {
      const noLogs = configWithoutLogsPipeline(dir);
      await stack.stopCollector();
      await stack.startCollector({ baseConfig: noLogs });
    },
    end: restartCollector,
  },
  {
    name: 'a listener that never answers',
    says: /DEADLINE_EXCEEDED/,
    begin: async (stack) => {
      await stack.stopCollector();
      silent = await startSilentServer(stack.grpcPort);
    },
    end: async (stack) => {
      await silent?.close();
      expect(silent?.accepted()).toBeGreaterThan(0);
      await stack.startCollector();
    },
  },
  {
    name: 'collector frozen (SIGSTOP)',
    begin: async (stack) => signalCollector(stack, 'SIGSTOP'),
    end: async (stack) => signalCollector(stack, 'SIGCONT'),
  },
];

describe('spool mode on a busy machine: after any collector outage, the spool drains by itself', () => {
  let hogs: CpuHogs;
  let stack: TestStack;
  let load: RunningLoad | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'dd-bridge-spool-outages-'));
  beforeAll(async () => {
    hogs = startCpuHogs(HOGS);
    stack = await startStack({ authToken: TOKEN, sidecarEnv: { DD_BRIDGE_SPOOL_DIR: join(dir, 'spool') } });
  });
  afterEach(async () => {
    load?.cancel();
    // a case that failed half-way must not leave the collector frozen or a listener on its port
    if (stack?.collectorPid()) signalCollector(stack, 'SIGCONT');
    await silent?.close();
  });
  afterAll(async () => {
    await stack?.stop();
    await hogs?.stop();
  });

  it.each(OUTAGES.map((o) => [o.name, o] as const))('%s', async (name, outage) => {
    const run = `spool-outage-${name.replace(/\W+/g, '-')}-${Date.now()}`;
    const outputFrom = stack.sidecarOutput().length;
    await outage.begin(stack, dir);
    load = startAgentLoad({ url: stack.intakeUrl, ...LOAD, durationMs: OUTAGE_MS, run, headers });
    const result = await load.done;
    await outage.end(stack);
    const ended = Date.now();
    const drainedMs = await timeToDrain(stack, ended, WATCH_MS);
    const left = await spoolBytes(stack);
    const d = await awaitDelivery(stack.sinkDir, run, result.acknowledged, 30_000);
    const deliveredMs = Date.now() - ended;
    reportFigures(`spool outage, ${name}, ${hogs.count} CPU hogs`, d, result, `outage-ms=${OUTAGE_MS} drained-ms=${drainedMs ?? `>${WATCH_MS} (${left} bytes left)`} all-in-sink-ms=${deliveredMs}`);
    expect([...result.statuses.keys()]).toEqual(['202']);
    expect(d.acknowledged).toBeGreaterThan(0);
    if (outage.says) expect(stack.sidecarOutput().slice(outputFrom)).toMatch(outage.says);
    expect(drainedMs).toBeDefined();
    expect(drainedMs).toBeLessThanOrEqual(DRAIN_BOUND_MS);
    expect(d.lost).toEqual([]);
    // retried, never given up on: the data is fine and the fault temporary
    const metrics = await scrapeMetrics(stack.adminUrl);
    expect(sampleSum(metrics, 'ddbridge_spool_delivery_retries_total')).toBeGreaterThan(0);
    expect(sampleSum(metrics, 'ddbridge_spool_dead_letter_records_total') ?? 0).toBe(0);
  });
});

describe('spool mode on a busy machine: the collector connection reset every 3 s', () => {
  let hogs: CpuHogs;
  let stack: TestStack;
  let load: RunningLoad | undefined;
  let proxyPort: number;
  beforeAll(async () => {
    hogs = startCpuHogs(HOGS);
    proxyPort = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'dd-bridge-spool-resets-'));
    stack = await startStack({ otlpEndpoint: `http://127.0.0.1:${proxyPort}`, sidecarEnv: { DD_BRIDGE_SPOOL_DIR: join(dir, 'spool') } });
  });
  afterEach(() => load?.cancel());
  afterAll(async () => {
    await stack?.stop();
    await hogs?.stop();
  });

  it('intake p99 stays within 1 s (a 202 waits only for the disk); the spool keeps up and every acknowledged record arrives', async () => {
    const run = `spool-resets-${Date.now()}`;
    const proxy = await startResetProxy(proxyPort, stack.grpcPort, 3_000);
    const sidecar = stack.sidecarPid() as number;
    const cpuBefore = cpuMsOf(sidecar);
    let result: LoadResult;
    try {
      load = startAgentLoad({ url: stack.intakeUrl, ...LOAD, pauseMs: 50, durationMs: OUTAGE_MS, run });
      result = await load.done;
      const loadEnded = Date.now();
      const cpuPerRequest = ((cpuMsOf(sidecar) - cpuBefore) / result.latenciesMs.length).toFixed(2);
      // the resets go on: each is an outage of the connection that ends, so the spool must keep up
      const drainedMs = await timeToDrain(stack, loadEnded, WATCH_MS);
      const d = await awaitDelivery(stack.sinkDir, run, result.acknowledged, 30_000);
      const ms = (p: number): string => percentile(result.latenciesMs, p).toFixed(0);
      reportFigures(
        `spool, collector connection reset every 3 s, ${hogs.count} CPU hogs`,
        d,
        result,
        `resets=${proxy.resets()} requests=${result.latenciesMs.length} intake-ms p50=${ms(50)} p99=${ms(99)} max=${ms(100)} sidecar-cpu-ms/request=${cpuPerRequest} drained-ms-after-load=${drainedMs ?? `>${WATCH_MS}`}`,
      );
      expect(proxy.resets()).toBeGreaterThanOrEqual(3);
      expect(d.lost).toEqual([]);
      expect(drainedMs).toBeDefined();
      expect(drainedMs).toBeLessThanOrEqual(DRAIN_BOUND_MS);
    } finally {
      await proxy.close();
    }
    expect([...result.statuses.keys()]).toEqual(['202']);
    expect(percentile(result.latenciesMs, 99)).toBeLessThanOrEqual(INTAKE_P99_BOUND_MS);
  });
});
