/**
 * Bytes on disk for the same input on both sides: every scenario's bodies (`--variants` different
 * ones, each sent once, so ClickHouse cannot profit from repetition) go to ours and to upstream, each
 * writing into a ClickHouse of its own through the same clickhouse exporter build (bench/sut.ts,
 * `sink: 'clickhouse'`); once every record is stored and each table merged into one part
 * (merged-bytes.py), the compressed bytes per record come from system.parts, and where they go
 * from system.parts_columns. Either side may be a sidecar build instead
 * of upstream (`--a`, `--b` as in ab.ts), to show what one change saved.
 *
 *   node -r ./tools/register.js bench/bytes.ts [--scenarios traces,logs,series] [--batch 1000] [--variants 40]
 *        [--a upstream|path/to/dist/cli/main.js] [--b dist/cli/main.js] [--a-env K=V,…] [--b-env K=V,…] [--columns 12]
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { envList, optionValue } from './args';
import { REPO_ROOT } from '../tools/src/collector/build';
import { drained, mergedBytes, type ColumnBytes, type TableBytes } from './destination';
import { buildScenario, type Scenario, type ScenarioName } from './scenarios';
import { binaries, startOurs, startUpstream, type RunningSut } from './sut';

const value = (name: string): string | undefined => optionValue(process.argv.slice(2), name);
async function sendAll(sut: RunningSut, scenario: Scenario): Promise<number> {
  let records = 0;
  for (const p of scenario.payloads) {
    const res = await fetch(`${sut.url}${scenario.path}`, { method: 'POST', headers: scenario.headers, body: p.body });
    await res.arrayBuffer();
    if (res.status < 200 || res.status > 299) throw new Error(`${sut.side}: ${scenario.path} answered ${res.status}`);
    records += p.records;
  }
  return records;
}

interface Stored {
  label: string;
  sent: number;
  tables: TableBytes[];
  columns: ColumnBytes[];
}

async function measureSide(label: string, start: () => Promise<RunningSut>, scenario: Scenario): Promise<Stored> {
  const sut = await start();
  const ch = sut.clickhouse as NonNullable<RunningSut['clickhouse']>;
  let sent = 0;
  try {
    sent = await sendAll(sut, scenario);
    const rows = await drained(ch, scenario.name, sent);
    if (rows !== sent) process.stderr.write(`${label}: ${rows} rows stored of ${sent} records sent\n`);
  } finally {
    await sut.stop();
  }
  try {
    return { label, sent, ...(await mergedBytes(ch.dataDir, scenario.name)) };
  } finally {
    rmSync(ch.dataDir, { recursive: true, force: true });
  }
}

const total = (s: Stored, key: 'compressed' | 'uncompressed' | 'rows' | 'parts'): number => s.tables.reduce((n, t) => n + t[key], 0);

function report(scenario: ScenarioName, a: Stored, b: Stored, columns: number): string {
  const perRecord = (s: Stored): number => total(s, 'compressed') / s.sent;
  const lines = [
    `## ${scenario}: ${a.sent} records sent to each side`,
    '',
    '| side | rows stored | parts | compressed bytes | per record | uncompressed per record |',
    '|---|---:|---:|---:|---:|---:|',
    ...[a, b].map((s) => `| ${s.label} | ${total(s, 'rows')} | ${total(s, 'parts')} | ${total(s, 'compressed')} | ${perRecord(s).toFixed(1)} | ${(total(s, 'uncompressed') / s.sent).toFixed(1)} |`),
    '',
    `B ÷ A compressed bytes per record: ${(perRecord(b) / perRecord(a)).toFixed(3)}`,
    '',
    `| column (largest ${columns} of either side) | A bytes/record | B bytes/record |`,
    '|---|---:|---:|',
  ];
  const key = (c: ColumnBytes): string => `${c.table}.${c.column}`;
  const byKey = (s: Stored): Map<string, number> => new Map(s.columns.map((c) => [key(c), c.compressed / s.sent]));
  const [ma, mb] = [byKey(a), byKey(b)];
  const names = [...new Set([...a.columns.slice(0, columns), ...b.columns.slice(0, columns)].map(key))];
  names.sort((x, y) => Math.max(mb.get(y) ?? 0, ma.get(y) ?? 0) - Math.max(mb.get(x) ?? 0, ma.get(x) ?? 0));
  for (const n of names) lines.push(`| ${n} | ${(ma.get(n) ?? 0).toFixed(1)} | ${(mb.get(n) ?? 0).toFixed(1)} |`);
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const bins = await binaries();
  const scenarios = (value('scenarios') ?? 'traces,logs,series').split(',') as ScenarioName[];
  const batch = Number(value('batch') ?? 1000);
  const variants = Number(value('variants') ?? 40);
  const columns = Number(value('columns') ?? 12);
  const sides = [value('a') ?? 'upstream', value('b') ?? join(REPO_ROOT, 'dist', 'cli', 'main.js')];
  const envs = [envList(value('a-env')), envList(value('b-env'))];
  for (const name of scenarios) {
    const scenario = await buildScenario(name, batch, variants);
    const stored: Stored[] = [];
    for (const [i, side] of sides.entries()) {
      const start = (): Promise<RunningSut> =>
        side === 'upstream'
          ? startUpstream(bins.upstream, { cores: '0-1', sink: 'clickhouse', keepDestination: true })
          : startOurs(bins.ours, { cores: '0-1', sink: 'clickhouse', keepDestination: true, sidecarMain: side, sidecarEnv: { OTEL_EXPORTER_OTLP_COMPRESSION: 'none', ...envs[i] } });
      stored.push(await measureSide(i === 0 ? `A ${side === 'upstream' ? 'upstream' : 'ours'}` : `B ${side === 'upstream' ? 'upstream' : 'ours'}`, start, scenario));
    }
    process.stdout.write(report(name, stored[0] as Stored, stored[1] as Stored, columns) + '\n');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
