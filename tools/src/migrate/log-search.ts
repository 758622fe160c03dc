/**
 * Datadog log search syntax → HyperDX search (Lucene over the logs table). Boolean operators,
 * parentheses, phrases, wildcards and free text are the same language; what changes is where each
 * field is: reserved attributes have columns of their own, tags follow resource promotion, and
 * `@facets` are log attributes under their OpenTelemetry names (src/signals/logs/ writes them).
 */
import { type Column, luceneField, sqlField, tagColumn } from './attributes';
import type { TemplateVariable } from './datadog';
import { Unsupported } from './unsupported';

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

const statusName = (value: string): string => STATUS_NAMES.get(value.toLowerCase()) ?? value.toLowerCase();

/** A status value, or a group of them: `(error OR warn)` keeps its operators, each level renamed. */
const statusValue = (value: string): string => (value.startsWith('(') ? value.replace(/[^\s()"]+/g, (word) => (/^(AND|OR|NOT)$/.test(word) ? word : statusName(word))) : statusName(value));

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

/** `$name` (or `$name.value`) in a log search. */
const VARIABLE = /(^|[\s(:])(-?)\$([A-Za-z0-9_.-]+?)(?:\.value)?(?=$|[\s)"])/g;

/**
 * A log search with each `$variable` replaced by its default, as the search runs when the
 * dashboard opens: `prefix:value` (several: any of them), nothing for `*`. HyperDX's dashboard
 * filters reach metric tiles only (filters.ts), so a log tile keeps the default, and that is said.
 */
export function withVariableDefaults(query: string, variables: readonly TemplateVariable[], notes: string[]): string {
  return query.replace(VARIABLE, (_whole, before: string, negate: string, name: string) => {
    const variable = variables.find((v) => v.name === name);
    if (variable === undefined) throw new Unsupported(`the log search names $${name}, which the dashboard does not define`);
    const values = variable.defaults.filter((d) => d !== '*' && d !== '');
    notes.push(`template variable $${name} in a log search: its default (${values.length > 0 ? values.join(' or ') : 'everything'}) applied; HyperDX's filter does not reach log tiles`);
    if (values.length === 0) return before;
    if (before === ':') return `${before}${values.length === 1 ? values[0] : `(${values.join(' OR ')})`}`;
    const terms = values.map((v) => (variable.prefix ? `${variable.prefix}:${v}` : v));
    return `${before}${negate}${terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`}`;
  });
}
