/**
 * Datadog metric types, as integrations-core's `metadata.csv` files list them (`metric_name`,
 * `metric_type`: gauge, count, rate, distribution). A Datadog dashboard or monitor export names
 * metrics, not their types, but the bridge writes a count to the sum table and a gauge to the
 * gauge table (docs/translation.md, metrics type mapping): a tile must read the table its metric
 * is in. A check's `rate()` is flushed by the agent as a gauge of the per-second rate, so a
 * `rate` row is read from the gauge table too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../src/config';
import { filesUnder } from './files';

export type DatadogMetricType = 'gauge' | 'count' | 'rate' | 'distribution';
export type MetricTypes = ReadonlyMap<string, DatadogMetricType>;

export const NO_METRIC_TYPES: MetricTypes = new Map();

const TYPE_LETTERS: Readonly<Record<string, DatadogMetricType>> = { g: 'gauge', c: 'count', r: 'rate', d: 'distribution' };

/**
 * The types every integrations-core `metadata.csv` lists (data/README.md: source commit and
 * licence), so the metrics of Datadog's own integrations are read from the right table without
 * `--metric-types`. Stored sorted and front-coded, one metric a line: the length of the prefix it
 * shares with the line before, its type's letter, the rest of its name.
 */
export function bundledMetricTypes(): MetricTypes {
  const types = new Map<string, DatadogMetricType>();
  let previous = '';
  for (const line of readFileSync(join(__dirname, 'data', 'integrations-core-metric-types.txt'), 'utf8').split('\n')) {
    const m = /^(\d+)([gcrd])(.*)$/.exec(line);
    if (!m) continue;
    previous = previous.slice(0, Number(m[1])) + m[3]!;
    types.set(previous, TYPE_LETTERS[m[2]!]!);
  }
  return types;
}

const TYPES: ReadonlySet<string> = new Set(['gauge', 'count', 'rate', 'distribution']);

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new ConfigError('a quoted field is not closed');
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** metric name → type, from one metadata.csv's text; `file` names it in errors. */
export function parseMetadataCsv(text: string, file: string): Map<string, DatadogMetricType> {
  let records: string[][];
  try {
    records = csvRecords(text);
  } catch (err) {
    throw new ConfigError(`${file}: ${(err as Error).message}`);
  }
  const [header = [], ...rows] = records;
  const nameAt = header.indexOf('metric_name');
  const typeAt = header.indexOf('metric_type');
  if (nameAt < 0 || typeAt < 0) throw new ConfigError(`${file}: not an integrations-core metadata.csv (its header has no metric_name and metric_type columns)`);
  const types = new Map<string, DatadogMetricType>();
  rows.forEach((row, i) => {
    const name = row[nameAt]?.trim() ?? '';
    const type = row[typeAt]?.trim() ?? '';
    if (name === '') return;
    if (!TYPES.has(type)) throw new ConfigError(`${file}: record ${i + 2} (${name}): metric_type "${type}" is none of ${[...TYPES].join(', ')}`);
    types.set(name, type as DatadogMetricType);
  });
  return types;
}

/** The bundled types, then every metadata.csv named or found under a named directory; later files win for a metric both list. */
export function readMetricTypes(paths: readonly string[]): MetricTypes {
  const types = new Map<string, DatadogMetricType>(bundledMetricTypes());
  for (const file of filesUnder(paths, (f) => f.endsWith('metadata.csv'), '--metric-types ')) {
    for (const [name, type] of parseMetadataCsv(readFileSync(file, 'utf8'), file)) types.set(name, type);
  }
  return types;
}
