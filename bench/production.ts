/**
 * Sizing figures for docs/operations.md ("Production"): the sidecar and our collector as deployed
 * (collector/config.yaml: memory_limiter, ClickHouse through the disk queue) writing into a real
 * ClickHouse (the embedded one), at a fixed 10,000 records/s per scenario (10 requests/s of 1000
 * records, open loop). Measured per scenario: CPU seconds per second of the sidecar, the collector
 * and ClickHouse (cores at that rate), their peak RSS; then ClickHouse is stopped and the same load
 * fills the collector's queue on disk: bytes on disk per record queued. Sidecar and collector are
 * pinned to core 0; the load and ClickHouse share core 1.
 *
 *   node -r ./tools/register.js bench/production.ts [--seconds 30] [--scenarios logs,traces,series]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLICKHOUSE_HOME, startClickHouse } from '../tools/src/clickhouse/launcher';
import { freePort } from '../test/helpers/ports';
import { runLoad } from './loadgen';
import { buildScenario, type ScenarioName } from './scenarios';
import { ensureCollector } from '../tools/src/collector/build';
import { createLogger } from '../src/core/observability/log';
import { BENCH_API_KEY, cpuSeconds, peakRssMiB, startSut, type Side } from './sut';
import { optionValue } from './args';

const RATE = 10; // requests per second, of 1000 records each: 10,000 records/s
const BATCH = 1000;

const arg = (name: string, fallback: string): string => optionValue(process.argv, name) ?? fallback;

const duBytes = (dir: string): number => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

interface Row {
  scenario: ScenarioName;
  recordsPerSecond: number;
  cores: Record<string, number>;
  peakRssMiB: Record<string, number>;
  queueBytesPerRecord: number;
  non2xx: number;
}

async function measure(scenario: ScenarioName, seconds: number, bins: Record<Side, string>): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), `dd-production-${scenario}-`));
  const [httpPort, tcpPort] = await Promise.all([freePort(), freePort()]);
  const home = process.env.DD_BRIDGE_CLICKHOUSE_HOME ?? DEFAULT_CLICKHOUSE_HOME;
  let clickhouse = await startClickHouse({ home, dataDir: join(dir, 'clickhouse'), httpPort, tcpPort, logFile: join(dir, 'clickhouse.log') });
  execFileSync('taskset', ['-a', '-p', '-c', '1', String(clickhouse.pid)], { stdio: 'ignore' });
  const queueDir = join(dir, 'queue');
  const sut = await startSut('ours', bins, { cores: '0', sink: 'clickhouse', sinkDir: dir, clickhouse: { tcpEndpoint: clickhouse.tcpEndpoint, login: clickhouse.credentials.collector, queueDir } });
  try {
    const s = await buildScenario(scenario, BATCH, 8);
    const spec = {
      url: sut.url,
      path: s.path,
      headers: { ...s.headers, 'DD-API-KEY': BENCH_API_KEY },
      bodies: s.payloads.map((p) => p.body),
      records: s.payloads.map((p) => p.records),
      mode: 'open' as const,
      concurrency: 8,
      rate: RATE,
      warmupMs: 5_000,
      durationMs: seconds * 1000,
    };
    const pids = { ...sut.pids, clickhouse: clickhouse.pid };
    const samples: Partial<Record<'start' | 'end', Record<string, number>>> = {};
    const sample = (): Record<string, number> => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
    const result = await runLoad(spec, (at) => {
      samples[at] = sample();
    });
    const before = samples.start ?? {};
    const after = samples.end ?? {};
    const cores = Object.fromEntries(Object.keys(pids).map((name) => [name, Math.round(((after[name]! - before[name]!) / result.seconds) * 1000) / 1000]));
    const rss = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, Math.round(peakRssMiB(pid))]));
    const non2xx = Object.entries(result.statuses)
      .filter(([status]) => !status.startsWith('2'))
      .reduce((n, [, c]) => n + c, 0);

    // the outage: what the same load costs on disk while ClickHouse is away
    await clickhouse.stop();
    await new Promise((r) => setTimeout(r, 2_000));
    const queuedBefore = duBytes(queueDir);
    const outage = await runLoad({ ...spec, warmupMs: 0, durationMs: Math.min(seconds, 20) * 1000 });
    await new Promise((r) => setTimeout(r, 6_000)); // the exporter's batch flush (5 s) moves the last records into the queue
    const queueBytesPerRecord = Math.round((duBytes(queueDir) - queuedBefore) / Math.max(1, outage.records));
    clickhouse = await startClickHouse({ home, dataDir: join(dir, 'clickhouse'), httpPort, tcpPort, logFile: join(dir, 'clickhouse.log') });
    return { scenario, recordsPerSecond: Math.round(result.records / result.seconds), cores, peakRssMiB: rss, queueBytesPerRecord, non2xx };
  } finally {
    await sut.stop();
    await clickhouse.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const seconds = Number(arg('seconds', '30'));
  const scenarios = arg('scenarios', 'logs,traces,series').split(',') as ScenarioName[];
  // only our side: the reference collector is not part of a deployment
  const ours = await ensureCollector(createLogger('warn', { component: 'bench' }, (line) => process.stderr.write(`${line}\n`)));
  const bins = { ours, upstream: '' };
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    const row = await measure(scenario, seconds, bins);
    rows.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
  }
  process.stdout.write(
    [
      '',
      '| scenario | records/s | sidecar cores | collector cores | ClickHouse cores | sidecar peak RSS MiB | collector peak RSS MiB | queue bytes per record | non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| ${r.scenario} | ${r.recordsPerSecond} | ${r.cores.sidecar} | ${r.cores.collector} | ${r.cores.clickhouse} | ${r.peakRssMiB.sidecar} | ${r.peakRssMiB.collector} | ${r.queueBytesPerRecord} | ${r.non2xx} |`),
      '',
    ].join('\n'),
  );
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
