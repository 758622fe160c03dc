/**
 * `npm run bench`: the sidecar + our collector ("ours") against the upstream Datadog receiver in a
 * collector ("upstream"), same machine, same run, same payloads, same core set.
 *
 * Per scenario and run, each side is started fresh and pinned to the SUT cores; the load generator
 * runs on the other core. A closed loop finds the maximum sustained throughput (records/s, MB/s as
 * sent, CPU seconds per million records from /proc over the measured window), then an open loop at
 * half that request rate measures latency; then both sides, started afresh, get the same open-loop
 * rate (half the slower one's maximum), where the latency one adds over the other is read. Peak
 * RSS is each process's VmHWM (of the first start). Runs alternate which
 * side goes first; the report gives the median and the spread (min–max) of the runs. A batch-size
 * sweep then shows how cost scales with records per request.
 *
 *   npm run bench -- [--scenarios logs,traces] [--runs 3] [--seconds 10] [--no-sweep] [--sut-cores 0] [--load-cores 1]
 *                    [--sides ours] [--node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"] [--out-dir /tmp/bench]
 */
import { execFileSync, fork } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { optionValue } from './args';
import type { LoadMessage, LoadResult, LoadSpec } from './loadgen';
import { renderResults, type BenchOptions, type BenchResults, type LatencyAt, type Measurement, type SweepPoint } from './report';
import { buildScenario, SCENARIOS, type Scenario, type ScenarioName } from './scenarios';
import { binaries, BENCH_DIR, cpuOf, peakRssMiB, SIDES, startSut, type RunningSut, type Side } from './sut';

function parseOptions(argv: string[]): BenchOptions {
  const value = (name: string): string | undefined => optionValue(argv, name);
  const list = (name: string, fallback: readonly ScenarioName[]): ScenarioName[] => (value(name)?.split(',') as ScenarioName[] | undefined) ?? [...fallback];
  const seconds = Number(value('seconds') ?? 10);
  return {
    scenarios: list('scenarios', SCENARIOS),
    runs: Number(value('runs') ?? 3),
    seconds,
    warmupSeconds: Number(value('warmup') ?? 3),
    batch: Number(value('batch') ?? 1000),
    sweep: argv.includes('--no-sweep') ? [] : [10, 100, 1000, 10000],
    sweepScenarios: list('sweep-scenarios', ['logs', 'traces', 'series']),
    sweepSeconds: Number(value('sweep-seconds') ?? Math.max(4, seconds / 2)),
    concurrency: Number(value('concurrency') ?? 8),
    sutCores: value('sut-cores') ?? '0',
    loadCores: value('load-cores') ?? '1',
    otlpCompression: value('otlp-compression') === 'gzip' ? 'gzip' : 'none',
    sides: (value('sides')?.split(',') as Side[] | undefined) ?? [...SIDES],
    nodeArgs: value('node-args')?.split(' ').filter(Boolean) ?? [],
    outDir: value('out-dir') ?? BENCH_DIR,
  };
}

const LOADGEN = join(BENCH_DIR, 'loadgen.ts');
const REGISTER = join(BENCH_DIR, '..', 'tools', 'register.js');

interface Window {
  /** CPU seconds each process of the side used in the measured window */
  cpuSeconds: Record<string, number>;
  /** each process's CPU seconds used so far, sampled when the window opened */
  cpuAtStart: Record<string, number>;
}

