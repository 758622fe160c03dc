/**
 * Differential conformance: the same payloads through the reference collector (upstream Datadog
 * receiver) and through the sidecar + our collector, both writing OTLP JSON with the file
 * exporter. Both outputs are normalised to one flat record per log record, span or data point —
 * resource and attributes as typed `key → value` fields, volatile fields (observed time, scope)
 * dropped — matched across sides, and compared field by field. Differences are grouped by kind
 * (signal, field, only-ours / only-upstream / differs) so that each kind can be declared deliberate
 * with its reason (conformance-deliberate.ts) or fixed.
 *
 *   node -r ./tools/register.js bench/conformance.ts [--batch 20]   (prints the table)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLines } from '../test/helpers/sink';
import { eventually } from '../test/helpers/stack';
import { DELIBERATE, type Deliberate } from './conformance-deliberate';
import type { Difference, Signal } from './conformance-types';

export type { Difference, Signal };
import { buildScenario, SCENARIOS, type Scenario, type ScenarioName } from './scenarios';
import { binaries, startSut, type Side } from './sut';

type Json = any;

/** One output record: `match` pairs it with its counterpart; `fields` are compared. */
export interface FlatRecord {
  signal: Signal;
  match: string;
  fields: Record<string, string>;
}

/** OTLP JSON AnyValue → a typed, order-independent text: int 1, double 1 and string "1" stay apart. */
export function typed(value: Json): string {
  if (value === undefined || value === null) return 'empty';
  if ('stringValue' in value) return `s:${JSON.stringify(value.stringValue)}`;
  if ('intValue' in value) return `i:${value.intValue}`;
  if ('doubleValue' in value) return `d:${value.doubleValue}`;
  if ('boolValue' in value) return `b:${value.boolValue}`;
  if ('bytesValue' in value) return `x:${value.bytesValue}`;
  if ('arrayValue' in value) return `[${(value.arrayValue.values ?? []).map(typed).join(',')}]`;
  if ('kvlistValue' in value)
    return `{${attributeFields('', value.kvlistValue.values)
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join(',')}}`;
  return 'empty';
}

const attributeFields = (prefix: string, kvs: Json[] | undefined): [string, string][] => (kvs ?? []).map((kv: Json) => [`${prefix}${kv.key}`, typed(kv.value)]);

const fieldsOf = (entries: [string, string | undefined][]): Record<string, string> => Object.fromEntries(entries.filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));

const text = (v: Json): string | undefined => (v === undefined || v === null ? undefined : String(v));

/** Every record of one signal's export requests with the resource it sits under. */
function recordsOf(dir: string, signal: Signal): { resource: Json; record: Json }[] {
  const [resources, scopes, records] = ({ logs: ['resourceLogs', 'scopeLogs', 'logRecords'], traces: ['resourceSpans', 'scopeSpans', 'spans'], metrics: ['resourceMetrics', 'scopeMetrics', 'metrics'] } as const)[signal];
  return readLines(dir, signal).flatMap((req: Json) => (req[resources] ?? []).flatMap((r: Json) => (r[scopes] ?? []).flatMap((s: Json) => (s[records] ?? []).map((record: Json) => ({ resource: r.resource, record })))));
}

const flatLogs = (dir: string): FlatRecord[] =>
  recordsOf(dir, 'logs').map(({ resource, record: r }) => ({
    signal: 'logs',
    match: text(r.timeUnixNano) ?? '',
    fields: fieldsOf([
      ...attributeFields('resource.', resource?.attributes),
      ['timeUnixNano', text(r.timeUnixNano)],
      ['severityNumber', text(r.severityNumber)],
      ['severityText', r.severityText],
      ['body', r.body ? typed(r.body) : undefined],
      ['traceId', r.traceId],
      ['spanId', r.spanId],
      ['flags', text(r.flags)],
      ...attributeFields('attributes.', r.attributes),
    ]),
  }));

const flatSpans = (dir: string): FlatRecord[] =>
  recordsOf(dir, 'traces').map(({ resource, record: s }) => ({
    signal: 'traces',
    match: s.spanId ?? '',
    fields: fieldsOf([
      ...attributeFields('resource.', resource?.attributes),
      ['traceId', s.traceId],
      ['parentSpanId', s.parentSpanId],
      ['name', s.name],
      ['kind', text(s.kind)],
      ['startTimeUnixNano', text(s.startTimeUnixNano)],
      ['endTimeUnixNano', text(s.endTimeUnixNano)],
      ['status.code', text(s.status?.code)],
      ['status.message', s.status?.message],
      ['events', s.events?.length ? s.events.map((e: Json) => e.name).join(',') : undefined],
      ['links', s.links?.length ? String(s.links.length) : undefined],
      ...attributeFields('attributes.', s.attributes),
    ]),
  }));

const METRIC_KINDS = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'] as const;

function pointFields(p: Json): [string, string | undefined][] {
  const buckets = (b: Json): string | undefined => (b ? `${b.offset ?? 0}:${(b.bucketCounts ?? []).join(',')}` : undefined);
  return [
    ['startTimeUnixNano', text(p.startTimeUnixNano)],
    ['value', p.asDouble !== undefined ? `d:${p.asDouble}` : p.asInt !== undefined ? `i:${p.asInt}` : undefined],
    ['count', text(p.count)],
    ['sum', text(p.sum)],
    ['min', text(p.min)],
    ['max', text(p.max)],
    ['scale', text(p.scale)],
    ['zeroCount', text(p.zeroCount)],
    ['zeroThreshold', text(p.zeroThreshold)],
    ['positive', buckets(p.positive)],
    ['negative', buckets(p.negative)],
    ...attributeFields('attributes.', p.attributes),
  ];
}

