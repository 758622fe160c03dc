/**
 * Datadog's search syntax (logs, and APM spans) → HyperDX search (Lucene over the logs or the
 * traces table). Boolean operators, parentheses, phrases, wildcards and free text are the same
 * language; what changes is where each field is (a SearchSchema): reserved attributes have
 * columns of their own, tags follow resource promotion, and `@facets` are attributes under their
 * OpenTelemetry names (src/signals/logs/ and src/signals/traces/ write them).
 */
import type { SemconvOptIn } from '../../../src/config/options';
import { attributeName, attributeNames } from '../../../src/signals/shared/known-keys';
import { HOST_KEYS, SERVICE_KEYS, STATUS_KEYS } from '../../../src/signals/logs/datadog';
import { severityOf } from '../../../src/signals/logs/severity';
import { type Column, luceneField, sqlField, tagColumn, wildcardNote } from './attributes';
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

/**
 * Where a search's fields are, and what is particular about some: logs (LOG_SEARCH) or spans
 * (spanSearch). `term`: the whole term for a field whose value needs more than one column, given
 * how a value is matched on one (`match`).
 */
export interface SearchSchema {
  /** the column (or map key) a field is read from: `service`, `@http.status_code`, `env`, … */
  column(key: string): string | Column;
  /** a field's group-by expression when it is not its column */
  groupBy?(key: string): string | undefined;
  term?(key: string, value: string, match: (field: string, value: string) => string, notes: string[]): string | undefined;
  /** a value renamed before it is matched (a log level's name) */
  rename?(column: string): ((v: string) => string) | undefined;
  /** fields Datadog's backend sets and the bridge never stores: their terms are dropped, with this note */
  unstored?: { field: RegExp; note: string };
}

const statusName = (value: string): string => STATUS_NAMES.get(value.toLowerCase()) ?? value.toLowerCase();

interface OwnField {
  /** where the logs translation puts the attribute's value when it takes it, as HyperDX's search names it */
  field: string;
  /** the value as it is stored there */
  stored: (value: string) => string;
  what: string;
}

const LEVEL: OwnField = { field: 'SeverityText', stored: (v) => severityOf(v).text, what: 'level' };
const HOST: OwnField = { field: luceneField(tagColumn('logs', 'host')), stored: (v) => v, what: 'host' };
const SERVICE: OwnField = { field: 'ServiceName', stored: (v) => v, what: 'service' };

/**
 * Attributes the logs translation takes for the record's own level, host or service
 * (src/signals/logs/datadog.ts): in each group, the first with a value is moved there and not
 * kept as an attribute, another that disagrees stays one.
 */
const OWN_FIELDS: ReadonlyMap<string, OwnField> = new Map([...STATUS_KEYS.map((k) => [k, LEVEL] as const), ...HOST_KEYS.map((k) => [k, HOST] as const), ...SERVICE_KEYS.map((k) => [k, SERVICE] as const)]);

const ownFieldNote = (key: string, own: OwnField): string =>
  `${key} is taken for the log's ${own.what} by the bridge when it is the first of its group with a value (and is then not kept as an attribute): ${key}:… matches the attribute or the ${own.what}, so also logs whose ${own.what} came from another field`;

/** Logs: as the logs translation stores them (docs/translation.md, Logs). */
export const LOG_SEARCH: SearchSchema = {
  // an `@attribute` is a field of the record, named as the logs translation names fields (never a resource key, as a tag of that name would be)
  column: (key) => (key.startsWith('@') ? { map: 'LogAttributes', key: attributeName(key.slice(1)) } : (RESERVED_FIELDS.get(key) ?? tagColumn('logs', key))),
  rename: (column) => (column === 'SeverityText' ? statusName : undefined),
  term: (key, value, match, notes) => {
    const own = key.startsWith('@') ? OWN_FIELDS.get(key.slice(1)) : undefined;
    if (own === undefined) return undefined;
    const note = ownFieldNote(key, own);
    if (!notes.includes(note)) notes.push(note);
    // the stored value is matched as the attribute's is (exactTerm), renamed as the bridge stores it
    return `(${match(searchField(LOG_SEARCH, key), value)} OR ${exactTerm(own.field, value, own.stored, notes)})`;
  },
};

