/** The benchmark's result shapes and their rendering as bench/RESULTS.md. */
import type { ScenarioName } from './scenarios';
import type { Side } from './sut';

/** What `npm run bench` measured with (bench/run.ts reads it from its flags). */
export interface BenchOptions {
  scenarios: ScenarioName[];
  runs: number;
  seconds: number;
  warmupSeconds: number;
  batch: number;
  sweep: readonly number[];
  sweepScenarios: ScenarioName[];
  sweepSeconds: number;
  concurrency: number;
  sutCores: string;
  loadCores: string;
  /** how the sidecar compresses its exports (collector on the same host: none) */
  otlpCompression: 'none' | 'gzip';
  sides: Side[];
  /** node flags for the sidecar (profiling, GC experiments) */
  nodeArgs: string[];
  /** where RESULTS.md and results.json go */
  outDir: string;
}

export interface Measurement {
  side: Side;
  scenario: ScenarioName;
  recordsPerSecond: number;
  /** request bodies as sent (compressed) */
  megabytesPerSecond: number;
  cpuSecondsPerMillion: number;
  /** the same, for each process of the side */
  cpuByProcess: Record<string, number>;
  statuses: Record<string, number>;
  /** the load generator's own CPU, share of one core */
  loadgenCpu: number;
  /** open loop at half of this side's own maximum */
  halfLoad: LatencyAt;
  /**
   * open loop at the rate both sides of the run were given: half the slower side's maximum. The
   * latency one side adds over the other is read here, where both carry the same traffic.
   */
  sharedLoad?: LatencyAt;
  /** VmHWM of each process of the side */
  peakRssMiB: Record<string, number>;
}

export interface LatencyAt {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  /** ours: export calls the sidecar retried during this fresh start (RunningSut.exportFailures) */
  exportFailures?: number;
}

export interface SweepPoint {
  side: Side;
  scenario: ScenarioName;
  batch: number;
  recordsPerSecond: number;
  cpuMicrosPerRecord: number;
  statuses: Record<string, number>;
  loadgenCpu: number;
}

export interface BenchResults {
  date: string;
  command: string;
  options: BenchOptions;
  machine: {
    cpu: string;
    memoryGiB: number;
    kernel: string;
    node: string;
    go: string;
    sutCores: string;
    loadCores: string;
    loadAverageBefore: string;
    loadAverageAfter: string;
  };
  measurements: Measurement[];
  sweep: SweepPoint[];
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length === 0 ? NaN : sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] ?? NaN, max: sorted[sorted.length - 1] ?? NaN };
}

const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const thousands = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const show = (s: Spread, format: (n: number) => string): string => `${format(s.median)} (${format(s.min)}–${format(s.max)})`;

/** The headline figures of one scenario, every one a median over the runs with its spread. */
export interface ScenarioSummary {
  scenario: ScenarioName;
  sides: Record<Side, { records: Spread; megabytes: Spread; p50: Spread; p99: Spread; sharedP50: Spread; sharedP99: Spread; cpu: Spread; cpuByProcess: Record<string, Spread>; rss: Record<string, Spread>; non2xx: number; exportFailures: number }>;
  /** requests/s both sides were given for the shared-rate latency */
  sharedRate: Spread;
  /** ours ÷ upstream records/s: median over runs of the per-run ratio */
  ratio: Spread;
}

const non2xx = (statuses: Record<string, number>): number => Object.entries(statuses).reduce((n, [code, count]) => (code.startsWith('2') ? n : n + count), 0);

