/**
 * Two builds of the sidecar side by side, at the same time, on the same core: the way to tell
 * whether a change bought anything. Either side may also be `upstream` (the reference collector
 * with the upstream receiver), for a ratio of CPU per record that the machine's drift cannot move. This VM's speed drifts by ±30 % from minute to minute (other
 * tenants), so two runs one after the other cannot show a 10 % change; two sides loaded in the same
 * window suffer the same drift, and the ratio of their CPU per record holds still.
 *
 * Each side is a sidecar + its own collector, all pinned to the SUT core; one load generator per
 * side runs on the load core with the same bodies. Each round starts both sides fresh and reports
 * CPU µs per record (every process of the side) and peak RSS for each, and B ÷ A; the last line is
 * the median ratio.
 *
 * `floor` (floor-sidecar.ts) is the sidecar with its route doing no work: what this design costs before any route code;
 *
 * `--sink clickhouse` measures the whole path: each side writes into a ClickHouse of its own
 * (bench/destination.ts) through the same clickhouse exporter build and persistent queue, and that
 * server's CPU is the side's too. CPU is then counted from the window's opening until every
 * acknowledged record is in ClickHouse (the exporter's queue drained), over the records
 * acknowledged from the opening on, stragglers included.
 *
 *   node -r ./tools/register.js bench/ab.ts --a /path/to/base/dist/cli/main.js|upstream|floor [--b dist/cli/main.js|upstream|floor]
 *        [--scenario logs] [--coding zstd|deflate|gzip] [--batch 10] [--rounds 5] [--warmup 3] [--seconds 8] [--concurrency 8] [--mode closed|open --rate 200] [--sink debug|clickhouse]
 *        [--a-node-args "..."] [--b-node-args "--max-semi-space-size=8"] [--a-env K=V,…] [--b-env MALLOC_ARENA_MAX=2]
 */
import { join } from 'node:path';
import { envList, optionValue } from './args';
import { REPO_ROOT } from '../tools/src/collector/build';
import { drained } from './destination';
import { load } from './run';
import { buildScenario, isTraces, type AgentCoding, type ScenarioName } from './scenarios';
import { binaries, cpuOf, peakRssMiB, startOurs, startUpstream, type RunningSut, type SutOptions } from './sut';

interface AbOptions {
  a: string;
  b: string;
  /** node flags per side, e.g. --b-node-args "--max-semi-space-size=8" */
  nodeArgs: [string[], string[]];
  /** extra sidecar environment per side, e.g. --b-env MALLOC_ARENA_MAX=2,UV_THREADPOOL_SIZE=1 */
  env: [Record<string, string>, Record<string, string>];
  scenario: ScenarioName;
  /** how logs and metric bodies are compressed (older agents: deflate metrics, gzip logs) */
  coding: AgentCoding;
  batch: number;
  rounds: number;
  /** seconds of load before the measured window */
  warmupSeconds: number;
  seconds: number;
  concurrency: number;
  mode: 'closed' | 'open';
  rate: number;
  sutCores: string;
  loadCores: string;
  sink: 'debug' | 'clickhouse';
}

function parseOptions(argv: string[]): AbOptions {
  const value = (name: string): string | undefined => optionValue(argv, name);
  const a = value('a');
  if (!a) throw new Error('--a <path to the baseline build’s dist/cli/main.js> is required');
  return {
    a,
    b: value('b') ?? join(REPO_ROOT, 'dist', 'cli', 'main.js'),
    nodeArgs: [value('a-node-args')?.split(' ').filter(Boolean) ?? [], value('b-node-args')?.split(' ').filter(Boolean) ?? []],
    env: [envList(value('a-env')), envList(value('b-env'))],
    scenario: (value('scenario') ?? 'logs') as ScenarioName,
    coding: (value('coding') ?? 'zstd') as AgentCoding,
    batch: Number(value('batch') ?? 10),
    rounds: Number(value('rounds') ?? 5),
    warmupSeconds: Number(value('warmup') ?? 3),
    seconds: Number(value('seconds') ?? 8),
    concurrency: Number(value('concurrency') ?? 8),
    mode: value('mode') === 'open' ? 'open' : 'closed',
    rate: Number(value('rate') ?? 200),
    sutCores: value('sut-cores') ?? '0',
    loadCores: value('load-cores') ?? '1',
    sink: value('sink') === 'clickhouse' ? 'clickhouse' : 'debug',
  };
}

const FLOOR_MAIN = join(REPO_ROOT, 'bench', 'floor-sidecar.ts');
const REGISTER = join(REPO_ROOT, 'tools', 'register.js');

