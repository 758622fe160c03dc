/**
 * The query text of a database span, where HyperDX's Database tab reads it: `db.statement` (or
 * `db.query.text` under the `database` opt-in, both under `database/dup`). Tracers put the query
 * in the span's resource, some also in `db.statement`; the trace-agent's obfuscator writes its
 * obfuscated form to `sql.query`. The first that is set is the query text: the tags themselves are
 * renamed at the end (finish.ts), so only a query that sits in the resource alone is written here,
 * and `sql.query` is consumed when `db.statement` already says the query.
 */
import { isQuery } from './name';
import type { SpanStep } from './draft';

const STATEMENT = 'db.statement';
const OBFUSCATED = 'sql.query';

export const database: SpanStep = (draft, ctx) => {
  const { span, meta } = draft;
  if (!isQuery(span, meta)) return draft;
  if (meta.get(STATEMENT)) {
    meta.consume(OBFUSCATED);
    return draft;
  }
  if (meta.get(OBFUSCATED) || !span.resource) return draft;
  for (const name of ctx.attributeNames.of(STATEMENT).names) draft.attributes.set(name, { string: span.resource });
  return draft;
};
