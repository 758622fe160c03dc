/**
 * Datadog log search syntax → HyperDX search (Lucene over the logs table). Boolean operators,
 * parentheses, phrases, wildcards and free text are the same language; what changes is where each
 * field is: reserved attributes have columns of their own, tags follow resource promotion, and
 * `@facets` are log attributes under their OpenTelemetry names (src/signals/logs/ writes them).
 */
import { type Column, luceneField, sqlField, tagColumn } from './attributes';

/** The reserved attributes, as the logs translation stores them (docs/translation.md, Logs): columns or map keys. */
const RESERVED_FIELDS: ReadonlyMap<string, string | Column> = new Map<string, string | Column>([
  ['service', 'ServiceName'],
  ['status', 'SeverityText'],
  ['source', { map: 'LogAttributes', key: 'datadog.ddsource' }],
  ['message', 'Body'],
]);

/** SeverityText holds one lower-case name per level (docs/translation.md, severity). */
const STATUS_NAMES: ReadonlyMap<string, string> = new Map([
  ['warning', 'warn'],
  ['err', 'error'],
  ['ok', 'info'],
  ['informational', 'info'],
  ['crit', 'critical'],
  ['emerg', 'emergency'],
]);

/** Where a Datadog log field is: `service`, `@http.status_code`, `env`, … */
function logColumn(key: string): string | Column {
  if (key.startsWith('@')) return { map: 'LogAttributes', key: tagColumn('logs', key.slice(1)).key };
  return RESERVED_FIELDS.get(key) ?? tagColumn('logs', key);
}

/** The field as HyperDX search names it. */
export function logField(key: string): string {
  const c = logColumn(key);
  return typeof c === 'string' ? c : luceneField(c);
}

/** The field as a SQL expression (group-by). */
export function logFieldSql(key: string): string {
  const c = logColumn(key);
  return typeof c === 'string' ? c : sqlField(c);
}

const statusValue = (value: string): string => STATUS_NAMES.get(value.toLowerCase()) ?? value.toLowerCase();

/** `key:value` terms (quoted, grouped or bare values); everything between them is kept as written. */
const FIELD_TERM = /(^|[\s(])(-?)(@?[A-Za-z_][\w.-]*):("(?:[^"\\]|\\.)*"|\([^)]*\)|[^\s()]+)/g;

export function translateLogSearch(query: string): string {
  const trimmed = query.trim();
  if (trimmed === '' || trimmed === '*') return '';
  return trimmed.replace(FIELD_TERM, (_m, before: string, negate: string, key: string, value: string) => {
    const field = logField(key);
    return `${before}${negate}${field}:${field === 'SeverityText' ? statusValue(value) : value}`;
  });
}
