/**
 * CPU per Export call of our unary client (src/export/grpc-client.ts) and of grpc-js, sending the
 * same encoded log requests to our built collector (debug exporter), alternating in one process
 * with 8 calls in flight. The collector runs on the other core, so only the client's CPU counts.
 *
 *   node -r ./test/bench/register.js test/bench/grpc-clients.ts [--rounds 2] [--calls 5000]
 */
import * as grpc from '@grpc/grpc-js';
import { GrpcClient } from '../../src/export/grpc-client';
import { encodeExportRequests } from '../../src/otlp/encode';
import type { LogRecord } from '../../src/otlp/model';
import { binaries, collectorPorts, launchCollector, pin } from './sut';

const PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
const IN_FLIGHT = 8;

const record = (i: number): LogRecord => ({
  timeUnixNano: BigInt(i),
  observedTimeUnixNano: BigInt(i),
  severityNumber: 9,
  severityText: 'info',
  body: { string: `GET /api/items/${i} 200 in ${i % 97} ms `.repeat(4) },
  attributes: [{ key: 'host', value: { string: 'web-1' } }],
});

const exportBody = (records: number): Buffer =>
  (encodeExportRequests({ signal: 'logs', resources: [{ resource: { attributes: [{ key: 'service.name', value: { string: 'web' } }] }, scopeLogs: [{ scope: { name: 'bench' }, logRecords: Array.from({ length: records }, (_, i) => record(i)) }] }] }, 64 << 20)[0] as { body: Buffer }).body;

async function cpuPerCall(call: () => Promise<unknown>, calls: number): Promise<number> {
  const run = async (n: number): Promise<void> => {
    let started = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (started++ < n) await call();
    }));
  };
  await run(Math.min(calls, 1000));
  const cpu = process.cpuUsage();
  await run(calls);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
}

async function main(): Promise<void> {
  const value = (name: string, fallback: number): number => (process.argv.includes(`--${name}`) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : fallback);
  const [rounds, calls] = [value('rounds', 2), value('calls', 5000)];
  const { env, grpc: grpcPort, health } = await collectorPorts();
  const collector = await launchCollector((await binaries()).ours, { cores: '1', sink: 'debug' }, env, health, false);
  pin(process.pid, '0');
  const ours = new GrpcClient({ address: `127.0.0.1:${grpcPort}`, metadata: {}, gzip: false, pingTimeoutMs: 10_000, userAgent: 'bench' });
  const theirs = new grpc.Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
  const pass = (b: Buffer): Buffer => b;
  try {
    for (const records of [10, 1000]) {
      const body = exportBody(records);
      const viaGrpcJs = (): Promise<unknown> => new Promise((resolve, reject) => theirs.makeUnaryRequest(PATH, pass, pass, body, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (err, reply) => (err ? reject(err) : resolve(reply))));
      const viaOurs = (): Promise<unknown> => ours.call(PATH, body, 10_000);
      for (let round = 1; round <= rounds; round++) {
        const [a, b] = [await cpuPerCall(viaGrpcJs, calls), await cpuPerCall(viaOurs, calls)];
        process.stdout.write(`${records} records (${body.length} B), round ${round}: grpc-js ${a.toFixed(1)} µs CPU per call, ours ${b.toFixed(1)}, ours ÷ grpc-js ${(b / a).toFixed(2)}\n`);
      }
    }
  } finally {
    theirs.close();
    await ours.close(1_000);
    await collector.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