/** The field as HyperDX search names it. */
export function searchField(schema: SearchSchema, key: string): string {
  const c = schema.column(key);
  return typeof c === 'string' ? c : luceneField(c);
}

/** The field as a SQL expression (group-by). */
export function searchFieldSql(schema: SearchSchema, key: string): string {
  const special = schema.groupBy?.(key);
  if (special !== undefined) return special;
  const c = schema.column(key);
  return typeof c === 'string' ? c : sqlField(c);
}

export const logField = (key: string): string => searchField(LOG_SEARCH, key);
export const logFieldSql = (key: string): string => searchFieldSql(LOG_SEARCH, key);

/** An event's fields as the events translation writes them (src/signals/events/translate.ts). */
const EVENT_FIELDS: ReadonlyMap<string, string | Column> = new Map<string, string | Column>([
  ['source', { map: 'LogAttributes', key: 'datadog.event.source_type_name' }],
  ['status', 'SeverityText'],
  ['message', 'Body'],
  ['service', 'ServiceName'],
  ['title', { map: 'LogAttributes', key: 'datadog.event.title' }],
  ['priority', { map: 'LogAttributes', key: 'datadog.event.priority' }],
  ['@aggregation_key', { map: 'LogAttributes', key: 'datadog.event.aggregation_key' }],
  ['aggregation_key', { map: 'LogAttributes', key: 'datadog.event.aggregation_key' }],
  // the older event stream's plural names
  ['sources', { map: 'LogAttributes', key: 'datadog.event.source_type_name' }],
  ['hosts', { map: 'ResourceAttributes', key: 'host.name' }],
]);

/** What an event's status reads in the bridge (src/signals/events/translate.ts levels an alert type). */
export const EVENT_LEVELS_NOTE = "an event's success and info are one level in the bridge (info)";

/** What an event's service reads in the bridge (src/signals/events/translate.ts names one without a service tag after its source type). */
export const EVENT_SERVICE_NOTE = 'an event without a service tag is filed under its source type in the bridge (Datadog gives it no service)';

/** An event's alert type as the bridge levels it: success is info. */
const eventStatus = (value: string): string => (/^(success|ok)$/i.test(value) ? 'info' : statusName(value));

/**
 * Datadog events: log records of the Logs source (docs/translation.md, Events), a field of the
 * event (`source`, `status`, `priority`) where the events translation writes it, tags and `@attr`
 * as for logs. EVENTS_ONLY keeps a search to events.
 */
export const EVENT_SEARCH: SearchSchema = {
  column: (key) => EVENT_FIELDS.get(key) ?? LOG_SEARCH.column(key),
  rename: (column) => (column === 'SeverityText' ? eventStatus : undefined),
  term: (key, value, _match, notes) => {
    if (key === 'status' && /^"?(success|ok|info)"?$/i.test(value)) notes.push(`${EVENT_LEVELS_NOTE}: either matches both`);
    if (key === 'service') notes.push(`${EVENT_SERVICE_NOTE}: service:${value} also matches the events of source ${value} without one`);
    return undefined;
  },
};

/** Every event carries its title (an event without one is refused at intake): what tells an event from a log. */
const EVENTS_ONLY = 'LogAttributes.datadog.event.title:*';

/** A search of the logs table kept to events (events share it with logs). */
export const eventsOnly = (where: string): string => (where === '' ? EVENTS_ONLY : `(${where}) AND ${EVENTS_ONLY}`);

/** A search of the logs table kept to logs: Datadog's log queries never see events, which share the table here. */
// `-field:*` (HyperDX: notEmpty(…) != 1); `NOT field:*` would carry HyperDX's index hint on the key under the NOT
const logsOnly = (where: string): string => (where === '' ? `-${EVENTS_ONLY}` : `(${where}) AND -${EVENTS_ONLY}`);

/** A search kept to the records of its kind: logs and events share the logs table; spans have their own. */
export const keptTo = (kind: 'logs' | 'events' | 'spans', where: string): string => (kind === 'events' ? eventsOnly(where) : kind === 'logs' ? logsOnly(where) : where);

