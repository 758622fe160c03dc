/**
 * What our collector costs to take the sidecar's traces, by transport: the OTLP requests the real
 * /v0.4 route produced for the scenario's bodies, sent in a closed loop over gRPC (our client,
 * as the sidecar sends) and over OTLP/HTTP protobuf (POST /v1/traces), rounds alternating. The
 * collector (memory_limiter → batch → debug) is pinned to the SUT core, this process to the load
 * core; both processes' CPU per span is reported. It answers whether the second decode that
 * docs/decisions/006-traces-direct-readers.md names could be made cheaper by the transport, and
 * (`--merge N`: N requests back to back in one message, as the coalescer sends requests of one
 * event-loop turn) what one export call costs the collector beyond its spans.
 *
 *   node -r ./tools/register.js bench/collector-receive.ts [--batch 1000] [--merge 1] [--rounds 3] [--seconds 6] [--concurrency 8]
 */
import { Agent, request } from 'node:http';
import { GrpcClient } from '../src/core/export/grpc-client';
import type { EncodedExport } from '../src/core/otlp/encode';
import { deliver } from '../src/http/intake-app';
import { freePort } from '../test/helpers/ports';
import { collectorListenEnv } from '../test/helpers/stack';
import { optionValue } from './args';
import { KeepingExporter } from './floor-sidecar';
import { intakeRequest, routeContext, scenarioRoute } from './pipeline';
import { spread } from './report';
import { buildScenario } from './scenarios';
import { binaries, cpuSeconds, launchCollector, pin } from './sut';

const TRACES_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
type Transport = 'grpc' | 'http';

interface Options {
  batch: number;
  rounds: number;
  seconds: number;
  concurrency: number;
  /** requests sent as one message, back to back (what the coalescer does with requests of one turn) */
  merge: number;
  sutCores: string;
  loadCores: string;
}

function parseOptions(argv: string[]): Options {
  const value = (name: string, fallback: string): string => optionValue(argv, name) ?? fallback;
  return {
    batch: Number(value('batch', '1000')),
    rounds: Number(value('rounds', '3')),
    seconds: Number(value('seconds', '6')),
    concurrency: Number(value('concurrency', '8')),
    merge: Number(value('merge', '1')),
    sutCores: value('sut-cores', '0'),
    loadCores: value('load-cores', '1'),
  };
}

/** The OTLP requests the real route exports for each of the scenario's bodies. */
async function otlpRequests(batch: number, merge: number): Promise<EncodedExport[]> {
  const scenario = await buildScenario('traces', batch, 8);
  const route = scenarioRoute(scenario);
  const kept: EncodedExport[] = [];
  for (let i = 0; i < scenario.payloads.length; i++) {
    const exporter = new KeepingExporter();
    await deliver(route.accept(await intakeRequest(scenario, i), routeContext()), exporter);
    kept.push(...exporter.kept);
  }
  return Array.from({ length: kept.length }, (_, i) => {
    const run = Array.from({ length: merge }, (_, j) => kept[(i + j) % kept.length] as EncodedExport);
    return { signal: 'traces', body: Buffer.concat(run.map((r) => r.body)), records: run.reduce((n, r) => n + r.records, 0) };
  });
}

function httpSender(port: number): (body: Buffer) => Promise<void> {
  const agent = new Agent({ keepAlive: true });
  return (body) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': String(body.length) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
}

function grpcSender(port: number): (body: Buffer) => Promise<void> {
  const client = new GrpcClient({ address: `127.0.0.1:${port}`, metadata: {}, gzip: false, pingTimeoutMs: 5000, userAgent: 'dd-otlp-bridge-bench' });
  return async (body) => void (await client.call(TRACES_PATH, body, 10_000));
}

/** Closed loop for `seconds`; CPU per span of the collector and of this process over that window. */
async function measure(send: (body: Buffer) => Promise<void>, requests: readonly EncodedExport[], o: Options, collectorPid: number): Promise<{ collector: number; client: number }> {
  let spans = 0;
  let next = 0;
  const cpu0 = cpuSeconds(collectorPid);
  const own0 = process.cpuUsage();
  const end = Date.now() + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (Date.now() < end) {
        const r = requests[next++ % requests.length] as EncodedExport;
        await send(r.body);
        spans += r.records;
      }
    }),
  );
  const own = process.cpuUsage(own0);
  return { collector: ((cpuSeconds(collectorPid) - cpu0) / spans) * 1e6, client: (own.user + own.system) / spans };
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  pin(process.pid, o.loadCores);
  const requests = await otlpRequests(o.batch, o.merge);
  const bins = await binaries();
  const [grpc, http, health, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env = { ...collectorListenEnv({ grpc, http, health, metrics }), COLLECTOR_BATCH_TIMEOUT: '200ms', COLLECTOR_LOG_LEVEL: 'warn' };
  const collector = await launchCollector(bins.ours, { cores: o.sutCores, sink: 'debug' }, env, health, false);
  const pid = collector.process.pid as number;
  pin(pid, o.sutCores);
  const senders: Record<Transport, (body: Buffer) => Promise<void>> = { grpc: grpcSender(grpc), http: httpSender(http) };
  try {
    for (const t of ['grpc', 'http'] as const) await measure(senders[t], requests, { ...o, seconds: 2 }, pid);
    const ratios: number[] = [];
    for (let round = 1; round <= o.rounds; round++) {
      const g = await measure(senders.grpc, requests, o, pid);
      const h = await measure(senders.http, requests, o, pid);
      ratios.push(h.collector / g.collector);
      process.stdout.write(`round ${round}: collector µs/span gRPC ${g.collector.toFixed(2)}, HTTP ${h.collector.toFixed(2)} (HTTP ÷ gRPC ${(h.collector / g.collector).toFixed(3)}); client µs/span gRPC ${g.client.toFixed(2)}, HTTP ${h.client.toFixed(2)}\n`);
    }
    const { median, min, max } = spread(ratios);
    process.stdout.write(`batch ${o.batch}${o.merge > 1 ? ` × ${o.merge} per message` : ''}: collector CPU per span, HTTP ÷ gRPC, median of ${o.rounds}: ${median.toFixed(3)} (${min.toFixed(3)}–${max.toFixed(3)})\n`);
  } finally {
    await collector.stop();
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
