/**
 * Where a Datadog tag or facet lands in ClickHouse, read from the tables the data path itself
 * uses: resource promotion (src/signals/shared/known-keys.ts) for tags, and the APM-stats names
 * (src/signals/traces/stats.ts) for `trace.*` metrics. A migrated filter therefore finds exactly
 * the column the bridge wrote, and a new promotion rule moves the two together.
 */
import type { SemconvOptIn } from '../../../src/config/options';
import { attributeNames, DEFAULT_SEMCONV, KNOWN_KEYS } from '../../../src/signals/shared/known-keys';
import { RESOURCE_ATTRIBUTE } from '../../../src/signals/traces/stats';

/** The attribute map columns of ClickStack's tables (OpenTelemetry exporter schema). */
export type Table = 'metrics' | 'logs';

const POINT_COLUMN: Record<Table, string> = { metrics: 'Attributes', logs: 'LogAttributes' };
const RESOURCE_COLUMN = 'ResourceAttributes';

export interface Column {
  /** `ResourceAttributes` or the table's record/point attribute map */
  map: string;
  key: string;
}

/** Tags Datadog sets on APM metrics that the stats translation writes under other names. */
const APM_TAGS: ReadonlyMap<string, string> = new Map([['resource_name', RESOURCE_ATTRIBUTE]]);

/**
 * The column a Datadog tag key is found in, as resource promotion puts it there. `optIn` is the
 * semantic-convention opt-in the bridge ran with, for what it names by it (spans and APM-stats
 * points: src/signals/traces/finish.ts, stats.ts); metric tags and log attributes are always
 * written under the default names. Under `/dup` both names are written: the first one is read.
 */
export function tagColumn(table: Table, key: string, optIn: SemconvOptIn = DEFAULT_SEMCONV): Column {
  const known = KNOWN_KEYS.get(key) ?? KNOWN_KEYS.get(key.toLowerCase());
  if (known?.resource) return { map: RESOURCE_COLUMN, key: known.otel };
  return { map: POINT_COLUMN[table], key: APM_TAGS.get(key) ?? attributeNames(key, optIn)[0]! };
}

/** `ResourceAttributes.host.name` — HyperDX's Lucene reads `<map column>.<key>` as a map lookup. */
export const luceneField = (c: Column): string => `${c.map}.${c.key}`;

const sqlString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `ResourceAttributes['host.name']`, for group-by expressions (SQL). */
export const sqlField = (c: Column): string => `${c.map}[${sqlString(c.key)}]`;

/** `expr IN ('a', 'b')`: the condition form HyperDX's filters save and read back. */
export const sqlIn = (expression: string, values: readonly string[], negated = false): string => `${expression} ${negated ? 'NOT IN' : 'IN'} (${values.map(sqlString).join(', ')})`;

/** A Lucene value: wildcards stay bare (they match), anything else is a quoted phrase. */
export function luceneValue(value: string): string {
  if (/^[\w.\-/:@]*\*[\w.\-/:@*]*$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