export function summarise(results: BenchResults, scenario: ScenarioName): ScenarioSummary {
  const of = (side: Side): Measurement[] => results.measurements.filter((m) => m.scenario === scenario && m.side === side);
  const sideSummary = (side: Side) => {
    const ms = of(side);
    const processes = [...new Set(ms.flatMap((m) => Object.keys(m.peakRssMiB)))];
    return {
      records: spread(ms.map((m) => m.recordsPerSecond)),
      megabytes: spread(ms.map((m) => m.megabytesPerSecond)),
      p50: spread(ms.map((m) => m.halfLoad.p50)),
      p99: spread(ms.map((m) => m.halfLoad.p99)),
      sharedP50: spread(ms.flatMap((m) => (m.sharedLoad ? [m.sharedLoad.p50] : []))),
      sharedP99: spread(ms.flatMap((m) => (m.sharedLoad ? [m.sharedLoad.p99] : []))),
      cpu: spread(ms.map((m) => m.cpuSecondsPerMillion)),
      cpuByProcess: Object.fromEntries(processes.map((p) => [p, spread(ms.map((m) => m.cpuByProcess[p] ?? NaN))])),
      rss: Object.fromEntries(processes.map((p) => [p, spread(ms.map((m) => m.peakRssMiB[p] ?? NaN))])),
      non2xx: ms.reduce((n, m) => n + non2xx(m.statuses) + non2xx(m.halfLoad.statuses) + non2xx(m.sharedLoad?.statuses ?? {}), 0),
      exportFailures: ms.reduce((n, m) => n + (m.halfLoad.exportFailures ?? 0) + (m.sharedLoad?.exportFailures ?? 0), 0),
    };
  };
  const ours = of('ours');
  const upstream = of('upstream');
  const ratios = ours.map((m, i) => m.recordsPerSecond / (upstream[i]?.recordsPerSecond ?? NaN));
  const sharedRate = spread(ours.flatMap((m) => (m.sharedLoad ? [m.sharedLoad.requestsPerSecond] : [])));
  return { scenario, sides: { ours: sideSummary('ours'), upstream: sideSummary('upstream') }, ratio: spread(ratios), sharedRate };
}

const TITLES: Record<ScenarioName, string> = {
  logs: '(a) agent logs, agent-json, zstd',
  'logs-unmatched': '(a′) agent logs under sources no log pipeline names',
  traces: '(b) /v0.4/traces msgpack',
  'traces-v05': '(b′) /v0.5/traces msgpack',
  series: '(c) /api/v2/series protobuf, zstd',
  sketches: '(d) /api/beta/sketches protobuf, zstd',
};

function headline(summaries: ScenarioSummary[]): string[] {
  return [
    '| Scenario | ours records/s | upstream records/s | **ours ÷ upstream** | ours MB/s | upstream MB/s |',
    '|---|---:|---:|---:|---:|---:|',
    ...summaries.map(
      (s) =>
        `| ${TITLES[s.scenario]} | ${show(s.sides.ours.records, thousands)} | ${show(s.sides.upstream.records, thousands)} | **${show(s.ratio, (n) => `${fixed(n, 2)}×`)}** | ${show(s.sides.ours.megabytes, (n) => fixed(n, 2))} | ${show(s.sides.upstream.megabytes, (n) => fixed(n, 2))} |`,
    ),
  ];
}

function latencyAndCost(summaries: ScenarioSummary[]): string[] {
  const byProcess = (r: Record<string, Spread>, digits: number): string =>
    Object.entries(r)
      .map(([p, s]) => `${p} ${show(s, (n) => fixed(n, digits))}`)
      .join(', ');
  return [
    '| Scenario | side | p50 / p99 ms at half its own max | p50 / p99 ms at the shared rate | CPU s per million records | of which, by process | peak RSS MiB | non-2xx replies (export calls retried) |',
    '|---|---|---:|---:|---:|---|---|---:|',
    ...summaries.flatMap((s) =>
      (['ours', 'upstream'] as const).map((side) => {
        const x = s.sides[side];
        const ms = (a: Spread, b: Spread): string => `${show(a, (n) => fixed(n, 1))} / ${show(b, (n) => fixed(n, 1))}`;
        return `| ${s.scenario} | ${side} | ${ms(x.p50, x.p99)} | ${ms(x.sharedP50, x.sharedP99)} | ${show(x.cpu, (n) => fixed(n, 1))} | ${byProcess(x.cpuByProcess, 1)} | ${byProcess(x.rss, 0)} | ${x.non2xx}${side === 'ours' ? ` (${x.exportFailures})` : ''} |`;
      }),
    ),
  ];
}

function sweepTable(results: BenchResults): string[] {
  const scenarios = [...new Set(results.sweep.map((p) => p.scenario))];
  const batches = [...new Set(results.sweep.map((p) => p.batch))];
  const point = (scenario: ScenarioName, batch: number, side: Side): SweepPoint | undefined => results.sweep.find((p) => p.scenario === scenario && p.batch === batch && p.side === side);
  return [
    '| Scenario | records per request | ours records/s | ours µs CPU per record | upstream records/s | upstream µs CPU per record | ours ÷ upstream |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...scenarios.flatMap((s) =>
      batches.map((b) => {
        const ours = point(s, b, 'ours');
        const up = point(s, b, 'upstream');
        return `| ${s} | ${b} | ${thousands(ours?.recordsPerSecond ?? NaN)} | ${fixed(ours?.cpuMicrosPerRecord ?? NaN, 1)} | ${thousands(up?.recordsPerSecond ?? NaN)} | ${fixed(up?.cpuMicrosPerRecord ?? NaN, 1)} | ${fixed((ours?.recordsPerSecond ?? NaN) / (up?.recordsPerSecond ?? NaN), 2)}× |`;
      }),
    ),
  ];
}