/** Runs the load generator as its own pinned process; samples the receiver's CPU at the window's edges. */
export function load(spec: LoadSpec, cores: string, sut: RunningSut): Promise<LoadResult & Window> {
  const child = fork(LOADGEN, [], { execArgv: ['-r', REGISTER], serialization: 'advanced' });
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(child.pid)], { stdio: 'ignore' });
  const cpuNow = (): Record<string, number> => cpuOf(sut);
  let cpuAtStart: Record<string, number> = {};
  let cpuAtEnd: Record<string, number> = {};
  return new Promise((resolve, reject) => {
    child.on('message', (m: LoadMessage) => {
      try {
        if ('mark' in m) {
          if (m.mark === 'start') cpuAtStart = cpuNow();
          else cpuAtEnd = cpuNow();
        } else resolve({ ...m.result, cpuAtStart, cpuSeconds: Object.fromEntries(Object.entries(cpuAtEnd).map(([name, end]) => [name, end - (cpuAtStart[name] ?? 0)])) });
      } catch (err) {
        // a process under test is gone (its /proc entry with it): fail this load so the caller's
        // finally stops the rest of the side, instead of dying here and leaving its collector running
        child.kill();
        reject(new Error(`a process under test stopped during the load: ${(err as Error).message}`));
      }
    });
    child.once('exit', (code) => (code ? reject(new Error(`load generator exited with ${code}`)) : undefined));
    child.send(spec);
  });
}

const specFor = (scenario: Scenario, url: string, o: BenchOptions, mode: 'closed' | 'open', rate: number, seconds: number): LoadSpec => ({
  url,
  path: scenario.path,
  headers: scenario.headers,
  bodies: scenario.payloads.map((p) => p.body),
  records: scenario.payloads.map((p) => p.records),
  mode,
  concurrency: o.concurrency,
  rate,
  warmupMs: o.warmupSeconds * 1000,
  durationMs: seconds * 1000,
});

const sutOptions = (o: BenchOptions) => ({ cores: o.sutCores, sink: 'debug' as const, sidecarEnv: { OTEL_EXPORTER_OTLP_COMPRESSION: o.otlpCompression }, nodeArgs: o.nodeArgs });

const total = (byProcess: Record<string, number>): number => Object.values(byProcess).reduce((a, b) => a + b, 0);

const peakRss = (sut: RunningSut): Record<string, number> => Object.fromEntries(Object.entries(sut.pids).map(([name, pid]) => [name, peakRssMiB(pid)]));

/** One fresh start of one side: max throughput, then latency at half of it. */
async function measure(side: Side, scenario: Scenario, bins: Record<Side, string>, o: BenchOptions): Promise<Measurement> {
  const sut = await startSut(side, bins, sutOptions(o));
  try {
    const max = await load(specFor(scenario, sut.url, o, 'closed', 0, o.seconds), o.loadCores, sut);
    const half = (max.requests / max.seconds) * 0.5;
    const latency = await load(specFor(scenario, sut.url, o, 'open', half, o.seconds), o.loadCores, sut);
    const perMillion = (seconds: number): number => (max.records > 0 ? (seconds / max.records) * 1e6 : NaN);
    return {
      side,
      scenario: scenario.name,
      recordsPerSecond: max.records / max.seconds,
      megabytesPerSecond: max.bytes / max.seconds / 1e6,
      cpuSecondsPerMillion: perMillion(total(max.cpuSeconds)),
      cpuByProcess: Object.fromEntries(Object.entries(max.cpuSeconds).map(([name, seconds]) => [name, perMillion(seconds)])),
      statuses: max.statuses,
      loadgenCpu: max.loadgenCpu,
      // failures during the maximum and the half load alike: both are this fresh start's
      halfLoad: { requestsPerSecond: half, p50: latency.latency.p50, p99: latency.latency.p99, statuses: latency.statuses, exportFailures: await sut.exportFailures?.() },
      peakRssMiB: peakRss(sut),
    };
  } finally {
    await sut.stop();
  }
}

/** A fresh start of one side, latency only, in an open loop at `rate` requests/s. */
async function latencyAt(side: Side, scenario: Scenario, rate: number, bins: Record<Side, string>, o: BenchOptions): Promise<LatencyAt> {
  const sut = await startSut(side, bins, sutOptions(o));
  try {
    const r = await load(specFor(scenario, sut.url, o, 'open', rate, o.seconds), o.loadCores, sut);
    return { requestsPerSecond: rate, p50: r.latency.p50, p99: r.latency.p99, statuses: r.statuses, exportFailures: await sut.exportFailures?.() };
  } finally {
    await sut.stop();
  }
}

