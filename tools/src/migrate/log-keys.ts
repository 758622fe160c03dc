/**
 * A log's tags and its attributes are one map in the bridge (docs/translation.md, Logs: tags that
 * are not promoted to the resource are record attributes), where Datadog keeps them apart: the
 * tag `x` and the attribute `@x` are both LogAttributes['x'], so a search or a split on one also
 * reads the other. A dashboard whose log queries name a key both ways says its logs hold both (or
 * that one query meant the other): each of its log tiles naming that key says so.
 */
import type { TemplateVariable, WidgetDefinition, WidgetRequest } from './datadog';
import { LOG_SEARCH, searchFields, withVariableDefaults } from './log-search';
import { Unsupported } from './unsupported';

/** The fields a widget's log queries name: in their searches (variables at their defaults), group-bys and measures. */
function logFields(def: WidgetDefinition, variables: readonly TemplateVariable[]): string[] {
  const queries = ((Array.isArray(def.requests) ? def.requests : []) as WidgetRequest[]).flatMap((r) => [
    ...(r.queries ?? []).filter((q) => q.data_source === 'logs').map((q) => ({ search: q.search?.query, facets: [...(q.group_by ?? []).map((g) => g.facet), ...(q.compute?.metric ? [q.compute.metric] : [])] })),
    ...(r.log_query ? [{ search: r.log_query.search?.query, facets: [...(r.log_query.group_by ?? []).map((g) => g.facet), ...[r.log_query.compute?.facet ?? r.log_query.compute?.metric].filter((f) => f !== undefined)] }] : []),
    ...(r.query?.data_source === 'logs_stream' ? [{ search: r.query.query_string, facets: [] }] : []),
  ]);
  return queries.flatMap(({ search, facets }) => {
    try {
      return [...searchFields(withVariableDefaults(search ?? '', variables, [])), ...facets];
    } catch (err) {
      // a search naming an undefined variable: the widget reports it
      if (err instanceof Unsupported) return facets;
      throw err;
    }
  });
}

/** The LogAttributes key a field is read from, and whether it is named as an attribute (`@x`) or a tag. */
function attributeKey(field: string): { key: string; attribute: boolean } | undefined {
  const column = LOG_SEARCH.column(field);
  return typeof column === 'string' || column.map !== 'LogAttributes' ? undefined : { key: column.key, attribute: field.startsWith('@') };
}

/** The LogAttributes keys the dashboard's log queries name both as a tag and as an attribute. */
export function sharedLogKeys(defs: readonly WidgetDefinition[], variables: readonly TemplateVariable[]): Set<string> {
  const named = new Map<string, Set<boolean>>();
  for (const field of defs.flatMap((d) => logFields(d, variables))) {
    const at = attributeKey(field);
    if (at) named.set(at.key, (named.get(at.key) ?? new Set()).add(at.attribute));
  }
  return new Set([...named].filter(([, ways]) => ways.size === 2).map(([key]) => key));
}

/** What a widget's log queries read of both a tag and an attribute, said (under the field's Datadog name). */
export function sharedKeyNotes(def: WidgetDefinition, variables: readonly TemplateVariable[], shared: ReadonlySet<string> | undefined): string[] {
  if (!shared?.size) return [];
  const names = new Set(logFields(def, variables).flatMap((f) => (shared.has(attributeKey(f)?.key ?? '') ? [f.replace(/^@/, '')] : [])));
  return [...names].map((n) => `the tag ${n} and the attribute @${n} are one field in the bridge (a log's tags are kept with its attributes): a search or a split on either also reads logs that hold the other`);
}