/** A sidecar build's entry point or `floor` (floor-sidecar.ts: no route work), with side `i`'s flags and environment. */
function sidecarOf(main: string, o: AbOptions, i: number): Pick<SutOptions, 'sidecarMain' | 'sidecarEnv' | 'nodeArgs'> {
  const sidecarEnv = { OTEL_EXPORTER_OTLP_COMPRESSION: 'none', ...o.env[i] };
  const nodeArgs = o.nodeArgs[i] ?? [];
  if (main !== 'floor') return { sidecarMain: main, sidecarEnv, nodeArgs };
  return { sidecarMain: FLOOR_MAIN, sidecarEnv: { ...sidecarEnv, FLOOR_SCENARIO: o.scenario, FLOOR_BATCH: String(o.batch), FLOOR_CODING: o.coding }, nodeArgs: ['-r', REGISTER, ...nodeArgs] };
}

type Loaded = Awaited<ReturnType<typeof load>> & { stored?: string };

/**
 * With a ClickHouse sink: the CPU from the window's opening until the side's ClickHouse holds every
 * acknowledged record, over the records acknowledged since that opening.
 */
async function untilStored(sut: RunningSut, r: Loaded, scenario: ScenarioName): Promise<Loaded> {
  if (!sut.clickhouse) return r;
  const rows = await drained(sut.clickhouse, scenario, r.ackedRecords);
  const now = cpuOf(sut);
  const cpuSeconds = Object.fromEntries(Object.entries(now).map(([name, end]) => [name, end - (r.cpuAtStart[name] ?? 0)]));
  return { ...r, cpuSeconds, records: r.ackedSinceStart, stored: `${rows}/${r.ackedRecords} rows stored, ` };
}

const sum = (byProcess: Record<string, number>): number => Object.values(byProcess).reduce((x, y) => x + y, 0);
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const bins = await binaries();
  const scenario = await buildScenario(o.scenario, o.batch, 8, undefined, o.coding);
  const ratios: number[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const sides: RunningSut[] = [];
    try {
      for (const [i, main] of [o.a, o.b].entries()) {
        if (main === 'upstream') sides.push(await startUpstream(bins.upstream, { cores: o.sutCores, sink: o.sink }));
        else sides.push(await startOurs(bins.ours, { cores: o.sutCores, sink: o.sink, ...sidecarOf(main, o, i) }));
      }
      const spec = (sut: RunningSut) => ({
        url: sut.url,
        path: scenario.path,
        headers: scenario.headers,
        bodies: scenario.payloads.map((p) => p.body),
        records: scenario.payloads.map((p) => p.records),
        mode: o.mode,
        concurrency: o.concurrency,
        rate: o.rate,
        warmupMs: o.warmupSeconds * 1000,
        durationMs: o.seconds * 1000,
      });
      const [ra, rb] = await Promise.all(sides.map((sut) => load(spec(sut), o.loadCores, sut).then((r) => untilStored(sut, r, o.scenario))));
      const [rssA, rssB] = sides.map((sut) =>
        Object.entries(sut.pids)
          .map(([name, pid]) => `${name} ${peakRssMiB(pid).toFixed(0)}`)
          .join(', '),
      );
      const perRecord = (r: typeof ra): number => (sum(r.cpuSeconds) / r.records) * 1e6;
      const [a, b] = [perRecord(ra), perRecord(rb)];
      ratios.push(b / a);
      const fmt = (r: typeof ra, us: number, rss: string | undefined): string =>
        `${r.stored ?? ''}${us.toFixed(1)} µs/record (${Object.entries(r.cpuSeconds)
          .map(([k, v]) => `${k} ${((v / r.records) * 1e6).toFixed(1)}`)
          .join(', ')}), ${Math.round(r.records / r.seconds)} records/s, p50/p99 ${r.latency.p50.toFixed(1)}/${r.latency.p99.toFixed(1)} ms, peak RSS MiB ${rss}`;
      const pipelines = await Promise.all(sides.map(async (s) => JSON.stringify((await s.pipelineRecords?.()) ?? {})));
      process.stdout.write(`round ${round}: A ${fmt(ra, a, rssA)} | B ${fmt(rb, b, rssB)} | B÷A ${(b / a).toFixed(3)} | log pipeline records A ${pipelines[0]} B ${pipelines[1]}\n`);
    } finally {
      await Promise.all(sides.map((s) => s.stop()));
    }
  }
  process.stdout.write(`${o.scenario}${isTraces(o.scenario) ? '' : ` (${o.coding})`} batch ${o.batch}: B÷A CPU per record, median of ${o.rounds} rounds: ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
