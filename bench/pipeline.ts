/**
 * The sidecar's own cost per record, in process and without sockets: body decoding, parsing,
 * translation and OTLP encoding of each scenario's payloads through the real route handlers. It
 * is what an optimisation of src/ changes, measured in CPU time (steadier than throughput on a
 * shared machine); run it under `node --cpu-prof` to see where the time goes.
 *
 *   node -r ./tools/register.js bench/pipeline.ts [scenario…] [--batch 1000] [--seconds 3]
 */
import { loadConfig, parseArgs } from '../src/config';
import { decodeBody } from '../src/http/decode';
import type { Exporter } from '../src/core/export/exporter';
import { ROUTES, tracerEndpoints } from '../src/signals/routes';
import type { IntakeReply, IntakeRequest, IntakeRoute, RouteContext } from '../src/signals/route';
import { createLogger } from '../src/core/observability/log';
import { BridgeMetrics } from '../src/core/observability/metrics';
import type { EncodedExport } from '../src/core/otlp/encode';
import { parseMediaType } from '../src/core/wire/media-type';
import { deliver } from '../src/http/intake-app';
import { createTranslatorCaches } from '../src/signals/caches';
import { buildScenario, SCENARIOS, type Scenario, type ScenarioName } from './scenarios';

/** Takes the encoded requests the routes hand over, and drops them. */
class DroppingExporter implements Exporter {
  async export(requests: EncodedExport[]) {
    return { accepted: requests.reduce((n, r) => n + r.records, 0), rejected: 0 };
  }
  async close() {}
}
const dropping = new DroppingExporter();

/** The sidecar's settings, defaults with intake on. */
const CONFIG = loadConfig(parseArgs(['--enable']), {});

/** What the sidecar gives its routes. */
export function routeContext(): RouteContext {
  const config = CONFIG;
  return {
    config,
    log: createLogger('error', {}, () => undefined),
    authEnabled: false,
    isValidKey: () => true,
    redactKeys: (text) => text,
    tracerEndpoints: tracerEndpoints(ROUTES),
    caches: createTranslatorCaches({ traceIds: { maxEntries: config.traceIdCacheSize, ttlMs: config.traceIdCacheTtlMs }, metricStreams: { maxEntries: config.metricStreamsMax, idleMs: config.metricStreamsIdleMs } }),
    metrics: new BridgeMetrics(),
  };
}

const lowerCase = (headers: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

/** The scenario's route, as the sidecar serves it. */
export function scenarioRoute(scenario: Scenario): IntakeRoute {
  const route = ROUTES.find((r) => r.paths.includes(scenario.path));
  if (!route) throw new Error(`no route for ${scenario.path}`);
  return route;
}

/** Payload `index` as the intake hands it to the route: decoded, headers lower-cased. */
export async function intakeRequest(scenario: Scenario, index: number): Promise<IntakeRequest> {
  const headers = lowerCase(scenario.headers);
  const raw = (scenario.payloads[index] as { body: Buffer }).body;
  return {
    method: 'POST',
    path: scenario.path,
    headers,
    query: new URLSearchParams(),
    body: await decodeBody(raw, headers['content-encoding'], { maxDecodedBytes: CONFIG.maxDecodedBytes }),
    mediaType: parseMediaType(headers['content-type']),
    receivedAtNs: BigInt(Date.now()) * 1_000_000n,
    remoteAddress: '127.0.0.1',
    authenticated: true,
  };
}

/** Payload `index` through the route, then exported to `exporter` and answered, as the sidecar serves it. */
export async function serveOnce(route: IntakeRoute, scenario: Scenario, index: number, ctx: RouteContext, exporter: Exporter = dropping): Promise<IntakeReply> {
  return deliver(route.accept(await intakeRequest(scenario, index), ctx), exporter);
}

/** One request through decode → route (parse, translate, encode). */
async function handleOnce(scenario: Scenario, index: number, ctx: RouteContext): Promise<void> {
  const reply = await serveOnce(scenarioRoute(scenario), scenario, index, ctx);
  if (reply.status >= 300) throw new Error(`${scenario.name}: ${reply.status} ${String(reply.body)}`);
}

export interface PipelineResult {
  scenario: ScenarioName;
  batch: number;
  requests: number;
  /** CPU µs per record (main thread and helpers alike) */
  cpuUsPerRecord: number;
  /** wall µs per record */
  wallUsPerRecord: number;
}

export async function measurePipeline(scenario: Scenario, seconds: number): Promise<PipelineResult> {
  const ctx = routeContext();
  const records = (i: number): number => (scenario.payloads[i % scenario.payloads.length] as { records: number }).records;
  for (let i = 0; i < 20; i++) await handleOnce(scenario, i % scenario.payloads.length, ctx);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let requests = 0;
  let total = 0;
  while (performance.now() - started < seconds * 1000) {
    await handleOnce(scenario, requests % scenario.payloads.length, ctx);
    total += records(requests++);
  }
  const used = process.cpuUsage(cpu);
  return {
    scenario: scenario.name,
    batch: records(0),
    requests,
    cpuUsPerRecord: (used.user + used.system) / total,
    wallUsPerRecord: ((performance.now() - started) * 1000) / total,
  };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number): number => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args.splice(at, 2)[1]) : fallback;
  };
  const batch = option('--batch', 1000);
  const seconds = option('--seconds', 2);
  // the least of several rounds: other work on the machine only ever adds time
  const rounds = option('--rounds', 3);
  const names = args.length > 0 ? (args as ScenarioName[]) : SCENARIOS;
  void (async () => {
    for (const name of names) {
      const scenario = await buildScenario(name, batch, 8);
      const results: PipelineResult[] = [];
      for (let i = 0; i < rounds; i++) results.push(await measurePipeline(scenario, seconds));
      const cpu = results.map((r) => r.cpuUsPerRecord).sort((a, b) => a - b);
      process.stdout.write(`${name.padEnd(9)} batch ${results[0]?.batch}: ${cpu[0]?.toFixed(2)} µs CPU/record (rounds: ${cpu.map((c) => c.toFixed(1)).join(' ')})\n`);
    }
  })();
}