async function sweepPoint(side: Side, name: ScenarioName, batch: number, bins: Record<Side, string>, o: BenchOptions): Promise<SweepPoint> {
  const scenario = await buildScenario(name, batch, batch >= 10_000 ? 4 : 8);
  const sut = await startSut(side, bins, sutOptions(o));
  try {
    const r = await load(specFor(scenario, sut.url, { ...o, warmupSeconds: 2 }, 'closed', 0, o.sweepSeconds), o.loadCores, sut);
    return { side, scenario: name, batch, recordsPerSecond: r.records / r.seconds, cpuMicrosPerRecord: r.records > 0 ? (total(r.cpuSeconds) / r.records) * 1e6 : NaN, statuses: r.statuses, loadgenCpu: r.loadgenCpu };
  } finally {
    await sut.stop();
  }
}

function machine(o: BenchOptions): BenchResults['machine'] {
  const model = cpus()[0]?.model ?? 'unknown';
  const tool = (cmd: string, args: string[]): string => {
    try {
      return execFileSync(cmd, args).toString().trim();
    } catch {
      return 'unavailable';
    }
  };
  return {
    cpu: `${model} × ${cpus().length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: tool('uname', ['-r']),
    node: process.version,
    go: tool('go', ['version']),
    sutCores: o.sutCores,
    loadCores: o.loadCores,
    loadAverageBefore: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    loadAverageAfter: '',
  };
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const bins = await binaries();
  const results: BenchResults = { date: new Date().toISOString(), command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(), options: o, machine: machine(o), measurements: [], sweep: [] };
  for (const name of o.scenarios) {
    const scenario = await buildScenario(name, o.batch, 8);
    for (let run = 0; run < o.runs; run++) {
      // alternate who goes first so a drift of the machine does not favour one side
      const order = run % 2 === 0 ? o.sides : [...o.sides].reverse();
      const pair: Measurement[] = [];
      for (const side of order) {
        const m = await measure(side, scenario, bins, o);
        pair.push(m);
        results.measurements.push(m);
        process.stderr.write(
          `${name} run ${run + 1}/${o.runs} ${side}: ${Math.round(m.recordsPerSecond)} records/s, ${m.cpuSecondsPerMillion.toFixed(1)} CPU s/M records ${JSON.stringify(m.cpuByProcess)}, p50/p99 at half load ${m.halfLoad.p50.toFixed(1)}/${m.halfLoad.p99.toFixed(1)} ms, peak RSS ${JSON.stringify(m.peakRssMiB)}\n`,
        );
      }
      if (pair.length < 2) continue;
      // both sides at the same traffic: half of the slower one's maximum
      const shared = Math.min(...pair.map((m) => m.halfLoad.requestsPerSecond));
      for (const m of pair) {
        m.sharedLoad = await latencyAt(m.side, scenario, shared, bins, o);
        process.stderr.write(`${name} run ${run + 1}/${o.runs} ${m.side}: p50/p99 at the shared ${shared.toFixed(1)} requests/s ${m.sharedLoad.p50.toFixed(1)}/${m.sharedLoad.p99.toFixed(1)} ms\n`);
      }
    }
  }
  for (const name of o.sweepScenarios) {
    for (const batch of o.sweep) {
      for (const side of o.sides) {
        const p = await sweepPoint(side, name, batch, bins, o);
        results.sweep.push(p);
        process.stderr.write(`sweep ${name} batch ${batch} ${side}: ${Math.round(p.recordsPerSecond)} records/s, ${p.cpuMicrosPerRecord.toFixed(1)} µs CPU/record\n`);
      }
    }
  }
  results.machine.loadAverageAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  mkdirSync(o.outDir, { recursive: true });
  writeFileSync(join(o.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  writeFileSync(join(o.outDir, 'RESULTS.md'), renderResults(results));
  process.stderr.write(`wrote ${join(o.outDir, 'RESULTS.md')} and results.json\n`);
}

if (require.main === module)
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