/** A span's columns and fields as the traces translation writes them (docs/translation.md, Span translation). */
const SPAN_FIELDS: ReadonlyMap<string, string | Column> = new Map<string, string | Column>([
  ['resource_name', { map: 'SpanAttributes', key: 'dd.span.Resource' }],
  ['operation_name', { map: 'SpanAttributes', key: 'datadog.span.name' }],
  ['type', { map: 'SpanAttributes', key: 'datadog.span.type' }],
  ['duration', 'Duration'],
  ['@duration', 'Duration'],
  ['trace_id', 'TraceId'],
  ['span_id', 'SpanId'],
  // Datadog's facet for the tracer's `_dd.top_level`, which the bridge keeps under its own name
  ['@_top_level', { map: 'SpanAttributes', key: '_dd.top_level' }],
]);

/** What `@_top_level` reads: the tracers' sampling bookkeeping, which the bridge leaves out by default (src/signals/traces/finish.ts, INTERNAL_TAGS). */
const TOP_LEVEL_NOTE = "@_top_level reads the tracers' _dd.top_level, which the bridge writes only when run with --keep-internal-tags: without it the search matches no span";

/** Nanoseconds per duration unit of a span search (`@duration:>5s`). */
const DURATION_UNITS: ReadonlyMap<string, number> = new Map([
  ['ns', 1],
  ['us', 1e3],
  ['µs', 1e3],
  ['ms', 1e6],
  ['s', 1e9],
  ['m', 60e9],
  ['h', 3600e9],
]);

/**
 * A duration value with time units (`>5s`, `[1ms TO 2s]`) in nanoseconds, as the Duration
 * column holds it (HyperDX would compare the column with the text `5s`); undefined when it has
 * none (a bare number is nanoseconds already, as Datadog reads it).
 */
function durationInNs(value: string): string | undefined {
  const amount = /(-?\d+(?:\.\d+)?)([a-zµ]+)/g;
  if (!amount.test(value)) return undefined;
  return value.replace(amount, (_m, n: string, unit: string) => {
    const ns = DURATION_UNITS.get(unit);
    if (ns === undefined) throw new Unsupported(`the duration unit ${unit} in @duration:${value} (ns, us, ms, s, m and h are migrated)`);
    return String(Math.round(Number(n) * ns));
  });
}

/** Datadog's span id (decimal, 64 bits) as the SpanId column holds it (16 hex digits); undefined for another value. */
function hexSpanId(value: string): string | undefined {
  const digits = value.replace(/^"|"$/g, '');
  if (!/^\d{1,20}$/.test(digits) || BigInt(digits) >= 1n << 64n) return undefined;
  return BigInt(digits).toString(16).padStart(16, '0');
}

/** An integration span's own service (ServiceName holds its process's, `_dd.base_service`). */
const OWN_SERVICE = { map: 'SpanAttributes', key: 'datadog.service' } as const;

/**
 * Spans. A span's own service is `datadog.service` when the bridge filed it under its process's
 * (ServiceName), else ServiceName: `service:x` reads both, exactly. `status:error` is the
 * span's Error status, `status:ok` any other; `@duration` is the Duration column (ns, as
 * Datadog's; a value with time units, `>5s`, converted); `span_id` (decimal) is SpanId in hex. Attributes follow the semantic-convention opt-in the bridge ran with.
 */
