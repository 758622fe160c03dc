/**
 * The OTLP span name. Datadog spans have two names: the operation (`name`: `express.request`,
 * `http.request`, `pg.query`) and the `resource` (`GET /users/:id`, `GET`, the query). Datadog's
 * own UI lists spans by resource, and an all-`http.request` span list is the most common
 * complaint about the upstream receiver (docs/translation.md, Span name), so the span is named
 * after its resource whenever the resource says more than the operation:
 *
 * - server spans with an `http.route` tag: `{method} {route}` (`GET /invoices/{id}`), OTel's HTTP
 *   server span name, rather than a resource the tracer or agent normalised (`GET /invoices/?`);
 * - resource, when it is set, differs from the operation name, is one line and at most 200
 *   characters (HyperDX lists, groups and sorts spans by name; ClickHouse orders the table by it);
 * - for database query spans (type `sql`/`cassandra`, a `db.statement`/`sql.query` tag, or a
 *   database system tag with a query's text in the resource, see isUntypedQuery) the
 *   resource is the query text — unbounded, and carrying literal values when it comes straight
 *   from a tracer — so the name is OTel's query summary: the query's operations and the tables they
 *   act on, in order (`SELECT orders`, `INSERT order_items SELECT cart`), else `{operation}
 *   {database}` (`db.operation` or the first keyword, `db.name`/`db.instance`), else the system;
 * - an OpenTelemetry-origin HTTP client span whose resource is its method alone (the trace-agent's
 *   conversion drops the name): `{method} {target}` (otelClientName);
 * - otherwise the operation name.
 *
 * Both Datadog names stay searchable: `datadog.span.name` (operation) and `dd.span.Resource` (the
 * key upstream uses, so existing queries keep working), plus `datadog.span.type`. The kind step
 * runs first, so that this one knows a server span.
 */
import type { DdSpan } from './datadog';
import { SpanKind } from '../../core/otlp/model';
import { firstOf, type Remaining, type SpanDraft, type SpanStep } from './draft';

const MAX_NAME = 200;
const QUERY_TYPES = new Set(['sql', 'cassandra']);
const QUERY_TAGS = ['db.statement', 'sql.query'];
/** At most this many operations and tables in a summary: a name, not a parse of the query. */
const MAX_SUMMARY_PARTS = 6;

/** A statement keyword first, then a clause or a placeholder: a query's text, not a summary (`SELECT orders`) or a command (`GET`). */
const QUERY_TEXT = /^\s*\(?\s*(?:SELECT|INSERT|UPDATE|DELETE|MERGE|UPSERT|REPLACE|CREATE|DROP|ALTER|TRUNCATE|CALL|EXEC|EXECUTE|WITH)\b[\s\S]*(?:\b(?:FROM|INTO|SET|WHERE|VALUES|JOIN|TABLE)\b|[?=]|\$\d)/i;

/**
 * A span that names its database system and whose resource is a query's text: what a tracer's
 * OpenTelemetry bridge sends for a JDBC call (dd-java-agent, `_dd.integration=otel`), with neither
 * a query type nor a query tag, the query in the resource alone.
 */
const isUntypedQuery = (span: DdSpan, meta: Remaining<string>): boolean => (meta.has('db.system') || meta.has('db.system.name') || meta.has('db.type')) && QUERY_TEXT.test(span.resource);

export const isQuery = (span: DdSpan, meta: Remaining<string>): boolean => QUERY_TYPES.has(span.type) || meta.has(QUERY_TAGS[0] as string) || meta.has(QUERY_TAGS[1] as string) || isUntypedQuery(span, meta);

/** SQL's statement keywords a summary names, and the keywords after which a table name follows. */
const OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'UPSERT', 'REPLACE', 'CREATE', 'DROP', 'ALTER', 'TRUNCATE', 'CALL', 'EXEC', 'EXECUTE', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SHOW']);
const BEFORE_TABLE = new Set(['FROM', 'INTO', 'UPDATE', 'JOIN', 'TABLE']);
/** Words between such a keyword and the table (`CREATE TABLE IF NOT EXISTS t`, `FROM ONLY t`). */
const TABLE_MODIFIERS = new Set(['IF', 'NOT', 'EXISTS', 'ONLY', 'LATERAL']);
/** Words, quoted identifiers and (dotted) names; string literals and numbers are skipped whole. */
const TOKEN = /'(?:[^']|'')*'|"([^"]+)"|`([^`]+)`|\[([^\]]+)\]|([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*)|\S/g;

/**
 * OTel's `db.query.summary` of a SQL text: each operation keyword and each table a FROM, INTO,
 * UPDATE, JOIN or TABLE names, in order, repeats dropped. Never literal values, so low cardinality.
 */
