/**
 * Datadog template variables → HyperDX dashboard filters (FilterInput in the OpenAPI document):
 * a variable with a tag key (`prefix`) becomes a drop-down over the column resource promotion
 * writes that tag to, its default the filter's saved value, its `available_values` the filter's
 * value query. The `$var` terms are dropped from the queries, and the filter broadcasts its
 * selection to every tile of the Metrics source instead.
 *
 * Not a variable reference (`isVariableEnabled`, `$name` in a tile's where): HyperDX's UI only
 * substitutes those when built with its dashboard-variables flag, off in its released images, and
 * its alerts evaluate every variable as empty; elsewhere the `$name` would stay in the Lucene and
 * match its literal text. Broadcasting is what every HyperDX does with a filter by default.
 */
import { sqlField, sqlIn, tagColumn } from './attributes';
import type { TemplateVariable } from './datadog';
import type { MetricType, VariableUse } from './series';

/** FilterInput of the OpenAPI document, as the migration fills it in (a type: the client's body type indexes its fields). */
export type FilterInput = {
  type: 'QUERY_EXPRESSION';
  name: string;
  expression: string;
  sourceId: string;
  sourceMetricType: MetricType;
  appliesToSourceIds: string[];
  where?: string;
  whereLanguage?: 'sql';
};

/** SavedFilterValue: a filter's default selection, in the form HyperDX's UI saves it. */
export interface SavedFilterValue {
  type: 'sql';
  condition: string;
}

export interface FilterPlan {
  filters: FilterInput[];
  savedFilterValues: SavedFilterValue[];
  notes: string[];
}

/** A variable HyperDX can hold as a filter: it selects values of one tag, hence one column. */
const isFilterable = (v: TemplateVariable): v is TemplateVariable & { prefix: string } => v.prefix !== null;

const isWildcard = (value: string): boolean => value.includes('*');

/** Whether a variable's default selects every value (`*`, or none given). */
const selectsEverything = (v: TemplateVariable): boolean => v.defaults.length === 0 || v.defaults.some((d) => d === '*' || d === '');

/** `$name` or `$name.value` in a query text. */
export const usesVariable = (text: string, name: string): boolean => new RegExp(`\\$${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(text);

/**
 * The variables that become HyperDX dashboard filters. A HyperDX filter's saved value narrows
 * every metric tile of the dashboard, where a Datadog variable narrows only the queries that name
 * it: a variable whose default selects something (`short_image:pilot`) becomes a filter only when
 * every metric widget uses it; otherwise its default is written into the queries that use it
 * (as for a variable without a tag key), and the tiles that do not use it stay unfiltered. So is
 * a default with a wildcard (`prod-*`), which a HyperDX filter cannot select. A variable whose
 * default selects everything has no saved value, so it filters nothing until a value is picked
 * (then every metric tile, which is said). `metricWidgets`: each widget's metric query texts.
 */
export function filterVariableNames(variables: readonly TemplateVariable[], metricWidgets: readonly (readonly string[])[]): Set<string> {
  const usedEverywhere = (v: TemplateVariable): boolean => metricWidgets.every((texts) => texts.some((t) => usesVariable(t, v.name)));
  return new Set(variables.filter((v) => isFilterable(v) && (selectsEverything(v) || (usedEverywhere(v) && !v.defaults.some(isWildcard)))).map((v) => v.name));
}

/** Variables kept out of the filters for their default (filterVariableNames), said once per dashboard. */
export function inlinedNotes(variables: readonly TemplateVariable[], filters: ReadonlySet<string>): string[] {
  return variables
    .filter((v) => isFilterable(v) && !filters.has(v.name))
    .map(
      (v) =>
        `template variable $${v.name} (default ${v.defaults.join(' or ')}) is applied in the queries that name it, not as a HyperDX filter: ${v.defaults.some(isWildcard) ? 'a filter selects exact values' : "a filter's value would also narrow the tiles that do not name it"}`,
    );
}

/** What the variable's queries did with `$v` / `!$v`, and the tiles that did not use it. */
export interface VariableUsage {
  uses: ReadonlyMap<string, ReadonlySet<VariableUse>>;
  /** per variable: the metric tiles whose Datadog query did not reference it */
  unusedBy: ReadonlyMap<string, readonly string[]>;
}

function savedValue(v: TemplateVariable, expression: string, uses: ReadonlySet<VariableUse>, notes: string[]): SavedFilterValue | undefined {
  const values = v.defaults.filter((d) => d !== '*' && d !== '');
  if (values.length === 0) return undefined;
  const negated = !uses.has('in');
  if (negated) notes.push(`template variable $${v.name} is used as !$${v.name}: its default is saved as an exclusion; a value picked in the HyperDX drop-down is included instead`);
  else if (uses.has('not in')) notes.push(`template variable $${v.name} is used both as $${v.name} and !$${v.name}: the filter includes its selection`);
  return { type: 'sql', condition: sqlIn(expression, values, negated) };
}

const MAX_NAMED = 5;

const tileList = (names: readonly string[]): string => `${names.slice(0, MAX_NAMED).join(', ')}${names.length > MAX_NAMED ? `, … (${names.length})` : ''}`;

function prefixlessNote(v: TemplateVariable): string {
  const applied = v.defaults.filter((d) => d !== '*' && d !== '');
  return `template variable $${v.name} has no tag key (its value is a whole tag): not a HyperDX filter, which reads one column; queries use its default (${applied.length > 0 ? applied.join(' or ') : 'everything'})`;
}

/**
 * The filters of a dashboard: one per filterable variable a migrated query uses. `metricType`
 * is the table the drop-down reads its values from (the dashboard's most used one).
 */
export function dashboardFilters(variables: readonly TemplateVariable[], usage: VariableUsage, metricSource: string, metricType: MetricType): FilterPlan {
  const plan: FilterPlan = { filters: [], savedFilterValues: [], notes: [] };
  for (const v of variables) {
    if (!isFilterable(v)) {
      plan.notes.push(prefixlessNote(v));
      continue;
    }
    const uses = usage.uses.get(v.name);
    if (uses === undefined) {
      plan.notes.push(`template variable $${v.name} is used by no migrated query: no HyperDX filter`);
      continue;
    }
    const expression = sqlField(tagColumn('metrics', v.prefix));
    plan.filters.push({
      type: 'QUERY_EXPRESSION',
      name: v.name,
      expression,
      sourceId: metricSource,
      sourceMetricType: metricType,
      // a filter on a map column of the metric tables means nothing to (and breaks) log tiles
      appliesToSourceIds: [metricSource],
      ...(v.availableValues.length > 0 ? { where: sqlIn(expression, v.availableValues), whereLanguage: 'sql' as const } : {}),
    });
    const saved = savedValue(v, expression, uses, plan.notes);
    if (saved) plan.savedFilterValues.push(saved);
    const unused = usage.unusedBy.get(v.name) ?? [];
    if (unused.length > 0) plan.notes.push(`filter "${v.name}" also applies to tiles whose Datadog query did not use $${v.name}: ${tileList(unused)}`);
  }
  return plan;
}
