/**
 * Where a Datadog tag or facet lands in ClickHouse, read from the tables the data path itself
 * uses: resource promotion (src/signals/shared/known-keys.ts) for tags, and the APM-stats names
 * (src/signals/traces/stats.ts) for `trace.*` metrics. A migrated filter therefore finds exactly
 * the column the bridge wrote, and a new promotion rule moves the two together.
 */
import { attributeName, KNOWN_KEYS } from '../../signals/shared/known-keys';
import { RESOURCE_ATTRIBUTE } from '../../signals/traces/stats';

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

/** The column a Datadog tag key is found in, as resource promotion puts it there. */
export function tagColumn(table: Table, key: string): Column {
  const known = KNOWN_KEYS.get(key) ?? KNOWN_KEYS.get(key.toLowerCase());
  if (known?.resource) return { map: RESOURCE_COLUMN, key: known.otel };
  return { map: POINT_COLUMN[table], key: APM_TAGS.get(key) ?? attributeName(key) };
}

/** `ResourceAttributes.host.name` — HyperDX's Lucene reads `<map column>.<key>` as a map lookup. */
export const luceneField = (c: Column): string => `${c.map}.${c.key}`;

const sqlString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `ResourceAttributes['host.name']`, for group-by expressions (SQL). */
export const sqlField = (c: Column): string => `${c.map}[${sqlString(c.key)}]`;

/** A Lucene value: wildcards stay bare (they match), anything else is a quoted phrase. */
export function luceneValue(value: string): string {
  if (/^[\w.\-/:@]*\*[\w.\-/:@*]*$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