/** The issue's targets, judged on the medians. */
function targets(summaries: ScenarioSummary[]): string[] {
  const rows = summaries.flatMap((s) => {
    const out: string[] = [];
    if (s.scenario !== 'sketches') out.push(`| ≥ 1.5× upstream records/s per core, ${s.scenario} | ${fixed(s.ratio.median, 2)}× | ${s.ratio.median >= 1.5 ? 'met' : 'missed'} |`);
    const added = s.sides.ours.sharedP99.median - s.sides.upstream.sharedP99.median;
    out.push(`| p99 added latency ≤ 5 ms at half load, ${s.scenario} (ours p99 − upstream p99, both at ${fixed(s.sharedRate.median, 0)} requests/s: half the slower side's max) | ${fixed(added, 1)} ms | ${added <= 5 ? 'met' : 'missed'} |`);
    const addedOwn = s.sides.ours.p99.median - s.sides.upstream.p99.median;
    out.push(`| the same, each side at half its own max (ours carries more traffic where it is faster) | ${fixed(addedOwn, 1)} ms | ${addedOwn <= 5 ? 'met' : 'missed'} |`);
    const sidecar = s.sides.ours.rss.sidecar?.max ?? NaN;
    out.push(`| sidecar peak RSS ≤ 150 MiB, ${s.scenario} (worst run) | ${fixed(sidecar, 0)} MiB | ${sidecar <= 150 ? 'met' : 'missed'} |`);
    return out;
  });
  return ['| Target | Measured | |', '|---|---:|---|', ...rows];
}

export function renderResults(results: BenchResults): string {
  const summaries = [...new Set(results.measurements.map((m) => m.scenario))].map((s) => summarise(results, s));
  const o = results.options;
  const m = results.machine;
  return [
    '# Benchmark: dd-otlp-bridge vs the upstream Datadog receiver',
    '',
    `Generated by \`${results.command}\` on ${results.date}. Raw data: \`results.json\`, written beside this file by the same run (not committed). How it is measured: docs/benchmarks.md.`,
    '',
    `- **ours**: the sidecar (\`dist/\`, exports uncompressed: \`OTEL_EXPORTER_OTLP_COMPRESSION=${o.otlpCompression}\`) + our collector (\`collector/builder.yaml\`) → memory_limiter → batch → debug exporter; CPU and memory of both processes count.`,
    '- **upstream**: `datadogreceiver` v0.158.0 in a collector built from `bench/reference-builder.yaml` (the 0.161.0 core, as ours) → memory_limiter → batch → debug exporter.',
    `- Both pinned to core(s) ${m.sutCores} (taskset, GOMAXPROCS to match); the load generator on core(s) ${m.loadCores}, ${o.concurrency} keep-alive connections, pre-built compressed bodies (8 variants per scenario).`,
    `- Closed loop ${o.warmupSeconds} s warm-up + ${o.seconds} s measured for the maximum; then an open loop at half that request rate for latency (from each request's scheduled time). Then each side again, started fresh, in an open loop at the shared rate: half the slower side's maximum in that run, so both carry the same traffic. ${o.runs} fresh starts per side, alternating which side goes first; figures are medians with (min–max).`,
    `- Records per request: ${o.batch}. Records are log records, spans, series points and sketch points.`,
    '',
    `Machine: ${m.cpu}, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node.js ${m.node}, ${m.go}. Load average before ${m.loadAverageBefore}, after ${m.loadAverageAfter} (other work on the machine lowers both sides alike but adds spread).`,
    '',
    '## Throughput (maximum sustained, per core)',
    '',
    ...headline(summaries),
    '',
    '## Latency, CPU cost, memory',
    '',
    ...latencyAndCost(summaries),
    '',
    '## Targets (issue #7)',
    '',
    ...targets(summaries),
    '',
    ...(results.sweep.length > 0 ? ['## Cost by batch size', '', `Closed loop, one run each, ${o.sweepSeconds} s measured.`, '', ...sweepTable(results), ''] : []),
  ].join('\n');
}