const flatPoints = (dir: string): FlatRecord[] =>
  recordsOf(dir, 'metrics').flatMap(({ resource, record: m }) => {
    const kind = METRIC_KINDS.find((k) => m[k] !== undefined);
    if (!kind) return [];
    return (m[kind].dataPoints ?? []).map((p: Json) => ({
      signal: 'metrics' as const,
      match: `${m.name} ${p.timeUnixNano}`,
      fields: fieldsOf([...attributeFields('resource.', resource?.attributes), ['kind', kind], ['unit', m.unit], ['temporality', text(m[kind].aggregationTemporality)], ['isMonotonic', m[kind].isMonotonic ? 'true' : undefined], ...pointFields(p)]),
    }));
  });

export const flatten = (dir: string): FlatRecord[] => [...flatLogs(dir), ...flatSpans(dir), ...flatPoints(dir)];

/** Field-by-field differences of matched records, grouped by (signal, field, kind) with one example each. */
export function diff(ours: readonly FlatRecord[], upstream: readonly FlatRecord[]): Difference[] {
  const groups = new Map<string, Difference>();
  const note = (signal: Signal, field: string, kind: Difference['kind'], example: Difference['example']): void => {
    const key = `${signal}\0${field}\0${kind}`;
    const d = groups.get(key) ?? { signal, field, kind, count: 0, example };
    d.count++;
    groups.set(key, d);
  };
  const index = (records: readonly FlatRecord[]): Map<string, FlatRecord> => new Map(records.map((r) => [`${r.signal} ${r.match}`, r]));
  const theirs = index(upstream);
  const mine = index(ours);
  for (const [key, o] of mine) {
    const u = theirs.get(key);
    if (!u) {
      note(o.signal, 'record', 'only ours', { ours: o.match });
      continue;
    }
    for (const field of new Set([...Object.keys(o.fields), ...Object.keys(u.fields)])) {
      const [a, b] = [o.fields[field], u.fields[field]];
      if (a === b) continue;
      note(o.signal, field, a === undefined ? 'only upstream' : b === undefined ? 'only ours' : 'differs', { ours: a, upstream: b });
    }
  }
  for (const [key, u] of theirs) if (!mine.has(key)) note(u.signal, 'record', 'only upstream', { upstream: u.match });
  return [...groups.values()].sort((x, y) => `${x.signal}${x.field}`.localeCompare(`${y.signal}${y.field}`));
}

/** The declaration a difference falls under, if any. */
export const declaredAs = (d: Difference, declared: readonly Deliberate[] = DELIBERATE): Deliberate | undefined =>
  declared.find((x) => x.signal === d.signal && x.kinds.includes(d.kind) && (typeof x.field === 'string' ? x.field === d.field : x.field.test(d.field)));

/** Sends every scenario's payloads to one side and returns its flattened output. */
export async function outputOf(side: Side, scenarios: readonly Scenario[], bins: Record<Side, string>): Promise<FlatRecord[]> {
  const sinkDir = mkdtempSync(join(tmpdir(), `dd-conformance-${side}-`));
  const sut = await startSut(side, bins, { cores: '0-1', sink: 'file', sinkDir });
  try {
    let expected = 0;
    for (const s of scenarios) {
      for (const p of s.payloads) {
        const res = await fetch(`${sut.url}${s.path}`, { method: 'POST', body: p.body, headers: s.headers });
        if (res.status >= 300) throw new Error(`${side} answered ${res.status} to ${s.name}: ${await res.text()}`);
        expected += p.records;
      }
    }
    // the file exporter flushes every 100 ms; done once every record is there
    await eventually(async () => flatten(sinkDir).length >= expected, 15_000);
    return flatten(sinkDir);
  } finally {
    await sut.stop();
    rmSync(sinkDir, { recursive: true, force: true });
  }
}

export interface ConformanceResult {
  /** records each payload set holds, and what each side wrote */
  records: { sent: number; ours: number; upstream: number };
  differences: Difference[];
}

export async function conformance(batch: number, names: readonly ScenarioName[] = SCENARIOS): Promise<ConformanceResult> {
  const bins = await binaries();
  const scenarios = await Promise.all(names.map((n) => buildScenario(n, batch, 1, 11)));
  const [ours, upstream] = await Promise.all([outputOf('ours', scenarios, bins), outputOf('upstream', scenarios, bins)]);
  const sent = scenarios.reduce((n, s) => n + s.payloads.reduce((m, p) => m + p.records, 0), 0);
  return { records: { sent, ours: ours.length, upstream: upstream.length }, differences: diff(ours, upstream) };
}

const cell = (s: string | undefined): string => (s === undefined ? '–' : `\`${s.length > 60 ? `${s.slice(0, 57)}…` : s}\``.replace(/\|/g, '\\|'));

export function differenceTable(differences: readonly Difference[]): string {
  return [
    '| Signal | Field | Kind | Records | Example ours | Example upstream | Declared reason |',
    '|---|---|---|---:|---|---|---|',
    ...differences.map((d) => `| ${d.signal} | \`${d.field}\` | ${d.kind} | ${d.count} | ${cell(d.example.ours)} | ${cell(d.example.upstream)} | ${declaredAs(d)?.reason ?? '**UNDECLARED**'} |`),
  ].join('\n');
}

if (require.main === module) {
  const at = process.argv.indexOf('--batch');
  conformance(at >= 0 ? Number(process.argv[at + 1]) : 20).then(
    ({ records, differences }) => process.stdout.write(`records sent ${records.sent}, written by ours ${records.ours}, by upstream ${records.upstream}\n\n${differenceTable(differences)}\n`),
    (err: Error) => {
      process.stderr.write(`${err.stack}\n`);
      process.exit(1);
    },
  );
}
