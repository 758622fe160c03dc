/**
 * zstd decoding of each scenario's bodies, at 10 and 1000 records per request, by every
 * implementation this runtime has (src/http/decode/zstd.ts picks the first) and by @mongodb-js/zstd,
 * the async libzstd binding used before zstd-napi (now only the tests' encoder), side by side in
 * one process: CPU per request, all threads counted, so a decoder that works on the thread pool
 * is not flattered.
 *
 *   node -r ./tools/register.js bench/zstd-decoders.ts [--seconds 2]
 */
import { decompress as formerAddon } from '@mongodb-js/zstd';
import { availableZstdImplementations, decodeZstd } from '../src/http/decode/zstd';
import { buildScenario, type ScenarioName } from './scenarios';

const ZSTD_SCENARIOS: ScenarioName[] = ['logs', 'series', 'sketches'];
const BATCHES = [10, 1000];
const LIMITS = { maxDecodedBytes: 64 * 1024 * 1024 };

type Decoder = (body: Buffer) => Promise<Buffer>;

async function cpuPerRequest(bodies: Buffer[], decode: Decoder, seconds: number): Promise<number> {
  for (const body of bodies) await decode(body);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let requests = 0;
  while (performance.now() - started < seconds * 1000) await decode(bodies[requests++ % bodies.length]!);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / requests;
}

if (require.main === module) {
  const at = process.argv.indexOf('--seconds');
  const seconds = at >= 0 ? Number(process.argv[at + 1]) : 2;
  const decoders: [string, Decoder][] = [...availableZstdImplementations().map((implementation): [string, Decoder] => [implementation, (body) => decodeZstd(body, LIMITS, implementation)]), ['@mongodb-js/zstd (former)', formerAddon]];
  void (async () => {
    for (const name of ZSTD_SCENARIOS) {
      for (const batch of BATCHES) {
        const scenario = await buildScenario(name, batch, 8);
        const bodies = scenario.payloads.map((p) => p.body);
        const micros: [string, number][] = [];
        for (const [label, decode] of decoders) micros.push([label, await cpuPerRequest(bodies, decode, seconds)]);
        const slowest = Math.max(...micros.map(([, us]) => us));
        const columns = micros.map(([label, us]) => `${label} ${us.toFixed(0)} µs (${(slowest / us).toFixed(1)}×)`);
        process.stdout.write(`${name.padEnd(9)} ${String(batch).padStart(4)} records, ${(bodies[0]!.length / 1024).toFixed(1)} KiB: ${columns.join(', ')}\n`);
      }
    }
  })();
}