export function spanSearch(optIn: SemconvOptIn): SearchSchema {
  return {
    column: (key) => SPAN_FIELDS.get(key) ?? (key === 'service' ? 'ServiceName' : key === 'status' ? 'StatusCode' : key.startsWith('@') ? { map: 'SpanAttributes', key: attributeNames(key.slice(1), optIn)[0]! } : tagColumn('traces', key, optIn)),
    unstored: UNSTORED_SPAN_FIELDS,
    groupBy: (key) => (key === 'service' ? `if(${sqlField(OWN_SERVICE)} != '', ${sqlField(OWN_SERVICE)}, ServiceName)` : key === 'status' ? "if(StatusCode = 'Error', 'error', 'ok')" : undefined),
    term: (key, value, match, notes) => {
      if (key === '@_top_level') notes.push(TOP_LEVEL_NOTE);
      const spanId = key === 'span_id' ? hexSpanId(value) : undefined;
      if (spanId !== undefined) return `SpanId:"${spanId}"`;
      const duration = key === '@duration' || key === 'duration';
      // every span has a duration; HyperDX's `Duration:*` fails (notEmpty of a UInt64)
      if (duration && value === '*') return 'Duration:>=0';
      const ns = duration ? durationInNs(value) : undefined;
      if (ns !== undefined) return `Duration:${ns}`;
      if (key === 'service') return `(${match(luceneField(OWN_SERVICE), value)} OR (${match('ServiceName', value)} AND NOT ${luceneField(OWN_SERVICE)}:*))`;
      if (key !== 'status') return undefined;
      const error = value.replace(/"/g, '').toLowerCase() === 'error';
      return error ? 'StatusCode:"Error"' : '(NOT StatusCode:"Error")';
    },
  };
}

/**
 * `retained_by:retention_filter` names the retention filter that indexed a span, which Datadog's
 * backend sets (its values: retention_filter, flat_sampled, diversity_sampling); the bridge keeps
 * every span a tracer sends and no span carries it, so the term would match nothing.
 */
const UNSTORED_SPAN_FIELDS = { field: /^retained_by$/, note: "dropped: Datadog's backend marks the spans its retention filters index (retained_by); the bridge keeps every span it receives, none marked" };

/** `query` without the terms of fields its schema never stores (each said). */
function withoutUnstored(query: string, schema: SearchSchema, notes: string[]): string {
  const unstored = schema.unstored;
  if (unstored === undefined) return query;
  return query
    .replace(FIELD_TERM, (m, before: string, _negate: string, key: string) => {
      if (!unstored.field.test(key)) return m;
      notes.push(`${m.trim()} ${unstored.note}`);
      return before;
    })
    .trim();
}

/** A numeric range over integers HyperDX can be asked for value by value: at most this many. */
const MAX_RANGE_VALUES = 50;

/** The longest search a HyperDX select takes (SelectItem.where in the OpenAPI document). */
const MAX_WHERE = 10_000;

/** `[a TO b]` (or `{a TO b}`, bounds excluded) of integers → its values; undefined when it is not one or is too wide. */
function integerRange(value: string): string[] | undefined {
  const m = /^([[{])\s*(-?\d+)\s+TO\s+(-?\d+)\s*([\]}])$/.exec(value);
  if (!m) return undefined;
  const low = Number(m[2]) + (m[1] === '{' ? 1 : 0);
  const high = Number(m[3]) - (m[4] === '}' ? 1 : 0);
  if (high < low || high - low >= MAX_RANGE_VALUES) return undefined;
  return Array.from({ length: high - low + 1 }, (_, i) => String(low + i));
}

/**
 * One `field:value` term as HyperDX's Lucene must get it to mean what Datadog's does. HyperDX
 * matches a bare value as text containing it, case-insensitively (`ILIKE '%value%'`), and a
 * quoted one exactly, as Datadog matches a value: plain values are quoted. A wildcard value
 * (`web-*`) stays bare, HyperDX ignores where its `*` stands: it matches values containing the
 * rest, which is said. A numeric range on a log attribute (text in ClickHouse, which HyperDX
 * compares with the bounds as numbers, and fails) becomes its integers, or is not migrated.
 */
function exactTerm(field: string, value: string, rename: (v: string) => string, notes: string[]): string {
  if (value === '*') return `${field}:*`;
  const attribute = /^(Log|Resource|Span)Attributes\./.test(field);
  if (/^[[{<>]/.test(value)) {
    if (!attribute) return `${field}:${value}`;
    const values = integerRange(value);
    if (values === undefined) throw new Unsupported(`the range ${field.replace(/^\w+\./, '@')}:${value} (a log attribute is text to HyperDX, which compares it with numbers and fails; an integer range of up to ${MAX_RANGE_VALUES} values is migrated)`);
    notes.push(`the range ${value} is matched as the integers ${values[0]} to ${values.at(-1)} (a log attribute is text to HyperDX)`);
    return `(${values.map((v) => `${field}:"${v}"`).join(' OR ')})`;
  }
  const quoted = value.length > 1 && value.startsWith('"') && value.endsWith('"');
  const plain = (quoted ? value.slice(1, -1) : value).replace(/\\(.)/g, '$1');
  if (!quoted && plain.includes('*')) {
    // a run of * is one wildcard to Datadog; HyperDX drops one leading and one trailing * only, and reads the rest as text
    notes.push(wildcardNote(plain.replace(/\*{2,}/g, '*')));
    return `${field}:${value.replace(/\*{2,}/g, '*')}`;
  }
  // a map column returns '' for a key it does not hold
  if (plain === '') notes.push('an empty value ("") also matches logs without the attribute (HyperDX reads a missing attribute as empty)');
  return `${field}:"${rename(plain).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * `field:value`, or a group `field:(a OR -b)` written `(field:a OR -field:b)` (its operators kept):
 * HyperDX reads an empty value inside a field's group as "anything".
 */
function fieldTerm(schema: SearchSchema, key: string, value: string, notes: string[]): string {
  const field = searchField(schema, key);
  const rename = schema.rename?.(field) ?? ((v: string) => v);
  const one = (word: string): string => schema.term?.(key, word, (f, v) => exactTerm(f, v, rename, notes), notes) ?? exactTerm(field, word, rename, notes);
  if (!value.startsWith('(')) return one(value);
  // `-v` in a group is a negated term (`@cache:(-MISS)`: not MISS), not the value "-v"
  return value.replace(/-?(?:"(?:[^"\\]|\\.)*"|[[{][^\]}]*[\]}]|[^\s()]+)/g, (word) => (/^(AND|OR|NOT)$/.test(word) ? word : /^-./.test(word) ? `-${one(word.slice(1))}` : one(word)));
}

/** `key:value` terms (quoted, grouped or bare values); everything between them is kept as written. */
const FIELD_TERM = /(^|[\s(])([-!]?)(@?[A-Za-z_][\w.-]*):("(?:[^"\\]|\\.)*"|\([^)]*\)|[[{][^\]}]*[\]}]|[^\s()]+)/g;

/** The fields a search names (`@attr`, `service`, a tag key), as written. */
export const searchFields = (query: string): string[] => [...query.matchAll(FIELD_TERM)].map((m) => m[3]!.replace(/^@@/, '@'));

/**
 * A Datadog search as HyperDX's Lucene over `schema`'s table: fields moved where the bridge
 * writes them, values matched exactly (exactTerm), `-(…)` written `NOT (…)` (HyperDX's grammar
 * has no `-` before a group). `notes` receives what is approximated; what HyperDX cannot run is
 * thrown (Unsupported).
 */
export function translateSearch(query: string, schema: SearchSchema, notes: string[] = []): string {
  if (/(^|[\s(-])#\w/.test(query)) throw new Unsupported(`the search reads calculated fields (#name), which HyperDX has no equivalent of`);
  // HyperDX's Lucene reads `*` as a field name and its SQL fails (`lower(*)`)
  if (/(^|[\s(-])\*:/.test(query)) throw new Unsupported('the search matches any attribute (*:value), which HyperDX has no equivalent of');
  const trimmed = query
    // `@@attr` (a doubled @) is the attribute
    .replace(/(^|[\s(-])@@/g, '$1@')
    // a field with no value (`tags:`, `source: x`) names nothing: dropped, as Datadog matches on nothing there
    .replace(/(^|[\s(])-?@?[A-Za-z_][\w.-]*:(?=$|[\s)])/g, (m, before: string) => {
      notes.push(`the empty term ${m.trim()} dropped`);
      return before;
    })
    .trim();
  const kept = withoutUnstored(trimmed, schema, notes);
  if (kept === '' || kept === '*') return '';
  freeTextWildcards(kept, notes);
  const where = kept
    // `!` negates as `-` does in Datadog's search; HyperDX's grammar knows `-`
    .replace(FIELD_TERM, (_m, before: string, negate: string, key: string, value: string) => `${before}${negate === '' ? '' : '-'}${fieldTerm(schema, key, value, notes)}`)
    .replace(/(^|[\s(])[-!]\(/g, '$1NOT (')
    // free text with Datadog's escapes (`felix\/dataplane.go`) as a phrase HyperDX matches as written
    .replace(/(^|[\s(])((?:[^\s()":\\]|\\.)*\\.(?:[^\s()":\\]|\\.)*)(?=$|[\s)])/g, (_m, before: string, word: string) => `${before}"${word.replace(/\\(.)/g, '$1').replace(/"/g, '\\"')}"`);
  if (where.length > MAX_WHERE) throw new Unsupported(`the search is ${where.length} characters as HyperDX reads it (at most ${MAX_WHERE})`);
  return where;
}

/**
 * Free text with a wildcard (`START*`): HyperDX's search matches it against the whole message
 * (`START*`: messages that start with START), where Datadog matches the message's words: said.
 */
function freeTextWildcards(query: string, notes: string[]): void {
  const free = query.replace(FIELD_TERM, '$1').replace(/"(?:[^"\\]|\\.)*"/g, ' ');
  // `*x*` (contains) is the same either way
  for (const [, , word] of free.matchAll(/(^|[\s(])-?([^\s()":]*\*[^\s()":]*)(?=$|[\s)])/g))
    if (word !== '*' && !(word.startsWith('*') && word.endsWith('*'))) notes.push(`the free text ${word} is matched against the whole message (HyperDX's search: ${word.startsWith('*') ? 'ending' : 'starting'} with it), not against each of its words`);
}

export const translateLogSearch = (query: string, notes: string[] = []): string => translateSearch(query, LOG_SEARCH, notes);

/**
 * A search narrowed to logs that hold each of `facets` (`@attr`, `service`, a tag): Datadog
 * leaves a log without a group-by facet out of the groups, and a measure or unique count out of
 * what it measures, while HyperDX would draw it in an empty group, count it as the value '' or
 * read its measure as 0 (its aggregations read values with toFloat64OrDefault). HyperDX reads
 * `field:*` as "holds a value".
 */
export function holdingFacets(where: string, facets: readonly string[], schema: SearchSchema = LOG_SEARCH, notes: string[] = []): string {
  // a facet whose name HyperDX's Lucene cannot hold (`@campaign name`, `@a.b[2]`): its records are not narrowed, which is said
  const named = facets.filter((f) => /^@?[\w.-]+$/.test(f));
  for (const f of facets.filter((x) => !named.includes(x))) notes.push(`records without ${f} are drawn in an empty group or counted as 0 (HyperDX's search cannot name the facet to leave them out)`);
  const held = named.map((f) => searchField(schema, f)).flatMap((field) => (EVERY_RECORD_HOLDS.has(field) ? [] : [`${field}:*`]));
  if (held.length === 0) return where;
  return [...(where === '' ? [] : [`(${where})`]), ...held].join(' AND ');
}

/**
 * Number columns every record has (a span's Duration): nothing to narrow, and HyperDX's `:*` on
 * one fails in ClickHouse (notEmpty of a UInt64).
 */
const EVERY_RECORD_HOLDS: ReadonlySet<string> = new Set(['Duration']);

/** `$name` (or `$name.value`) in a log search. */
const VARIABLE = /(^|[\s(])(-?)(?:([@\w.-]+):)?\$([A-Za-z0-9_.-]+?)(?:\.value)?(?=$|[\s)"])/g;

/**
 * A log or span search with each `$variable` replaced by its default, as the search runs when
 * the dashboard opens: `prefix:value` (several: any of them), nothing for `*`. HyperDX's dashboard
 * filters reach metric tiles only (filters.ts), so such a tile keeps the default, and that is said.
 */
export function withVariableDefaults(query: string, variables: readonly TemplateVariable[], notes: string[]): string {
  return query.replace(VARIABLE, (_whole, before: string, negate: string, key: string | undefined, name: string) => {
    const variable = variables.find((v) => v.name === name);
    if (variable === undefined) throw new Unsupported(`the search names $${name}, which the dashboard does not define`);
    const values = variable.defaults.filter((d) => d !== '*' && d !== '');
    notes.push(`template variable $${name} in a search: its default (${values.length > 0 ? values.join(' or ') : 'everything'}) applied; HyperDX's filters reach metric tiles only`);
    // everything: the term goes, `key:` with it (`key:$v.value`)
    if (values.length === 0) return before;
    const tagKey = key ?? variable.prefix;
    const terms = values.map((v) => (tagKey ? `${tagKey}:${v}` : v));
    return `${before}${negate}${terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`}`;
  });
}
