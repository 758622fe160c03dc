/**
 * `--workers`: the sidecar with one worker process against two, on this machine, per scenario
 * (issue 26 item 3). Each run starts a fresh side (bench/sut.ts: sidecar + its collector, debug
 * sink; its pids name the primary and each worker), and drives it with bench/loadgen.ts in a
 * closed loop. It reports records per second, CPU µs per record of every process (the primary,
 * each worker, the collector) and the load generator's own CPU, and each worker's peak RSS
 * (VmHWM). Three placements:
 *
 * - `1w iso`: one worker (the single process, `--workers 1`) and its collector on core 0, the
 *   load generator on core 1 — the load kept off the sidecar's core, as bench/ab.ts does;
 * - `1w 2c` and `2w 2c`: one or two workers, the collector and the load generator all on cores
 *   0-1: with two workers the sidecar needs both cores, so nothing can be kept apart on 2 cores,
 *   and the comparison is one against two workers under the same sharing.
 *
 *   node -r ./bench/register.js bench/workers.ts [--scenarios traces,logs,series] [--batch 1000]
 *        [--rounds 3] [--seconds 8] [--concurrency 8]
 */
import { execFileSync } from 'node:child_process';
import { optionValue } from './args';
import { load } from './run';
import { buildScenario, type ScenarioName } from './scenarios';
import { binaries, peakRssMiB, startOurs } from './sut';

interface Placement {
  name: string;
  workers: number;
  sutCores: string;
  loadCores: string;
}

const PLACEMENTS: readonly Placement[] = [
  { name: '1w iso', workers: 1, sutCores: '0', loadCores: '1' },
  { name: '1w 2c', workers: 1, sutCores: '0,1', loadCores: '0,1' },
  { name: '2w 2c', workers: 2, sutCores: '0,1', loadCores: '0,1' },
];

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;

interface Row {
  placement: string;
  scenario: ScenarioName;
  recordsPerSecond: number;
  /** µs of CPU per record, by process */
  cpu: Record<string, number>;
  loadgenCores: number;
  /** peak RSS (VmHWM) MiB, by sidecar process */
  rss: Record<string, number>;
}

async function runOnce(placement: Placement, scenario: ScenarioName, batch: number, seconds: number, concurrency: number, bin: string): Promise<Row> {
  const built = await buildScenario(scenario, batch, 8);
  const sut = await startOurs(bin, { cores: placement.sutCores, sink: 'debug', sidecarEnv: { OTEL_EXPORTER_OTLP_COMPRESSION: 'none', DD_BRIDGE_WORKERS: String(placement.workers) } });
  try {
    const r = await load(
      { url: sut.url, path: built.path, headers: built.headers, bodies: built.payloads.map((p) => p.body), records: built.payloads.map((p) => p.records), mode: 'closed', concurrency, rate: 0, warmupMs: 3000, durationMs: seconds * 1000 },
      placement.loadCores,
      sut,
    );
    const bad = Object.entries(r.statuses).filter(([status]) => !status.startsWith('2'));
    if (bad.length > 0) process.stderr.write(`${placement.name} ${scenario}: non-2xx replies ${JSON.stringify(Object.fromEntries(bad))}\n`);
    const sidecarPids = Object.entries(sut.pids).filter(([name]) => name !== 'collector');
    return {
      placement: placement.name,
      scenario,
      recordsPerSecond: r.records / r.seconds,
      cpu: Object.fromEntries(Object.entries(r.cpuSeconds).map(([name, s]) => [name, (s / r.records) * 1e6])),
      loadgenCores: r.loadgenCpu,
      rss: Object.fromEntries(sidecarPids.map(([name, pid]) => [name, peakRssMiB(pid)])),
    };
  } finally {
    await sut.stop();
  }
}

const fmt = (byName: Record<string, number>, digits: number): string =>
  Object.entries(byName)
    .map(([k, v]) => `${k} ${v.toFixed(digits)}`)
    .join(', ');

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const scenarios = (optionValue(argv, 'scenarios') ?? 'traces,logs,series').split(',') as ScenarioName[];
  const batch = Number(optionValue(argv, 'batch') ?? 1000);
  const rounds = Number(optionValue(argv, 'rounds') ?? 3);
  const seconds = Number(optionValue(argv, 'seconds') ?? 8);
  const concurrency = Number(optionValue(argv, 'concurrency') ?? 8);
  const bin = (await binaries()).ours;
  process.stdout.write(`cores: ${execFileSync('nproc').toString().trim()}; batch ${batch}, concurrency ${concurrency}, ${seconds} s, median of ${rounds} rounds\n`);
  process.stdout.write('| scenario | placement | records/s | sidecar CPU µs/record (by process) | collector µs/record | load generator cores | peak RSS MiB (VmHWM) |\n|---|---|---|---|---|---|---|\n');
  for (const scenario of scenarios) {
    // placements take turns within each round, so that the machine's drift (other tenants) falls on all of them alike
    const runs = new Map<string, Row[]>(PLACEMENTS.map((p) => [p.name, []]));
    const gains: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const placement of PLACEMENTS) runs.get(placement.name)?.push(await runOnce(placement, scenario, batch, seconds, concurrency, bin));
      const [one, two] = [runs.get('1w 2c')?.[round], runs.get('2w 2c')?.[round]];
      if (one && two) gains.push(two.recordsPerSecond / one.recordsPerSecond);
    }
    for (const placement of PLACEMENTS) process.stdout.write(`${tableRow(scenario, placement, runs.get(placement.name) ?? [])}\n`);
    process.stdout.write(`${scenario}: 2w 2c ÷ 1w 2c records/s, by round: ${gains.map((g) => g.toFixed(2)).join(', ')}; median ${median(gains).toFixed(2)}\n`);
  }
}

/** The round of median throughput, with its CPU per record and RSS. */
function tableRow(scenario: ScenarioName, placement: Placement, runs: Row[]): string {
  const best = runs.find((r) => r.recordsPerSecond === median(runs.map((x) => x.recordsPerSecond))) as Row;
  const { collector = NaN, ...sidecar } = best.cpu;
  const sidecarTotal = Object.values(sidecar).reduce((a, b) => a + b, 0);
  const spread = `${Math.round(Math.min(...runs.map((r) => r.recordsPerSecond)))}–${Math.round(Math.max(...runs.map((r) => r.recordsPerSecond)))}`;
  return `| ${scenario} | ${placement.name} | ${Math.round(best.recordsPerSecond)} (${spread}) | ${sidecarTotal.toFixed(2)} (${fmt(sidecar, 2)}) | ${collector.toFixed(2)} | ${best.loadgenCores.toFixed(2)} | ${fmt(best.rss, 0)} |`;
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
