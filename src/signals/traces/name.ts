/**
 * The OTLP span name. Datadog spans have two names: the operation (`name`: `express.request`,
 * `http.request`, `pg.query`) and the `resource` (`GET /users/:id`, `GET`, the query). Datadog's
 * own UI lists spans by resource, and an all-`http.request` span list is the most common
 * complaint about the upstream receiver (docs/translation.md, Span name), so the span is named
 * after its resource whenever the resource says more than the operation:
 *
 * - resource, when it is set, differs from the operation name, is one line and at most 200
 *   characters (HyperDX lists, groups and sorts spans by name; ClickHouse orders the table by it);
 * - for database query spans (type `sql`/`cassandra`, or a `db.statement`/`sql.query` tag) the
 *   resource is the query text — unbounded, and carrying literal values when it comes straight
 *   from a tracer — so the name follows OTel's `{operation} {target}`: `db.operation` or the
 *   query's first keyword, then the table or database (`SELECT users`);
 * - otherwise the operation name.
 *
 * Both Datadog names stay searchable: `datadog.span.name` (operation) and `dd.span.Resource` (the
 * key upstream uses, so existing queries keep working), plus `datadog.span.type`.
 */
import type { DdSpan } from './datadog';
import { firstOf, type Remaining, type SpanStep } from './draft';

const MAX_NAME = 200;
const QUERY_TYPES = new Set(['sql', 'cassandra']);
const QUERY_TAGS = ['db.statement', 'sql.query'];

const isQuery = (span: DdSpan, meta: Remaining<string>): boolean => QUERY_TYPES.has(span.type) || QUERY_TAGS.some((k) => meta.has(k));

/** `SELECT users`: the operation and what it acts on, never the literal query. */
function queryName(span: DdSpan, meta: Remaining<string>): string {
  const operation = firstOf(meta, 'db.operation') ?? /^\s*([A-Za-z]{2,16})\b/.exec(span.resource)?.[1]?.toUpperCase();
  const target = firstOf(meta, 'db.sql.table', 'db.name', 'db.instance');
  return [operation, target].filter(Boolean).join(' ') || span.name;
}

const meaningful = (resource: string, operation: string): boolean => resource !== '' && resource !== operation && resource.length <= MAX_NAME && !/[\r\n]/.test(resource);

export function spanName(span: DdSpan, meta: Remaining<string>): string {
  if (isQuery(span, meta)) return queryName(span, meta);
  if (meaningful(span.resource, span.name)) return span.resource;
  return span.name || span.resource;
}

export const name: SpanStep = (draft) => {
  const { span, attributes } = draft;
  if (span.name) attributes.set('datadog.span.name', { string: span.name });
  if (span.resource) attributes.set('dd.span.Resource', { string: span.resource });
  if (span.type) attributes.set('datadog.span.type', { string: span.type });
  draft.name = spanName(span, draft.meta);
  return draft;
};
