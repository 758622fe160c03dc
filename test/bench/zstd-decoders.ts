/**
 * zstd decoding of each scenario's bodies by every implementation this runtime has, side by side
 * in one process (src/decode/zstd.ts picks the first): CPU per request, all threads counted, so a
 * decoder that works on the thread pool is not flattered.
 *
 *   node -r ./test/bench/register.js test/bench/zstd-decoders.ts [--seconds 2]
 */
import { availableZstdImplementations, decodeZstd, type ZstdImplementation } from '../../src/decode/zstd';
import { buildScenario, type ScenarioName } from './scenarios';

const ZSTD_SCENARIOS: ScenarioName[] = ['logs', 'series', 'sketches'];
const LIMITS = { maxDecodedBytes: 64 * 1024 * 1024 };

async function cpuPerRequest(bodies: Buffer[], implementation: ZstdImplementation, seconds: number): Promise<number> {
  for (const body of bodies) await decodeZstd(body, LIMITS, implementation);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let requests = 0;
  while (performance.now() - started < seconds * 1000) await decodeZstd(bodies[requests++ % bodies.length]!, LIMITS, implementation);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / requests;
}

if (require.main === module) {
  const at = process.argv.indexOf('--seconds');
  const seconds = at >= 0 ? Number(process.argv[at + 1]) : 2;
  void (async () => {
    const implementations = availableZstdImplementations();
    for (const name of ZSTD_SCENARIOS) {
      const scenario = await buildScenario(name, 1000, 8);
      const bodies = scenario.payloads.map((p) => (p as { body: Buffer }).body);
      const micros = new Map<ZstdImplementation, number>();
      for (const implementation of implementations) micros.set(implementation, await cpuPerRequest(bodies, implementation, seconds));
      const slowest = Math.max(...micros.values());
      const columns = [...micros].map(([implementation, us]) => `${implementation} ${us.toFixed(0)} µs (${(slowest / us).toFixed(1)}×)`);
      process.stdout.write(`${name.padEnd(9)} ${(bodies[0]!.length / 1024).toFixed(0)} KiB/request: ${columns.join(', ')}\n`);
    }
  })();
}
