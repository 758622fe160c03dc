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

export const filterVariableNames = (variables: readonly TemplateVariable[]): Set<string> => new Set(variables.filter(isFilterable).map((v) => v.name));

const isWildcard = (value: string): boolean => value.includes('*');

/** What the variable's queries did with `$v` / `!$v`, and the tiles that did not use it. */
export interface VariableUsage {
  uses: ReadonlyMap<string, ReadonlySet<VariableUse>>;
  /** per variable: the metric tiles whose Datadog query did not reference it */
  unusedBy: ReadonlyMap<string, readonly string[]>;
}

function savedValue(v: TemplateVariable, expression: string, uses: ReadonlySet<VariableUse>, notes: string[]): SavedFilterValue | undefined {
  const values = v.defaults.filter((d) => d !== '*' && d !== '');
  if (values.length === 0) return undefined;
  if (values.some(isWildcard)) {
    notes.push(`template variable $${v.name}: default ${values.join(', ')} not preselected (a HyperDX filter selects exact values)`);
    return undefined;
  }
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