export function querySummary(query: string): string | undefined {
  const parts: string[] = [];
  let expectTable = false;
  for (const m of query.slice(0, 4096).matchAll(TOKEN)) {
    const name = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (name === undefined) {
      expectTable = false;
      continue;
    }
    const word = m[4] === undefined ? undefined : name.toUpperCase();
    if (expectTable && word !== undefined && TABLE_MODIFIERS.has(word)) continue;
    const part = expectTable && word !== 'SELECT' ? name : word !== undefined && OPERATIONS.has(word) ? word : undefined;
    expectTable = word !== undefined && BEFORE_TABLE.has(word);
    if (part !== undefined && parts[parts.length - 1] !== part) parts.push(part);
    if (parts.length >= MAX_SUMMARY_PARTS) break;
  }
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** Query summaries remembered by query text: a service runs the same few statements again and again. */
export interface Summaries {
  of(query: string): string | undefined;
}

const MAX_SUMMARIES = 1024;
const MAX_REMEMBERED_QUERY = 2048;

/** Summaries per query text, bounded in entries and text length (about 2 MiB); one per process (caches.ts). */
export class QuerySummaries implements Summaries {
  private readonly memo = new Map<string, string | null>();

  of(query: string): string | undefined {
    const hit = this.memo.get(query);
    if (hit !== undefined) return hit ?? undefined;
    const summary = querySummary(query);
    if (query.length <= MAX_REMEMBERED_QUERY) {
      if (this.memo.size >= MAX_SUMMARIES) this.memo.clear();
      this.memo.set(query, summary ?? null);
    }
    return summary;
  }
}

const UNREMEMBERED: Summaries = { of: querySummary };

/** `SELECT orders`: the query's summary, else the operation and the database, else the system; never the literal query. */
function queryName(span: DdSpan, meta: Remaining<string>, summaries: Summaries): string {
  const summary = summaries.of(meta.get(QUERY_TAGS[0] as string) || meta.get(QUERY_TAGS[1] as string) || span.resource);
  const table = firstOf(meta, 'db.sql.table');
  const operation = firstOf(meta, 'db.operation');
  if (operation && table) return `${operation} ${table}`;
  if (summary?.includes(' ')) return summary;
  const target = table ?? firstOf(meta, 'db.name', 'db.instance');
  return [operation ?? summary, target].filter(Boolean).join(' ') || firstOf(meta, 'db.system', 'db.type') || span.name;
}

/** OTel's HTTP server span name, when the tracer says the route. */
function routeName(draft: SpanDraft): string | undefined {
  if (draft.kind !== SpanKind.Server) return undefined;
  const route = draft.meta.get('http.route');
  if (!route) return undefined;
  const method = draft.meta.get('http.method');
  return method ? `${method.toUpperCase()} ${route}` : route;
}

/** Where an HTTP client span's target is said, most specific first: OpenTelemetry's, then the trace-agent's name for `server.address`. */
const CLIENT_TARGET_KEYS = ['url.template', 'peer.service', 'server.address', 'http.server_name'];

/** The host of a URL, or undefined. */
function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * An OpenTelemetry HTTP client span as the trace-agent's conversion hands it on: its name
 * (`POST payments`) dropped, its resource the method alone. Named as OpenTelemetry names HTTP
 * client spans, `{method} {target}`: the URL template, else the peer service or server address
 * the span names, else the URL's host (docs/translation.md, Span name).
 */
function otelClientName(draft: SpanDraft): string | undefined {
  if (draft.scope === undefined || draft.kind !== SpanKind.Client) return undefined;
  const { meta, span } = draft;
  const method = meta.get('http.method');
  if (!method || span.resource !== method) return undefined;
  const target = firstOf(meta, ...CLIENT_TARGET_KEYS) ?? hostOf(meta.get('http.url') || meta.get('url.full'));
  return target ? `${method} ${target}` : undefined;
}

const meaningful = (resource: string, operation: string): boolean => resource !== '' && resource !== operation && resource.length <= MAX_NAME && !/[\r\n]/.test(resource);

export function spanName(span: DdSpan, meta: Remaining<string>, summaries: Summaries = UNREMEMBERED): string {
  if (isQuery(span, meta)) return queryName(span, meta, summaries);
  if (meaningful(span.resource, span.name)) return span.resource;
  return span.name || span.resource;
}

export const name: SpanStep = (draft, ctx) => {
  const { span, attributes } = draft;
  if (span.name) attributes.set('datadog.span.name', { string: span.name });
  if (span.resource) attributes.set('dd.span.Resource', { string: span.resource });
  if (span.type) attributes.set('datadog.span.type', { string: span.type });
  draft.name = routeName(draft) ?? otelClientName(draft) ?? spanName(span, draft.meta, ctx.querySummaries);
  return draft;
};
