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
export type Table = 'metrics' | 'logs' | 'traces';

const POINT_COLUMN: Record<Table, string> = { metrics: 'Attributes', logs: 'LogAttributes', traces: 'SpanAttributes' };
const RESOURCE_COLUMN = 'ResourceAttributes';

export interface Column {
  /** `ResourceAttributes` or the table's record/point attribute map */
  map: string;
  key: string;
  /**
   * The bridge writes every value of this tag into one list (`image_tag`: `container.image.tags`),
   * which the ClickHouse exporter stores as JSON text, `["a","b"]`.
   */
  list?: boolean;
}

/** Tags Datadog sets on APM metrics that the stats translation writes under other names (on those metrics only). */
const APM_TAGS: ReadonlyMap<string, string> = new Map([['resource_name', RESOURCE_ATTRIBUTE]]);

/**
 * The column a Datadog tag key is found in, as resource promotion puts it there. `optIn` is the
 * semantic-convention opt-in the bridge ran with, for what it names by it (spans and APM-stats
 * points: src/signals/traces/finish.ts, stats.ts); metric tags and log attributes are always
 * written under the default names. Under `/dup` both names are written: the first one is read.
 * `apm`: the key is a tag of an APM-stats metric (`trace.*`), which the stats translation names.
 */
export function tagColumn(table: Table, key: string, optIn: SemconvOptIn = DEFAULT_SEMCONV, apm = false): Column {
  const known = KNOWN_KEYS.get(key) ?? KNOWN_KEYS.get(key.toLowerCase());
  if (known?.resource) return { map: RESOURCE_COLUMN, key: known.otel, ...(known.slice ? { list: true } : {}) };
  return { map: POINT_COLUMN[table], key: (apm ? APM_TAGS.get(key) : undefined) ?? attributeNames(key, optIn)[0]! };
}

/** `ResourceAttributes.host.name` — HyperDX's Lucene reads `<map column>.<key>` as a map lookup. */
export const luceneField = (c: Column): string => `${c.map}.${c.key}`;

const sqlString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `ResourceAttributes['host.name']`, for group-by expressions (SQL); a list's first value. */
export const sqlField = (c: Column): string => (c.list ? `JSONExtractString(${c.map}[${sqlString(c.key)}], 1)` : `${c.map}[${sqlString(c.key)}]`);

/** `expr IN ('a', 'b')`: the condition form HyperDX's filters save and read back. */
export const sqlIn = (expression: string, values: readonly string[], negated = false): string => `${expression} ${negated ? 'NOT IN' : 'IN'} (${values.map(sqlString).join(', ')})`;

/**
 * What a bare wildcard value means to HyperDX: its Lucene drops a leading and a trailing `*` and
 * matches values containing the rest, in any case (`ILIKE '%rest%'`; an inner `*` is read as
 * itself); Datadog matches the pattern.
 */
export function wildcardNote(value: string): string {
  const rest = value.replace(/^\*+|\*+$/g, '');
  return `the wildcard value ${value} matches any value containing "${rest}" in any case (HyperDX's search${rest.includes('*') ? ', which reads an inner * as itself' : ''}), not only the values of its pattern`;
}

/**
 * A value in a list column: the list's JSON text contains it quoted (`"v"`), which a bare term
 * with escaped quotes asks HyperDX for (`ILIKE '%"v"%'`, in any case: Datadog lowercases tags).
 */
export const listValue = (value: string): string => `\\"${value.replace(/[\\"\s():*]/g, (c) => `\\${c}`)}\\"`;

/** A Lucene value: wildcards stay bare (HyperDX matches them as containment: wildcardNote), anything else is a quoted phrase, matched exactly. */
export function luceneValue(value: string): string {
  // a wildcard stays bare; a `:` or `/` in it is escaped (HyperDX's grammar reads them as a field and a regular expression)
  if (/^[\w.\-/:@]*\*[\w.\-/:@*]*$/.test(value)) return value.replace(/[:/]/g, (c) => `\\${c}`);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
