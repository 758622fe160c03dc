/**
 * CPU per Export call of our unary client (src/core/export/grpc-client.ts), of grpc-js, and of OTLP/HTTP
 * (a keep-alive `node:http` POST to the collector's :4318), sending the same encoded log requests
 * to our built collector (debug exporter), alternating in one process with 8 calls in flight.
 * The collector runs on the other core; the client's CPU and the collector's are reported apart.
 *
 *   node -r ./tools/register.js bench/grpc-clients.ts [--rounds 2] [--calls 5000]
 */
import * as grpc from '@grpc/grpc-js';
import { Agent, request } from 'node:http';
import { GrpcClient } from '../src/core/export/grpc-client';
import { encodeExportRequests } from '../src/core/otlp/encode';
import type { LogRecord } from '../src/core/otlp/model';
import { binaries, collectorPorts, cpuSeconds, launchCollector, pin } from './sut';

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
  (
    encodeExportRequests(
      { signal: 'logs', resources: [{ resource: { attributes: [{ key: 'service.name', value: { string: 'web' } }] }, scopeLogs: [{ scope: { name: 'bench' }, logRecords: Array.from({ length: records }, (_, i) => record(i)) }] }] },
      64 << 20,
    )[0] as { body: Buffer }
  ).body;

/** µs of CPU per call: this process (the client), and the collector. */
async function cpuPerCall(call: () => Promise<unknown>, calls: number, collectorPid: number): Promise<[client: number, collector: number]> {
  const run = async (n: number): Promise<void> => {
    let started = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (started++ < n) await call();
      }),
    );
  };
  await run(Math.min(calls, 1000));
  const cpu = process.cpuUsage();
  const collectorCpu = cpuSeconds(collectorPid);
  await run(calls);
  const used = process.cpuUsage(cpu);
  return [(used.user + used.system) / calls, ((cpuSeconds(collectorPid) - collectorCpu) * 1e6) / calls];
}

/** OTLP/HTTP: POST the same bytes to /v1/logs, as an exporter with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf would. */
const viaHttp = (port: number, agent: Agent, body: Buffer) => (): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/logs', method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(undefined) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });

async function main(): Promise<void> {
  const value = (name: string, fallback: number): number => (process.argv.includes(`--${name}`) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : fallback);
  const [rounds, calls] = [value('rounds', 2), value('calls', 5000)];
  const { env, grpc: grpcPort, health } = await collectorPorts();
  const httpPort = Number(String(env.OTLP_HTTP_ENDPOINT).split(':').pop());
  const collector = await launchCollector((await binaries()).ours, { cores: '1', sink: 'debug' }, env, health, false);
  pin(process.pid, '0');
  const ours = new GrpcClient({ address: `127.0.0.1:${grpcPort}`, metadata: {}, gzip: false, pingTimeoutMs: 10_000, userAgent: 'bench' });
  const theirs = new grpc.Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const pid = collector.process.pid as number;
  const show = ([client, col]: [number, number]): string => `${(client + col).toFixed(1)} (client ${client.toFixed(1)} + collector ${col.toFixed(1)})`;
  const pass = (b: Buffer): Buffer => b;
  try {
    for (const records of [10, 1000]) {
      const body = exportBody(records);
      const viaGrpcJs = (): Promise<unknown> => new Promise((resolve, reject) => theirs.makeUnaryRequest(PATH, pass, pass, body, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (err, reply) => (err ? reject(err) : resolve(reply))));
      const viaOurs = (): Promise<unknown> => ours.call(PATH, body, 10_000);
      for (let round = 1; round <= rounds; round++) {
        const [a, b, h] = [await cpuPerCall(viaGrpcJs, calls, pid), await cpuPerCall(viaOurs, calls, pid), await cpuPerCall(viaHttp(httpPort, agent, body), calls, pid)];
        process.stdout.write(
          `${records} records (${body.length} B), round ${round}, µs CPU per call: grpc-js ${show(a)}, ours ${show(b)}, OTLP/HTTP ${show(h)}; ` +
            `clients ours ÷ grpc-js ${(b[0] / a[0]).toFixed(2)}, client + collector OTLP/HTTP ÷ ours ${((h[0] + h[1]) / (b[0] + b[1])).toFixed(2)}\n`,
        );
      }
    }
  } finally {
    theirs.close();
    agent.destroy();
    await ours.close(1_000);
    await collector.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
